import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { rolloutOps, type Kind } from '../support/rollout-ops.js';

/** The rollout state family, exercised identically for flags and for configs. */
describe.each<Kind>(['flag', 'config'])('%s rollouts', (kind) => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  let projectId: string;
  const key = kind === 'flag' ? 'checkout' : 'limits';
  const candidate = kind === 'flag' ? true : { max: 2 };
  const base = kind === 'flag' ? false : { max: 1 };
  let path: { envId: string; key: string };
  let ops: ReturnType<typeof rolloutOps>;

  const version = async () => (await owner.session.getEnvironment({ path: { envId } })).version;
  const rolloutAudit = async () =>
    (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: key, limit: 200 } })).events;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    if (kind === 'flag') await owner.session.createFlag({ path: { id: projectId }, body: { key, name: 'Checkout', defaultValue: base } });
    else await owner.session.createConfig({ path: { id: projectId }, body: { key, name: 'Limits', defaultValue: base } });
    path = { envId, key };
    ops = rolloutOps(owner.session, kind);
  });
  afterAll(() => t?.close());

  it('spec "Rollout state" 1: GET answers 404 not_found while no rollout exists', async () => {
    await expectApiError(ops.get(path), 404, 'not_found');
  });

  it('spec "PUT rules" 4: without a matching rule, a PUT without newValue answers 400 invalid_request naming newValue', async () => {
    const err = await expectApiError(ops.put(path, { percent: 10 }), 400, 'invalid_request');
    expect(Object.keys(err.fields!)).toEqual(['newValue']);
    expect((await ops.state(path)).rollout).toBeNull();
  });

  it('spec "Rollout": a new rollout\'s seed defaults to <primitiveKey>:<envKey> and its bucketField to the project\'s target ID field', async () => {
    const before = await version();
    const rollout = await ops.put(path, { percent: 10, newValue: candidate }, { 'x-audit-reason': 'canary' });
    expect(rollout).toMatchObject({
      environmentId: envId,
      primitiveKind: kind,
      primitiveKey: key,
      status: 'active',
      percent: 10,
      pausedAtPercent: null,
      pausedReason: null,
      seed: `${key}:prod`,
      bucketField: 'userId',
      newValue: candidate,
      planKey: null,
      planRampStepsSnapshot: null,
      cadence: null,
      rampStepIdx: null,
      nextStepAt: null,
      targetIdsCount: 0,
    });
    expect(await version()).toBe(before + 1);
    const [created] = await rolloutAudit();
    expect(created).toMatchObject({ action: 'rollout.created', resourceType: 'rollout', resourceId: rollout.id, reason: 'canary', version: before + 1 });
    expect((await ops.state(path)).rollout?.id).toBe(rollout.id);
  });

  it('spec "PUT rules" 1: a repeated PUT returns the existing rollout unchanged (same body, no audit row, no version bump)', async () => {
    const first = await ops.get(path);
    const v = await version();
    const audits = (await rolloutAudit()).length;
    const again = await ops.put(path, { percent: 10, newValue: candidate });
    expect(again).toEqual(first);
    expect(await version()).toBe(v);
    expect((await rolloutAudit()).length).toBe(audits);
  });

  it('edits percent (rollout.updated) and validates percent and candidate', async () => {
    const updated = await ops.put(path, { percent: 12.5 });
    expect(updated).toMatchObject({ percent: 12.5, newValue: candidate });
    expect((await rolloutAudit())[0]).toMatchObject({ action: 'rollout.updated' });
    expect((await expectApiError(ops.put(path, { percent: 100.5 }), 400, 'invalid_request')).fields).toHaveProperty('percent');
    expect((await expectApiError(ops.put(path, { percent: 1.23456 }), 400, 'invalid_request')).fields).toHaveProperty('percent');
    expect((await expectApiError(ops.put(path, { percent: -1 }), 400, 'invalid_request')).fields).toHaveProperty('percent');
    if (kind === 'flag') {
      expect((await expectApiError(ops.put(path, { percent: 20, newValue: 'yes' }), 400, 'invalid_request')).fields).toEqual({ newValue: 'must be a boolean' });
    }
  });

  it('spec "PUT rules" 3: a changed seed while percent is above 0 answers 400 rollout_seed_locked', async () => {
    const err = await expectApiError(ops.put(path, { percent: 12.5, seed: 'another-seed' }), 400, 'rollout_seed_locked');
    expect(err.fields).toHaveProperty('seed');
    // Re-sending the same seed is not a change.
    await ops.put(path, { percent: 12.5, seed: `${key}:prod` });
  });

  it('pauses (idempotent), resumes, and refuses to resume an active rollout', async () => {
    const paused = await ops.pause(path, { 'x-audit-reason': 'investigating' });
    expect(paused).toMatchObject({ status: 'paused', pausedReason: 'user', pausedAtPercent: 12.5, percent: 12.5 });
    const audits = (await rolloutAudit()).length;
    expect(await ops.pause(path)).toEqual(paused);
    expect((await rolloutAudit()).length).toBe(audits);
    // A PUT on a paused rollout edits it and leaves it paused.
    expect(await ops.put(path, { percent: 15 })).toMatchObject({ status: 'paused', percent: 15, pausedAtPercent: 15 });
    const resumed = await ops.resume(path);
    expect(resumed).toMatchObject({ status: 'active', percent: 15, pausedAtPercent: null, pausedReason: null });
    await expectApiError(ops.resume(path), 409, 'rollout_not_paused');
    expect((await rolloutAudit()).slice(0, 3).map((e) => e.action)).toEqual(['rollout.resumed', 'rollout.updated', 'rollout.paused']);
  });

  it('spec "Rollout status" 9: advance with no next step (a plan-less rollout) answers 409 rollout_already_at_final_step', async () => {
    await expectApiError(ops.advance(path), 409, 'rollout_already_at_final_step');
  });

  it('spec "Versioning" 3: a matching If-None-Match answers 304, a stale If-Match 412 precondition_failed', async () => {
    const { response } = await ops.getWithResponse(path);
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const cached = await fetch(`${t.url}/api/v1/envs/${envId}/${kind}s/${key}/rollout`, { headers: { cookie: `svc_session=${owner.sessionToken}`, 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    await expectApiError(ops.put(path, { percent: 16 }, { 'if-match': '"stale"' }), 412, 'precondition_failed');
    expect(await ops.put(path, { percent: 16 }, { 'if-match': etag })).toMatchObject({ percent: 16 });
    await expectApiError(ops.put(path, { percent: 17 }, { 'if-match': etag }), 412, 'precondition_failed');
  });

  it('loses no write when PUTs, pauses, resumes and target-ID edits race on one rollout', async () => {
    // PUTs and commands commit optimistically (one statement, only if the row is unchanged since
    // it was read); target-ID edits take the row lock. A PUT that wrote a row read before an edit
    // committed would put the old targetIdsCount back.
    await ops.resume(path).catch(() => undefined);
    const start = await ops.get(path);
    const v0 = await version();
    const percents = Array.from({ length: 8 }, (_, i) => 20 + i);
    const ids = Array.from({ length: 8 }, (_, i) => `race-${kind}-${i}`);
    await Promise.all([
      ...percents.map((percent) => ops.put(path, { percent })),
      ...ids.map((id) => ops.add(path, [id])),
      ops.pause(path),
      ops.resume(path).catch((err: { status?: number }) => expect(err.status).toBe(409)), // not paused yet: refused
    ]);
    const after = await ops.get(path);
    expect(after.targetIdsCount).toBe(start.targetIdsCount + ids.length);
    for (const id of ids) expect((await ops.contains({ ...path, targetId: id })).contains).toBe(true);
    // Every write bumped the version once and left one audit row carrying it.
    const writes = (await version()) - v0;
    const rows = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { envId, limit: 50 } })).events.filter((e) => e.version! > v0);
    expect(rows.map((e) => e.version).sort((a, b) => a! - b!)).toEqual(Array.from({ length: writes }, (_, i) => v0 + 1 + i));
    expect(rows.filter((e) => e.action === 'rollout.target_ids_added')).toHaveLength(ids.length);
    expect(writes).toBeGreaterThanOrEqual(percents.length + ids.length + 1);
    // The newest rollout audit row describes the rollout as it now is.
    const newest = rows.filter((e) => e.action !== 'rollout.target_ids_added').sort((a, b) => b.version! - a.version!)[0]!;
    expect((await owner.session.getAuditEvent({ path: { id: newest.id } })).newValue).toMatchObject({ percent: after.percent, status: after.status });
    if (after.status === 'paused') await ops.resume(path);
  });

  it('spec "Rollout status" 7: cancel or DELETE → cancelled, the previous value returns, the row is kept, idempotent; a later PUT starts a new rollout', async () => {
    const live = await ops.get(path);
    const cancelled = await ops.cancel(path);
    expect(cancelled).toMatchObject({ id: live.id, status: 'cancelled' });
    expect(await ops.cancel(path)).toEqual(cancelled);
    expect(await ops.get(path)).toEqual(cancelled);
    expect((await ops.state(path)).value).toEqual(base);
    await expectApiError(ops.resume(path), 409, 'rollout_not_paused');
    const fresh = await ops.put(path, { percent: 5, newValue: candidate });
    expect(fresh.id).not.toBe(live.id);
    expect(fresh).toMatchObject({ status: 'active', percent: 5 });
    expect((await rolloutAudit())[0]).toMatchObject({ action: 'rollout.created', resourceId: fresh.id });
    await ops.delete(path);
    expect(await ops.get(path)).toMatchObject({ id: fresh.id, status: 'cancelled' });
  });

  it('completes at 100%: the candidate becomes the base value in the same write', async () => {
    await ops.put(path, { percent: 50, newValue: candidate });
    const v = await version();
    const done = await ops.put(path, { percent: 100 });
    expect(done).toMatchObject({ status: 'completed', percent: 100 });
    // Retrying the completing PUT returns the completed rollout, not a new one.
    expect(await ops.put(path, { percent: 100 })).toEqual(done);
    expect(await ops.put(path, { percent: 100, newValue: candidate })).toEqual(done);
    expect((await ops.state(path)).value).toEqual(candidate);
    expect(await version()).toBe(v + 1);
    const rows = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { envId, limit: 3 } });
    expect(rows.events.map((e) => e.action).sort()).toEqual([`${kind}.update_value`, 'rollout.completed', 'rollout.updated'].sort());
    expect(new Set(rows.events.map((e) => e.version))).toEqual(new Set([v + 1]));
    // Completed: pause and cancel change nothing, resume and advance refuse.
    expect(await ops.pause(path)).toEqual(done);
    expect(await ops.cancel(path)).toEqual(done);
    await expectApiError(ops.advance(path), 409, 'rollout_already_at_final_step');
  });

  it('spec "PUT rules" 4: when the primitive has rules, newValue may be omitted (the rules are gated)', async () => {
    const ruleValue = kind === 'flag' ? false : { max: 9 };
    await ops.setRules(path, [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: ruleValue }]);
    const gated = await ops.put(path, { percent: 30 });
    expect(gated).toMatchObject({ status: 'active', percent: 30 });
    expect(gated).not.toHaveProperty('newValue');
    await ops.cancel(path);
  });

  it('sends strong ETags on the state GET and honours If-Match on value and rules PUTs', async () => {
    const url = `${t.url}/api/v1/envs/${envId}/${kind}s/${key}`;
    const auth = { cookie: `svc_session=${owner.sessionToken}` };
    const first = await fetch(url, { headers: auth });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await fetch(url, { headers: { ...auth, 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(url, { headers: { ...auth, 'if-none-match': '"other"' } })).status).toBe(200);
    const put = (suffix: string, body: object, ifMatch: string) =>
      fetch(`${url}/${suffix}`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json', 'if-match': ifMatch }, body: JSON.stringify(body) });
    expect((await ops.state(path)).value).toEqual(candidate); // made the base value by the completed rollout
    const stale = await put('value', { value: base }, '"stale"');
    expect(stale.status).toBe(412);
    expect(((await stale.json()) as { code: string }).code).toBe('precondition_failed');
    expect((await put('value', { value: base }, etag)).status).toBe(200);
    expect((await put('rules', { rules: [] }, etag)).status).toBe(412);
    const fresh = (await fetch(url, { headers: auth })).headers.get('etag')!;
    expect(fresh).not.toBe(etag);
    expect((await put('rules', { rules: [] }, fresh)).status).toBe(200);
    expect((await put('value', { value: candidate }, '*')).status).toBe(200);
  });

  it('spec "Rollout state" 2: GET, PUT and pause on an unknown primitive or environment answer 404 not_found', async () => {
    await expectApiError(ops.get({ envId, key: 'nope' }), 404, 'not_found');
    await expectApiError(ops.put({ envId: '00000000-0000-4000-8000-000000000000', key }, { percent: 1, newValue: candidate }), 404, 'not_found');
    await expectApiError(ops.pause({ envId, key: 'nope' }), 404, 'not_found');
  });

  it('refuses writes from a read-only token (token_action_denied) and scopes by resource', async () => {
    const reader = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `reader-${kind}`, actions: ['read'] } });
    const readOps = rolloutOps(t.asToken(reader.token), kind);
    await readOps.get(path);
    await expectApiError(readOps.put(path, { percent: 1, newValue: candidate }), 403, 'token_action_denied');
    await expectApiError(readOps.pause(path), 403, 'token_action_denied');
    const other = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `other-${kind}`, resources: ['other-*'] } });
    await expectApiError(rolloutOps(t.asToken(other.token), kind).get(path), 403, 'token_resource_out_of_scope');
  });

  const fresh = async (k: string) => {
    if (kind === 'flag') await owner.session.createFlag({ path: { id: projectId }, body: { key: k, name: k, defaultValue: base } });
    else await owner.session.createConfig({ path: { id: projectId }, body: { key: k, name: k, defaultValue: base } });
    return { envId, key: k };
  };
  const auditOf = async (k: string) =>
    (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: k, limit: 200 } })).events;

  it('spec "Rollout status" 1: the first PUT creates the rollout (audit rollout.created); a later PUT edits the same rollout (rollout.updated)', async () => {
    const p = await fresh(`${key}-first`);
    const created = await ops.put(p, { percent: 5, newValue: candidate });
    const edited = await ops.put(p, { percent: 6 });
    expect(edited).toMatchObject({ id: created.id, percent: 6 });
    expect((await auditOf(p.key)).map((e) => [e.action, e.resourceId])).toEqual([
      ['rollout.updated', created.id],
      ['rollout.created', created.id],
    ]);
  });

  it('spec "Rollout status" 2: pause of an active rollout sets pausedAtPercent to the current percent and pausedReason user; a repeat is idempotent', async () => {
    const p = await fresh(`${key}-pause`);
    await ops.put(p, { percent: 30, newValue: candidate });
    const paused = await ops.pause(p);
    expect(paused).toMatchObject({ status: 'paused', percent: 30, pausedAtPercent: 30, pausedReason: 'user' });
    expect(await ops.pause(p)).toEqual(paused);
    expect((await auditOf(p.key)).map((e) => e.action)).toEqual(['rollout.paused', 'rollout.created']);
  });

  it('spec "Rollout status" 3: resume of a user-paused rollout makes it active at the held percent (audit rollout.resumed)', async () => {
    const p = await fresh(`${key}-resume`);
    await ops.put(p, { percent: 40, newValue: candidate });
    await ops.pause(p);
    expect(await ops.resume(p)).toMatchObject({ status: 'active', percent: 40, pausedAtPercent: null, pausedReason: null });
    expect((await auditOf(p.key))[0]).toMatchObject({ action: 'rollout.resumed' });
  });

  it('spec "Rollout status" 6: resume of an active rollout answers 409 rollout_not_paused and leaves it unchanged', async () => {
    const p = await fresh(`${key}-active`);
    const live = await ops.put(p, { percent: 20, newValue: candidate });
    await expectApiError(ops.resume(p), 409, 'rollout_not_paused');
    expect(await ops.get(p)).toEqual(live);
  });

  it('spec "Rollout state" 6: DELETE answers 204 with no body and cancels like cancel (audit rollout.cancelled)', async () => {
    const p = await fresh(`${key}-delete`);
    const live = await ops.put(p, { percent: 20, newValue: candidate });
    const res = await fetch(`${t.url}/api/v1/envs/${envId}/${kind}s/${p.key}/rollout`, { method: 'DELETE', headers: { cookie: `svc_session=${owner.sessionToken}` } });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(await ops.get(p)).toMatchObject({ id: live.id, status: 'cancelled' });
    expect((await ops.state(p)).value).toEqual(base);
    expect((await auditOf(p.key))[0]).toMatchObject({ action: 'rollout.cancelled', resourceId: live.id });
  });

  it('spec "Authentication" 4: a key whose scope does not admit rollout endpoints (a client key) answers 403 scope_denied', async () => {
    const client = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `client-${kind}`, kind: 'client', environments: [envId] } });
    const clientOps = rolloutOps(t.asToken(client.token), kind);
    await expectApiError(clientOps.get(path), 403, 'scope_denied');
    await expectApiError(clientOps.pause(path), 403, 'scope_denied');
  });
});
