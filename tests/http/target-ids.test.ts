import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { rawQuery } from '../../server/src/features/common/sql.js';
import { scrapeMetrics } from '../support/metrics.js';
import { rolloutOps, type Kind } from '../support/rollout-ops.js';

/** Checks answered so far, from memory, from the database, or both. */
async function fastChecks(t: TestServer, source?: 'memory' | 'database'): Promise<number> {
  const metrics = await scrapeMetrics(t.server.url);
  return source ? metrics.sample(`gradual_target_id_checks_total{source="${source}"}`, 0) : metrics.sum('gradual_target_id_checks_total');
}

describe.each<Kind>(['flag', 'config'])('%s rollout target IDs', (kind) => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  let ops: ReturnType<typeof rolloutOps>;
  let projectId: string;
  const key = 'k';
  const path = () => ({ envId, key });

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    projectId = project.id;
    envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    if (kind === 'flag') await owner.session.createFlag({ path: { id: project.id }, body: { key, name: 'K', defaultValue: false } });
    else await owner.session.createConfig({ path: { id: project.id }, body: { key, name: 'K', defaultValue: 'a' } });
    ops = rolloutOps(owner.session, kind);
  });
  afterAll(() => t?.close());

  it('answers 404 without a rollout', async () => {
    await expectApiError(ops.add(path(), ['u1']), 404, 'not_found');
    await expectApiError(ops.list(path()), 404, 'not_found');
    // contains reads environment, primitive, rollout and membership in one statement: every
    // missing link still answers the same 404.
    await expectApiError(ops.contains({ ...path(), targetId: 'u1' }), 404, 'not_found');
    await expectApiError(ops.contains({ envId, key: 'nope', targetId: 'u1' }), 404, 'not_found');
    await expectApiError(ops.contains({ envId: '00000000-0000-4000-8000-000000000000', key, targetId: 'u1' }), 404, 'not_found');
    await expectApiError(ops.contains({ envId: 'not-a-uuid', key, targetId: 'u1' }), 404, 'not_found');
  });

  it('spec "Target IDs" 1: add ignores duplicates (in the request and on the list); added is the number actually added, count the new list size', async () => {
    await ops.put(path(), { percent: 0, newValue: kind === 'flag' ? true : 'b' });
    const v0 = (await owner.session.getEnvironment({ path: { envId } })).version;
    expect(await ops.add(path(), ['u1', 'u2', 'u2', 'u3'])).toEqual({ added: 3, count: 3 });
    expect(await ops.add(path(), ['u3', 'u4'])).toEqual({ added: 1, count: 4 });
    expect(await ops.add(path(), ['u1'])).toEqual({ added: 0, count: 4 });
    expect((await ops.get(path())).targetIdsCount).toBe(4);
    // Two effective writes → two versions; the no-op add changed nothing.
    expect((await owner.session.getEnvironment({ path: { envId } })).version).toBe(v0 + 2);
    const audit = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', limit: 2 } });
    expect(audit.events[0]).toMatchObject({ action: 'rollout.target_ids_added', version: v0 + 2 });
  });

  it('spec "Target IDs" 2: remove answers {removed, count}, skipping absent IDs; contains then answers true or false', async () => {
    expect(await ops.remove(path(), ['u2', 'nope', 'u2'])).toEqual({ removed: 1, count: 3 });
    expect(await ops.contains({ ...path(), targetId: 'u1' })).toEqual({ contains: true });
    expect(await ops.contains({ ...path(), targetId: 'u2' })).toEqual({ contains: false });
    expect(await ops.contains({ ...path(), targetId: 'a/b c%d' })).toEqual({ contains: false });
  });

  it('answers API-key checks with exactly the answers and refusals a session gets', async () => {
    const plural = kind === 'flag' ? 'flags' : 'configs';
    const url = (id: string, k = key) => `${t.url}/api/v1/envs/${envId}/${plural}/${encodeURIComponent(k)}/rollout/target-ids/contains/${encodeURIComponent(id)}`;
    const fastCount = () => fastChecks(t);
    const check = (id: string, token: string, k = key) => fetch(url(id, k), { headers: { authorization: `Bearer ${token}` } });
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `checks-${kind}`, actions: ['read'] } });
    // The first check warms the key cache and environment directory; each answered check counts once.
    expect(await (await check('u1', token)).json()).toEqual({ contains: true });
    let fast = false;
    for (let attempt = 0; attempt < 5 && !fast; attempt++) {
      const before = await fastCount();
      expect(await (await check('u3', token)).json()).toEqual({ contains: true });
      fast = (await fastCount()) === before + 1;
    }
    expect(fast).toBe(true);
    // Same answers and headers as the full route (a session takes it), for present, absent and odd IDs.
    for (const id of ['u1', 'u2', 'a/b c%d', 'ü-☃']) {
      const viaKey = await check(id, token);
      const viaSession = await fetch(url(id), { headers: { cookie: `svc_session=${owner.sessionToken}` } });
      expect(viaKey.status).toBe(200);
      expect(await viaKey.json(), id).toEqual(await viaSession.json());
      expect(viaKey.headers.get('content-type')).toBe(viaSession.headers.get('content-type'));
      expect(viaKey.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number(viaKey.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    }
    // Refusals are not answers and count nothing: unknown key, a key out of the token's scope, a revoked token.
    const before = await fastCount();
    expect((await check('u1', token, 'nope')).status).toBe(404);
    const scoped = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `scoped-${kind}`, actions: ['read'], resources: ['other-*'] } });
    const denied = await check('u1', scoped.token);
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { code: string }).code).toBe('token_resource_out_of_scope');
    const doomed = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `doomed-${kind}`, actions: ['read'] } });
    expect((await check('u1', doomed.token)).status).toBe(200);
    await owner.session.revokeApiKey({ path: { slug: 'acme', id: doomed.id } });
    expect((await check('u1', doomed.token)).status).toBe(401);
    // An exhausted bucket is a 429.
    const tight = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `tight-${kind}`, actions: ['read'], rateLimitPerMin: 2 } });
    expect((await check('u1', tight.token)).status).toBe(200);
    expect((await check('u1', tight.token)).status).toBe(200);
    const limited = await check('u1', tight.token);
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { code: string }).code).toBe('token_rate_limit');
    expect(await fastCount()).toBe(before + 3); // the doomed key's check and the tight key's two
  });

  it('answers API-key checks from memory, and the next check after an edit already sees it', async () => {
    const plural = kind === 'flag' ? 'flags' : 'configs';
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `memory-${kind}`, actions: ['read'] } });
    const check = async (id: string) => {
      const res = await fetch(`${t.url}/api/v1/envs/${envId}/${plural}/${key}/rollout/target-ids/contains/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { contains: boolean }).contains;
    };
    // Warming up takes a few checks: the key cache, the environment directory, then the list.
    let warm = false;
    for (let attempt = 0; attempt < 10 && !warm; attempt++) {
      const before = await fastChecks(t, 'memory');
      expect(await check('u1')).toBe(true);
      warm = (await fastChecks(t, 'memory')) === before + 1;
      await t.server.deps.targetIds.settled();
    }
    expect(warm).toBe(true);
    expect(t.server.deps.targetIds.size).toBe(3); // u1, u3, u4
    // Every edit raises the environment version the copy is tied to: the very next check is
    // right (from the database while memory catches up), and later ones come from memory again.
    await ops.add(path(), ['fresh']);
    expect(await check('fresh')).toBe(true);
    await ops.remove(path(), ['u1']);
    expect(await check('u1')).toBe(false);
    await t.server.deps.targetIds.settled();
    const before = await fastChecks(t, 'memory');
    expect(await check('fresh')).toBe(true);
    expect(await check('u1')).toBe(false);
    expect(await check('u3')).toBe(true);
    expect(await fastChecks(t, 'memory')).toBe(before + 3);
    await ops.remove(path(), ['fresh']);
    await ops.add(path(), ['u1']);
    expect(await check('fresh')).toBe(false);
    expect(await check('u1')).toBe(true);
  });

  it('replaces atomically and pages in ID order with nextCursor only on full pages', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => `user-${String(i).padStart(3, '0')}`);
    expect(await ops.replace(path(), [...ids].reverse().concat(ids.slice(0, 5)))).toEqual({ count: 25 });
    expect(await ops.contains({ ...path(), targetId: 'u1' })).toEqual({ contains: false });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ops.list(path(), { limit: 10, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items);
      cursor = page.nextCursor;
      pages++;
      if (page.items.length < 10) expect(page.nextCursor).toBeUndefined();
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
    const exact = await ops.list(path(), { limit: 25 });
    expect(exact.items).toHaveLength(25);
    expect(exact.nextCursor).toBeDefined();
    expect(await ops.list(path(), { limit: 25, cursor: exact.nextCursor! })).toEqual({ items: [] });
    expect((await ops.list(path())).items).toHaveLength(25);
    await expectApiError(ops.list(path(), { cursor: '!!!' }), 400, 'invalid_request');
    await expectApiError(ops.list(path(), { limit: 10_001 }), 400, 'invalid_request');
  });

  it('spec "Limits" target IDs per request: 100,001 IDs in an add or a remove answer 400 invalid_request; an empty or over-long ID is refused by index', async () => {
    expect((await expectApiError(ops.add(path(), ['']), 400, 'invalid_request')).fields).toHaveProperty(['targetIds.0']);
    expect((await expectApiError(ops.add(path(), ['x'.repeat(257)]), 400, 'invalid_request')).fields).toHaveProperty(['targetIds.0']);
    const tooMany = Array.from({ length: 100_001 }, (_, i) => `id-${i}`);
    expect((await expectApiError(ops.add(path(), tooMany), 400, 'invalid_request')).fields).toHaveProperty('targetIds');
    expect((await expectApiError(ops.remove(path(), tooMany), 400, 'invalid_request')).fields).toHaveProperty('targetIds');
  });

  it('spec "Limits" target IDs per request: add and remove take 100,000 IDs in one request (a body well over 1 MiB)', async () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `customer-${i}-${kind}`);
    expect(await ops.add(path(), ids)).toEqual({ added: 100_000, count: 100_025 });
    expect(await ops.contains({ ...path(), targetId: 'customer-99999-' + kind })).toEqual({ contains: true });
    expect(await ops.remove(path(), ids.slice(0, 50_000))).toEqual({ removed: 50_000, count: 50_025 });
  });

  it('keeps the list with the rollout: a new rollout after cancel starts empty', async () => {
    await ops.cancel(path());
    const fresh = await ops.put(path(), { percent: 1, newValue: kind === 'flag' ? true : 'b' });
    expect(fresh.targetIdsCount).toBe(0);
    expect(await ops.list(path())).toEqual({ items: [] });
  });

  const fresh = async (k: string, rollout: { percent: number; bucketField?: string }) => {
    if (kind === 'flag') await owner.session.createFlag({ path: { id: projectId }, body: { key: k, name: k, defaultValue: false } });
    else await owner.session.createConfig({ path: { id: projectId }, body: { key: k, name: k, defaultValue: 'a' } });
    await ops.put({ envId, key: k }, { ...rollout, newValue: kind === 'flag' ? true : 'b' });
    return { envId, key: k };
  };

  it('spec "Target IDs": a listed ID, matched against the rollout\'s bucketField, skips the percent gate and always gets the candidate value', async () => {
    const p = await fresh('by-account', { percent: 0, bucketField: 'accountId' });
    await ops.add(p, ['acct-1']);
    const value = async (context: Record<string, string>) => (await owner.session.evaluate({ path: { envId }, body: { context, keys: [p.key] } })).results[p.key]!.value;
    expect(await value({ accountId: 'acct-1' })).toEqual(kind === 'flag' ? true : 'b');
    expect(await value({ userId: 'acct-1' })).toEqual(kind === 'flag' ? false : 'a');
    expect(await value({ accountId: 'acct-2' })).toEqual(kind === 'flag' ? false : 'a');
  });

  it('spec "Target IDs" 3: replace answers {count} and the list is then exactly the new IDs', async () => {
    const p = await fresh('replaced', { percent: 0 });
    await ops.add(p, ['old-1', 'old-2', 'keep']);
    expect(await ops.replace(p, ['keep', 'new-1', 'new-1'])).toEqual({ count: 2 });
    expect((await ops.list(p)).items).toEqual(['keep', 'new-1']);
    expect(await ops.contains({ ...p, targetId: 'old-1' })).toEqual({ contains: false });
    expect((await ops.get(p)).targetIdsCount).toBe(2);
  });

  it('spec "Target IDs" 4: the list\'s default page (limit omitted) holds 1000 IDs, with nextCursor on the full page', async () => {
    const p = await fresh('paged', { percent: 0 });
    const ids = Array.from({ length: 1001 }, (_, i) => `id-${String(i).padStart(4, '0')}`);
    await ops.replace(p, ids);
    const first = await ops.list(p);
    expect(first.items).toEqual(ids.slice(0, 1000));
    expect(first.nextCursor).toBeDefined();
    const second = await ops.list(p, { cursor: first.nextCursor! });
    expect(second.items).toEqual(ids.slice(1000));
    expect(second.nextCursor).toBeUndefined();
  });
});

describe('target IDs go with their rollout', () => {
  it('deleting the org removes every allow-listed ID (no foreign key: a statement trigger cascades)', async () => {
    const t = await startTestServer();
    try {
      const owner = await claim(t);
      const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
      const envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
      await owner.session.createFlag({ path: { id: project.id }, body: { key: 'k', name: 'K', defaultValue: false } });
      const ops = rolloutOps(owner.session, 'flag');
      const rollout = await ops.put({ envId, key: 'k' }, { percent: 5, newValue: true });
      expect(await ops.add({ envId, key: 'k' }, ['a', 'b', 'c'])).toEqual({ added: 3, count: 3 });
      // A replace gives the rollout a list of its own id; the first one is left as a spare until deleted.
      expect(await ops.replace({ envId, key: 'k' }, ['d', 'e'])).toEqual({ count: 2 });
      const db = t.server.deps.db.em();
      const { rows: lists } = await rawQuery<{ id: string }>(
        db,
        'select coalesce(target_list_id, id) as id from rollouts where id = ? union select list_id from rollout_spare_target_lists where rollout_id = ? union select ?',
        [rollout.id, rollout.id, rollout.id],
      );
      const listed = async () => Number((await rawQuery<{ n: string }>(db, 'select count(*) as n from rollout_target_ids where list_id = any(?::uuid[])', [lists.map((l) => l.id)])).rows[0]!.n);
      const spares = async () => Number((await rawQuery<{ n: string }>(db, 'select count(*) as n from rollout_spare_target_lists where rollout_id = ?', [rollout.id])).rows[0]!.n);
      expect(await listed()).toBeGreaterThanOrEqual(2);
      await owner.session.deleteOrg({ path: { slug: 'acme' }, body: { confirm: 'acme' } });
      expect(await listed()).toBe(0);
      expect(await spares()).toBe(0);
    } finally {
      await t.close();
    }
  });
});
