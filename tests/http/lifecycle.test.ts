import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawQuery } from '../../server/src/features/common/sql.js';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * A flag's or config's life: metadata (tags, maintainer) guarded by its ETag, list filters,
 * archive (every environment serves the base value, reason DISABLED; no writes), restore and
 * delete, each with its audit row.
 */
describe('flag and config lifecycle', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let prod: string;
  let staging: string;

  const api = () => owner.session;
  const flagPath = (key: string) => ({ id: projectId, key });
  const version = async (envId: string) => (await api().getEnvironment({ path: { envId } })).version;
  const versions = async () => [await version(prod), await version(staging)];
  const evaluate = async (envId: string, key: string, context: Record<string, string> = { userId: 'u1', email: 'ann@acme.test' }) =>
    (await api().evaluate({ path: { envId }, body: { context, keys: [key] } })).results[key];
  const auditOf = async (resourceType: string, key: string) => {
    const page = await api().listAuditEvents({ path: { slug: 'acme' }, query: { resourceType, resourceKey: key, limit: 200 } });
    return page.events;
  };
  const mint = (body: Parameters<ClaimedInstance['session']['createApiKey']>[0]['body']) => api().createApiKey({ path: { slug: 'acme' }, body });
  const count = async (sql: string, bindings: string[]) =>
    Number((await rawQuery<{ n: string }>(t.server.deps.db.em(), `select count(*) as n from ${sql}`, bindings)).rows[0]!.n);

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await api().createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    prod = (await api().createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    staging = (await api().createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
  });
  afterAll(() => t?.close());

  it('creates with tags and a maintainer, sends a strong ETag and answers If-None-Match with 304', async () => {
    const flag = await api().createFlag({
      path: { id: projectId },
      body: { key: 'checkout', name: 'Checkout', defaultValue: false, tags: ['team:checkout', 'experiment', 'experiment'], maintainer: 'ann@acme.test' },
    });
    expect(flag).toMatchObject({ key: 'checkout', tags: ['team:checkout', 'experiment'], maintainer: 'ann@acme.test', archivedAt: null });
    const first = await api().withResponse.getFlag({ path: flagPath('checkout') });
    expect(first.data).toEqual(flag);
    const etag = first.response.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await api().withResponse.getFlag({ path: flagPath('checkout'), headers: { 'if-none-match': etag! } });
    expect(again.notModified).toBe(true);
    expect(again.response.status).toBe(304);
    await expectApiError(api().getFlag({ path: flagPath('missing') }), 404, 'not_found');
    await expectApiError(
      api().createFlag({ path: { id: projectId }, body: { key: 'bad-tag', name: 'Bad', defaultValue: false, tags: ['Has Space'] } }),
      400,
      'invalid_request',
    );
  });

  it('edits tags and maintainer under If-Match (412 on a stale ETag) and audits the changed fields only', async () => {
    const read = await api().withResponse.getFlag({ path: flagPath('checkout') });
    const etag = read.response.headers.get('etag')!;
    const before = await versions();
    const updated = await api().updateFlag({ path: flagPath('checkout'), body: { tags: ['team:payments'], maintainer: 'Payments' }, headers: { 'if-match': etag } });
    expect(updated).toMatchObject({ tags: ['team:payments'], maintainer: 'Payments', name: 'Checkout' });
    expect(await versions()).toEqual(before); // metadata is not evaluated: no new ruleset
    const stale = await expectApiError(api().updateFlag({ path: flagPath('checkout'), body: { maintainer: null }, headers: { 'if-match': etag } }), 412, 'precondition_failed');
    expect(stale.requestId).toBeTruthy();
    expect((await api().getFlag({ path: flagPath('checkout') })).maintainer).toBe('Payments');
    const [row] = (await auditOf('flag', 'checkout')).filter((e) => e.action === 'flag.updated');
    const detail = await api().getAuditEvent({ path: { id: row!.id } });
    expect(detail.previousValue).toEqual({ tags: ['team:checkout', 'experiment'], maintainer: 'ann@acme.test' });
    expect(detail.newValue).toEqual({ tags: ['team:payments'], maintainer: 'Payments' });
    // The same values again change nothing and record nothing.
    await api().updateFlag({ path: flagPath('checkout'), body: { tags: ['team:payments'] } });
    expect((await auditOf('flag', 'checkout')).filter((e) => e.action === 'flag.updated')).toHaveLength(1);
    // A null maintainer clears it.
    expect((await api().updateFlag({ path: flagPath('checkout'), body: { maintainer: null } })).maintainer).toBeNull();
    await api().updateFlag({ path: flagPath('checkout'), body: { maintainer: 'Payments' } });
  });

  it('takes custom metadata within its bounds (400 naming the field otherwise), puts it in every environment\'s ruleset under a new version, and audits it', async () => {
    const config = await api().createConfig({ path: { id: projectId }, body: { key: 'checkout-limits', name: 'Limits', defaultValue: { max: 1 }, metadata: { owner: 'ops', tier: 2, paging: true } } });
    expect(config.metadata).toEqual({ owner: 'ops', tier: 2, paging: true });
    const refused = async (metadata: unknown) => {
      const err = await expectApiError(
        fetch(`${t.url}/api/v1/projects/${projectId}/configs/checkout-limits`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', cookie: `svc_session=${owner.sessionToken}` },
          body: JSON.stringify({ metadata }),
        }).then(async (res) => {
          if (res.ok) return res;
          throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status, ...((await res.json()) as object) });
        }),
        400,
        'invalid_request',
      );
      return Object.keys(err.fields ?? {});
    };
    expect(await refused(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])))).toEqual(['metadata']);
    expect(await refused({ bucket: 3 })).toEqual(['metadata']);
    expect(await refused({ 'has space': 'x' })).toEqual(['metadata.has space']);
    expect(await refused({ nested: { a: 1 } })).toEqual(['metadata.nested']);
    expect(await refused({ long: 'x'.repeat(257) })).toEqual(['metadata.long']);
    expect((await api().getConfig({ path: flagPath('checkout-limits') })).metadata).toEqual({ owner: 'ops', tier: 2, paging: true });

    const before = await versions();
    const ruleset = async (envId: string) => (await api().getRuleset({ path: { envId } })).primitives.find((p) => p.key === 'checkout-limits');
    expect((await ruleset(prod))?.metadata).toEqual({ owner: 'ops', tier: 2, paging: true });
    await api().updateConfig({ path: flagPath('checkout-limits'), body: { metadata: { owner: 'payments' } } });
    expect(await versions()).toEqual(before.map((v) => v + 1)); // evaluations return it: a new ruleset everywhere
    expect((await ruleset(staging))?.metadata).toEqual({ owner: 'payments' });
    const [row] = (await auditOf('config', 'checkout-limits')).filter((e) => e.action === 'config.updated');
    const detail = await api().getAuditEvent({ path: { id: row!.id } });
    expect(detail.previousValue).toEqual({ metadata: { owner: 'ops', tier: 2, paging: true } });
    expect(detail.newValue).toEqual({ metadata: { owner: 'payments' } });
    // `{}` clears it, and the ruleset leaves it out.
    expect((await api().updateConfig({ path: flagPath('checkout-limits'), body: { metadata: {} } })).metadata).toEqual({});
    expect(await ruleset(prod)).not.toHaveProperty('metadata');
    await api().archiveConfig({ path: flagPath('checkout-limits') });
    await api().deleteConfig({ path: flagPath('checkout-limits'), body: { confirm: 'checkout-limits' } });
  });

  it('filters lists by archived state and tag', async () => {
    await api().createFlag({ path: { id: projectId }, body: { key: 'old-banner', name: 'Old banner', defaultValue: true, tags: ['team:web'] } });
    await api().createFlag({ path: { id: projectId }, body: { key: 'search', name: 'Search', defaultValue: false, tags: ['team:web', 'experiment'] } });
    await api().archiveFlag({ path: flagPath('old-banner') });
    const keys = async (query: { archived?: 'exclude' | 'include' | 'only'; tag?: string } = {}) =>
      (await api().listFlags({ path: { id: projectId }, query })).map((f) => f.key);
    expect(await keys()).toEqual(['checkout', 'search']);
    expect(await keys({ archived: 'exclude' })).toEqual(['checkout', 'search']);
    expect(await keys({ archived: 'include' })).toEqual(['checkout', 'old-banner', 'search']);
    expect(await keys({ archived: 'only' })).toEqual(['old-banner']);
    expect(await keys({ tag: 'team:web' })).toEqual(['search']);
    expect(await keys({ tag: 'team:web', archived: 'include' })).toEqual(['old-banner', 'search']);
    expect(await keys({ tag: 'nobody' })).toEqual([]);
    const res = await fetch(`${t.url}/api/v1/projects/${projectId}/flags?archived=sometimes`, { headers: { cookie: `svc_session=${owner.sessionToken}` } });
    expect(res.status).toBe(400);
  });

  it('refuses to archive while a rollout is live or a pending proposal targets it, naming them', async () => {
    await api().setFlagRules({ path: { envId: prod, key: 'checkout' }, body: { rules: [{ conditions: [{ attribute: 'email', operator: 'ends_with', values: ['@acme.test'] }], value: true }] } });
    await api().putFlagRollout({ path: { envId: staging, key: 'checkout' }, body: { percent: 20, newValue: true } });
    const approval = await mint({ name: 'needs approval', requiresApproval: true });
    const proposed = await t.asToken(approval.token).putFlagRollout({ path: { envId: prod, key: 'checkout' }, body: { percent: 5, newValue: true } });
    if (proposed.kind !== 'proposed') throw new Error('expected a proposal');
    const err = await expectApiError(api().archiveFlag({ path: flagPath('checkout') }), 409, 'in_use');
    expect(Object.keys(err.fields ?? {}).sort()).toEqual([`proposal.${proposed.proposal.id}`, 'rollout.staging']);
    await api().cancelProposal({ path: { id: proposed.proposal.id } });
    expect(Object.keys((await expectApiError(api().archiveFlag({ path: flagPath('checkout') }), 409, 'in_use')).fields ?? {})).toEqual(['rollout.staging']);
    await api().cancelFlagRollout({ path: { envId: staging, key: 'checkout' } });
    expect((await api().getFlag({ path: flagPath('checkout') })).archivedAt).toBeNull();
  });

  it('archives: every environment advances and serves the base value with reason DISABLED; no writes while archived', async () => {
    // Before: the rule serves ann@acme.test.
    expect(await evaluate(prod, 'checkout')).toMatchObject({ value: true, reason: 'TARGETING_MATCH', variant: 'rule-1' });
    const approval = await mint({ name: 'approval archiver', requiresApproval: true });
    await expectApiError(t.asToken(approval.token).archiveFlag({ path: flagPath('checkout') }), 403, 'approval_not_supported');
    const prodOnly = await mint({ name: 'prod only', environments: [prod] });
    await expectApiError(t.asToken(prodOnly.token).archiveFlag({ path: flagPath('checkout') }), 403, 'token_env_out_of_scope');
    const read = await api().withResponse.getFlag({ path: flagPath('checkout') });
    const before = await versions();
    const archived = await api().archiveFlag({ path: flagPath('checkout'), headers: { 'if-match': read.response.headers.get('etag')!, 'x-audit-reason': 'launched' } });
    expect(archived.archivedAt).not.toBeNull();
    expect(await versions()).toEqual(before.map((v) => v + 1));
    expect(await evaluate(prod, 'checkout')).toMatchObject({ value: false, reason: 'DISABLED', variant: 'default', bucket: null, rolloutPercent: null });
    const ruleset = await api().getRuleset({ path: { envId: prod } });
    expect(ruleset.primitives.find((p) => p.key === 'checkout')).toMatchObject({ archived: true, value: false });
    // Archiving again answers it unchanged: no version, no audit row.
    expect(await api().archiveFlag({ path: flagPath('checkout') })).toEqual(archived);
    expect(await versions()).toEqual(before.map((v) => v + 1));
    const rows = (await auditOf('flag', 'checkout')).filter((e) => e.action === 'flag.archived');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.reason).toBe('launched');
    expect(await api().getAuditEvent({ path: { id: rows[0]!.id } })).toMatchObject({ previousValue: { archivedAt: null }, newValue: { archivedAt: archived.archivedAt } });

    const path = { envId: prod, key: 'checkout' };
    await expectApiError(api().setFlagValue({ path, body: { value: true } }), 409, 'primitive_archived');
    await expectApiError(api().setFlagRules({ path, body: { rules: [] } }), 409, 'primitive_archived');
    await expectApiError(api().putFlagRollout({ path, body: { percent: 10, newValue: true } }), 409, 'primitive_archived');
    await expectApiError(api().putFlagRollout({ path: { envId: staging, key: 'checkout' }, body: { percent: 10, newValue: true } }), 409, 'primitive_archived');
    await expectApiError(api().resumeFlagRollout({ path: { envId: staging, key: 'checkout' } }), 409, 'primitive_archived');
    await expectApiError(api().addFlagTargetIds({ path: { envId: staging, key: 'checkout' }, body: { targetIds: ['u1'] } }), 409, 'primitive_archived');
    // An approval-required key's write cannot become a proposal either.
    await expectApiError(t.asToken(approval.token).putFlagRollout({ path, body: { percent: 10, newValue: true } }), 409, 'primitive_archived');
    expect(await versions()).toEqual(before.map((v) => v + 1));
    // Its metadata can still be edited; reads still work.
    expect((await api().updateFlag({ path: flagPath('checkout'), body: { description: 'Shipped' } })).description).toBe('Shipped');
    expect((await api().getFlagState({ path })).rules).toHaveLength(1);
  });

  it('restores: rules apply again and it can be rolled out', async () => {
    const before = await versions();
    const restored = await api().restoreFlag({ path: flagPath('checkout') });
    expect(restored.archivedAt).toBeNull();
    expect(await versions()).toEqual(before.map((v) => v + 1));
    expect(await api().restoreFlag({ path: flagPath('checkout') })).toEqual(restored);
    expect(await versions()).toEqual(before.map((v) => v + 1));
    expect(await evaluate(prod, 'checkout')).toMatchObject({ value: true, reason: 'TARGETING_MATCH' });
    const rollout = await api().putFlagRollout({ path: { envId: staging, key: 'checkout' }, body: { percent: 10, newValue: true } });
    expect(rollout.kind === 'applied' && rollout.data.status).toBe('active');
    expect((await auditOf('flag', 'checkout')).filter((e) => e.action === 'flag.restored')).toHaveLength(1);
    await api().cancelFlagRollout({ path: { envId: staging, key: 'checkout' } });
  });

  it('deletes only an archived flag, with its key confirmed, and everything of it with it', async () => {
    const path = flagPath('checkout');
    await expectApiError(api().deleteFlag({ path, body: { confirm: 'checkout' } }), 409, 'primitive_not_archived');
    await api().putFlagRollout({ path: { envId: prod, key: 'checkout' }, body: { percent: 10, newValue: true } });
    await api().addFlagTargetIds({ path: { envId: prod, key: 'checkout' }, body: { targetIds: ['u1', 'u2'] } });
    await api().cancelFlagRollout({ path: { envId: prod, key: 'checkout' } });
    await api().archiveFlag({ path });
    const { id } = await api().getFlag({ path });
    expect(await count('rollouts where primitive_id = ?', [id])).toBeGreaterThan(0);
    expect(await count('rollout_target_ids t join rollouts r on t.list_id = coalesce(r.target_list_id, r.id) where r.primitive_id = ?', [id])).toBe(2);

    const missing = await expectApiError(api().deleteFlag({ path, body: {} }), 400, 'invalid_confirmation');
    expect(Object.keys(missing.fields ?? {})).toEqual(['confirm']);
    await expectApiError(api().deleteFlag({ path, body: { confirm: 'Checkout' } }), 400, 'invalid_confirmation');
    await expectApiError(api().deleteFlag({ path, body: { confirm: 'checkout' }, headers: { 'if-match': '"stale"' } }), 412, 'precondition_failed');
    const approval = await mint({ name: 'approval deleter', requiresApproval: true });
    await expectApiError(t.asToken(approval.token).deleteFlag({ path, body: { confirm: 'checkout' } }), 403, 'approval_not_supported');

    const lists = (await rawQuery<{ id: string }>(t.server.deps.db.em(), 'select coalesce(target_list_id, id) as id from rollouts where primitive_id = ?', [id])).rows.map((r) => r.id);
    const before = await versions();
    await api().deleteFlag({ path, body: { confirm: 'checkout' }, headers: { 'x-audit-reason': 'cleanup' } });
    expect(await versions()).toEqual(before.map((v) => v + 1));
    await expectApiError(api().getFlag({ path }), 404, 'not_found');
    await expectApiError(api().getFlagState({ path: { envId: prod, key: 'checkout' } }), 404, 'not_found');
    expect((await api().getRuleset({ path: { envId: prod } })).primitives.map((p) => p.key)).not.toContain('checkout');
    expect(await count('primitive_states where primitive_id = ?', [id])).toBe(0);
    expect(await count('rollouts where primitive_id = ?', [id])).toBe(0);
    expect(await count('usage_hours where primitive_id = ?', [id])).toBe(0);
    for (const list of lists) expect(await count('rollout_target_ids where list_id = ?', [list])).toBe(0);

    const [deleted] = (await auditOf('flag', 'checkout')).filter((e) => e.action === 'flag.deleted');
    expect(deleted).toMatchObject({ reason: 'cleanup', resourceId: id });
    expect((await api().getAuditEvent({ path: { id: deleted!.id } })).previousValue).toMatchObject({ key: 'checkout', tags: ['team:payments'] });
    // The key is free again.
    expect((await api().createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout again', defaultValue: false } })).archivedAt).toBeNull();
  });

  it('keeps an archived key taken until it is deleted', async () => {
    await expectApiError(api().createFlag({ path: { id: projectId }, body: { key: 'old-banner', name: 'Again', defaultValue: false } }), 409, 'key_in_use');
  });

  it('gives configs the same life', async () => {
    await api().createConfig({ path: { id: projectId }, body: { key: 'limits', name: 'Limits', defaultValue: { max: 1 }, tags: ['team:checkout'], maintainer: 'Ops' } });
    await api().setConfigRules({ path: { envId: prod, key: 'limits' }, body: { rules: [{ conditions: [{ attribute: 'userId', operator: 'in', values: ['u1'] }], value: { max: 9 } }] } });
    const path = { id: projectId, key: 'limits' };
    const read = await api().withResponse.getConfig({ path });
    expect(read.data).toMatchObject({ tags: ['team:checkout'], maintainer: 'Ops', archivedAt: null });
    await expectApiError(api().updateConfig({ path, body: { tags: [] }, headers: { 'if-match': '"nope"' } }), 412, 'precondition_failed');
    expect((await api().updateConfig({ path, body: { tags: [] }, headers: { 'if-match': read.response.headers.get('etag')! } })).tags).toEqual([]);
    await api().archiveConfig({ path });
    expect(await evaluate(prod, 'limits')).toMatchObject({ value: { max: 1 }, reason: 'DISABLED', variant: 'default' });
    await expectApiError(api().setConfigValue({ path: { envId: prod, key: 'limits' }, body: { value: { max: 2 } } }), 409, 'primitive_archived');
    expect((await api().listConfigs({ path: { id: projectId } })).map((c) => c.key)).toEqual([]);
    expect((await api().listConfigs({ path: { id: projectId }, query: { archived: 'only' } })).map((c) => c.key)).toEqual(['limits']);
    await api().restoreConfig({ path });
    expect(await evaluate(prod, 'limits')).toMatchObject({ value: { max: 9 }, reason: 'TARGETING_MATCH' });
    await expectApiError(api().deleteConfig({ path, body: { confirm: 'limits' } }), 409, 'primitive_not_archived');
    await api().archiveConfig({ path });
    await api().deleteConfig({ path, body: { confirm: 'limits' } });
    await expectApiError(api().getConfig({ path }), 404, 'not_found');
    const actions = (await auditOf('config', 'limits')).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['config.created', 'config.updated', 'config.archived', 'config.restored', 'config.deleted']));
  });
});
