import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

describe('audit log', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let prod: string;
  let staging: string;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    prod = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    staging = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'staging', name: 'Staging' } })).id;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'banner', name: 'Banner', valueType: 'string', defaultValue: 'off' } });
    for (let i = 1; i <= 7; i++) {
      await owner.session.setFlagValue({ path: { envId: i % 2 ? prod : staging, key: 'banner' }, body: { value: `v${i}` } });
    }
  });
  afterAll(() => t?.close());

  it('pages newest first with an opaque cursor, never repeating or skipping', async () => {
    const all = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200 } });
    expect(all.nextCursor).toBeNull();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 3, ...(cursor ? { cursor } : {}) } });
      expect(page.events.length).toBeLessThanOrEqual(3);
      seen.push(...page.events.map((e) => e.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all.events.map((e) => e.id));
    const times = all.events.map((e) => e.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.events.slice(-2).map((e) => e.action).sort()).toEqual(['member.added', 'org.created']);
  });

  it('defaults to 50 events and refuses limits outside 1–200 and forged cursors', async () => {
    const page = await owner.session.listAuditEvents({ path: { slug: 'acme' } });
    expect(page.events.length).toBeLessThanOrEqual(50);
    await expectApiError(owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 0 } }), 400, 'invalid_request');
    const err = await expectApiError(owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { cursor: 'bm9wZQ' } }), 400, 'invalid_request');
    expect(err.fields).toEqual({ cursor: 'invalid cursor' });
  });

  it('spec "Audit" 1: list filters (envId, resourceType, resourceKey, actorId) are AND-combined; rows carry the env version', async () => {
    const prodRows = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { envId: prod, resourceType: 'flag', resourceKey: 'banner' } });
    expect(prodRows.events.map((e) => e.action)).toEqual(Array(4).fill('flag.update_value'));
    // prod: environment.created (v0), flag created (v1), then four values: v2..v5
    expect(prodRows.events.map((e) => e.version)).toEqual([5, 4, 3, 2]);
    const env = await owner.session.getEnvironment({ path: { envId: prod } });
    expect(env.version).toBe(5);
    const byActor = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { actorId: owner.userId, envId: staging } });
    expect(byActor.events.every((e) => e.envId === staging && e.actorId === owner.userId)).toBe(true);
    expect(byActor.events.length).toBe(4); // environment.created + three values
    const none = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout' } });
    expect(none).toEqual({ events: [], nextCursor: null });
  });

  it('spec "AuditEventDetail": the detail adds previousValue, newValue and a JSON Patch diff', async () => {
    const [latest] = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 1 } })).events;
    const detail = await owner.session.getAuditEvent({ path: { id: latest!.id } });
    expect(detail).toMatchObject({ action: 'flag.update_value', previousValue: 'v5', newValue: 'v7', diff: [{ op: 'replace', path: '', value: 'v7' }] });
  });

  it("names each row's actor: a user by display name, an API key by its name, also after revocation", async () => {
    const [mine] = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 1 } })).events;
    expect(mine).toMatchObject({ actorType: 'user', actorId: owner.userId, actorName: 'Olive Owner', actorEmail: expect.any(String) });
    const created = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'deploy bot' } });
    const bot = t.asToken(created.token);
    await bot.createEnvironment({ path: { id: (await owner.session.listProjects({ path: { slug: 'acme' } }))[0]!.id }, body: { key: 'qa', name: 'QA' } });
    await owner.session.revokeApiKey({ path: { slug: 'acme', id: created.id } });
    const [byKey] = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { actorId: created.id } })).events;
    expect(byKey).toMatchObject({ action: 'environment.created', actorType: 'api_token', actorName: 'deploy bot' });
    expect(await owner.session.getAuditEvent({ path: { id: byKey!.id } })).toMatchObject({ actorName: 'deploy bot' });
  });

  it('does not write an audit row or bump the version for a write that changes nothing', async () => {
    const before = await owner.session.getEnvironment({ path: { envId: prod } });
    const count = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200 } })).events.length;
    await owner.session.setFlagValue({ path: { envId: prod, key: 'banner' }, body: { value: 'v7' } });
    await owner.session.setFlagRules({ path: { envId: prod, key: 'banner' }, body: { rules: [] } });
    expect((await owner.session.getEnvironment({ path: { envId: prod } })).version).toBe(before.version);
    expect((await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200 } })).events.length).toBe(count);
  });

  it('lists to a key restricted to environments only their rows, in full pages with working cursors; other rows are 404', async () => {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'staging reader', environments: [staging] } });
    const api = t.asToken(token);
    const everything = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200 } })).events;
    const expected = everything.filter((e) => e.envId === staging).map((e) => e.id);
    expect(expected.length).toBeGreaterThan(3);
    expect((await api.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200 } })).events.map((e) => e.id)).toEqual(expected);
    // Pages of two: full until the last, in order, never repeating or skipping.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 2, ...(cursor ? { cursor } : {}) } });
      if (page.nextCursor) expect(page.events).toHaveLength(2);
      seen.push(...page.events.map((e) => e.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(expected);
    // Filters narrow within the scope; asking for another environment's rows answers none.
    expect((await api.listAuditEvents({ path: { slug: 'acme' }, query: { envId: prod } })).events).toEqual([]);
    const prodRow = everything.find((e) => e.envId === prod)!;
    const orgRow = everything.find((e) => e.action === 'org.created')!;
    const projectRow = everything.find((e) => e.action === 'flag.created')!;
    for (const row of [prodRow, orgRow, projectRow]) await expectApiError(api.getAuditEvent({ path: { id: row.id } }), 404, 'not_found');
    expect((await api.getAuditEvent({ path: { id: expected[0]! } })).envId).toBe(staging);
  });

  it('lists to a key restricted to resources only the rows of matching flags and configs ("_" and "%" are literal)', async () => {
    const project = (await owner.session.listProjects({ path: { slug: 'acme' } }))[0]!;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'b_nner-2', name: 'B', valueType: 'string', defaultValue: 'off' } });
    await owner.session.setFlagValue({ path: { envId: staging, key: 'b_nner-2' }, body: { value: 'on' } });
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'b_nner team', resources: ['b_nner*', '%'] } });
    const api = t.asToken(token);
    const rows = (await api.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200 } })).events;
    // 'banner' would match b_nner* and % as LIKE patterns; as globs it matches neither.
    expect(rows.map((e) => [e.resourceKey, e.action])).toEqual([
      ['b_nner-2', 'flag.update_value'],
      ['b_nner-2', 'flag.created'],
    ]);
    const page = await api.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 1 } });
    expect(page.events.map((e) => e.action)).toEqual(['flag.update_value']);
    const next = await api.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 1, cursor: page.nextCursor! } });
    expect(next.events.map((e) => e.action)).toEqual(['flag.created']);
    const banner = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceKey: 'banner', limit: 1 } })).events[0]!;
    await expectApiError(api.getAuditEvent({ path: { id: banner.id } }), 404, 'not_found');
  });

  it('with includeProjectRows lists a flag’s history in one environment: its rows there and its project’s rows of no environment', async () => {
    const project = (await owner.session.listProjects({ path: { slug: 'acme' } }))[0]!;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'history', name: 'History', defaultValue: false } });
    await owner.session.setFlagValue({ path: { envId: prod, key: 'history' }, body: { value: true } });
    await owner.session.setFlagValue({ path: { envId: staging, key: 'history' }, body: { value: true } });
    await owner.session.updateFlag({ path: { id: project.id, key: 'history' }, body: { name: 'History 2' } });
    const query = { envId: prod, resourceKey: 'history', includeProjectRows: 'true' as const };
    const rows = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query })).events;
    expect(rows.map((e) => [e.action, e.envId])).toEqual([
      ['flag.updated', null],
      ['flag.update_value', prod],
      ['flag.created', null],
    ]);
    // Without it, envId stays the environment's rows only; with 'false' too.
    const only = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { ...query, includeProjectRows: 'false' } })).events;
    expect(only.map((e) => e.action)).toEqual(['flag.update_value']);
    // Organization-level rows (no project) are not a project's.
    const all = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { envId: prod, includeProjectRows: 'true', limit: 200 } })).events;
    expect(all.some((e) => e.action === 'org.created' || e.action === 'api_token.created')).toBe(false);
    expect(all.every((e) => e.envId === prod || (e.envId === null && e.action !== 'member.added'))).toBe(true);
    expect(all.some((e) => e.envId === staging)).toBe(false);

    const err = await expectApiError(owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { includeProjectRows: 'true' } }), 400, 'invalid_request');
    expect(Object.keys(err.fields ?? {})).toEqual(['includeProjectRows']);

    // A key restricted to environments still sees only its environments' rows; one restricted to resources only its own.
    const byEnv = t.asToken((await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'prod history', environments: [prod] } })).token);
    expect((await byEnv.listAuditEvents({ path: { slug: 'acme' }, query })).events.map((e) => e.action)).toEqual(['flag.update_value']);
    const byRes = t.asToken((await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'history reader', resources: ['hist*'] } })).token);
    const mine = (await byRes.listAuditEvents({ path: { slug: 'acme' }, query: { envId: prod, includeProjectRows: 'true', limit: 200 } })).events;
    expect(mine.map((e) => e.action)).toEqual(['flag.updated', 'flag.update_value', 'flag.created']);
  });

  it('spec "Audit" limit: 1 to 200, default 50; 0 and 201 answer 400 invalid_request naming limit', async () => {
    for (let i = 0; i < 55; i++) await owner.session.setFlagValue({ path: { envId: prod, key: 'banner' }, body: { value: `bulk-${i}` } });
    const list = (limit?: number) => owner.session.listAuditEvents({ path: { slug: 'acme' }, query: limit === undefined ? {} : { limit } });
    const page = await list();
    expect(page.events).toHaveLength(50);
    expect(page.nextCursor).not.toBeNull();
    expect((await list(1)).events).toHaveLength(1);
    expect((await list(200)).events.length).toBeGreaterThan(55);
    for (const limit of [0, 201]) expect(Object.keys((await expectApiError(list(limit), 400, 'invalid_request')).fields ?? {})).toEqual(['limit']);
  });

  it('spec "Audit" 1 and 2: an unknown org answers 404 not_found to the list, an unknown event id 404 not_found to the detail', async () => {
    await expectApiError(owner.session.listAuditEvents({ path: { slug: 'no-such-org' } }), 404, 'not_found');
    await expectApiError(owner.session.getAuditEvent({ path: { id: '00000000-0000-4000-8000-000000000000' } }), 404, 'not_found');
  });
});
