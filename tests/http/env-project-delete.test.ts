import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawQuery } from '../../server/src/features/common/sql.js';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { seedUser } from '../support/users.js';

/**
 * DELETE /envs/{envId} and DELETE /projects/{id}: who may, the typed confirmation, and a cascade
 * that leaves no row behind in any table that names the environment or project (checked in the
 * database), while the organization's audit log keeps their history.
 */
describe('environment and project delete', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let orgId: string;

  const api = () => owner.session;
  const mint = (body: Parameters<ClaimedInstance['session']['createApiKey']>[0]['body']) => api().createApiKey({ path: { slug: 'acme' }, body });
  const db = () => t.server.deps.db.em();
  const count = async (from: string, bindings: string[]) => Number((await rawQuery<{ n: string }>(db(), `select count(*) as n from ${from}`, bindings)).rows[0]!.n);

  /** Every table row that names one of `envIds`. */
  const envRows = async (envIds: string[]) => {
    const tables = ['primitive_states', 'rollouts', 'rollback_webhook_secrets', 'rollback_fires', 'proposals', 'usage_hours', 'rollout_migration_warnings'];
    const counts: Record<string, number> = {};
    for (const table of tables) counts[table] = await count(`${table} where env_id = any(?::uuid[])`, [`{${envIds.join(',')}}`]);
    counts.environments = await count('environments where id = any(?::uuid[])', [`{${envIds.join(',')}}`]);
    return counts;
  };
  const zeroes = (counts: Record<string, number>) => Object.fromEntries(Object.keys(counts).map((k) => [k, 0]));

  /**
   * A project with two environments and something of every kind in `prod`: a flag with a rule,
   * a live rollout with target IDs, a rollback secret and a fire, a pending proposal, usage, a
   * segment with target IDs and a webhook subscription (the last three written straight to the
   * database, as their own tests cover their endpoints).
   */
  async function populatedProject(key: string) {
    const project = await api().createProject({ path: { slug: 'acme' }, body: { key, name: key } });
    const prod = (await api().createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    const staging = (await api().createEnvironment({ path: { id: project.id }, body: { key: 'staging', name: 'Staging' } })).id;
    const flag = await api().createFlag({ path: { id: project.id }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    await api().createConfig({ path: { id: project.id }, body: { key: 'limits', name: 'Limits', defaultValue: { max: 1 } } });
    await api().createRolloutPlan({ path: { id: project.id }, body: { key: 'slow', name: 'Slow', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] } });
    await api().setFlagRules({ path: { envId: prod, key: 'checkout' }, body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: true }] } });
    const rollout = await api().putFlagRollout({ path: { envId: prod, key: 'checkout' }, body: { percent: 10, newValue: true } });
    if (rollout.kind !== 'applied') throw new Error('expected an applied rollout');
    await api().addFlagTargetIds({ path: { envId: prod, key: 'checkout' }, body: { targetIds: ['u1', 'u2', 'u3'] } });
    const secret = await api().createRollbackSecret({ path: { envId: prod }, body: { name: 'alerts' } });
    const fired = await fetch(`${t.url}/api/v1/webhooks/rollback/envs/${prod}/flags/checkout`, { method: 'POST', headers: { authorization: `Bearer ${secret.token}` } });
    expect(fired.status).toBe(200);
    await api().resumeFlagRollout({ path: { envId: prod, key: 'checkout' } });
    const approval = await mint({ name: `${key} approval`, requiresApproval: true });
    expect(await t.asToken(approval.token).pauseFlagRollout({ path: { envId: prod, key: 'checkout' } })).toMatchObject({ kind: 'proposed' });
    const now = new Date().toISOString();
    await rawQuery(db(), `insert into usage_hours (env_id, primitive_id, variant, hour, count, last_seen_at) values (?, ?, 'default', date_trunc('hour', ?::timestamptz), 5, ?)`, [prod, flag.id, now, now]);
    const segment = { id: randomUUID(), included: randomUUID(), excluded: randomUUID() };
    await rawQuery(
      db(),
      `insert into segments (id, org_id, project_id, key, name, rules, included_list_id, included_count, excluded_list_id, created_at, updated_at)
       values (?, ?, ?, 'beta', 'Beta', '[]', ?, 2, ?, ?, ?)`,
      [segment.id, orgId, project.id, segment.included, segment.excluded, now, now],
    );
    await rawQuery(db(), `insert into rollout_target_ids (list_id, target_id) values (?, 'a'), (?, 'b')`, [segment.included, segment.included]);
    await rawQuery(
      db(),
      `insert into webhook_subscriptions (id, org_id, project_id, name, url, events, format, secret, created_at, updated_at)
       values (?, ?, ?, 'ops', 'https://hooks.example.com/x', '["flag.updated"]', 'standard', 'whsec_x', ?, ?)`,
      [randomUUID(), orgId, project.id, now, now],
    );
    const lists = (await rawQuery<{ id: string }>(db(), 'select coalesce(target_list_id, id) as id from rollouts where env_id = ?', [prod])).rows.map((r) => r.id);
    return { project, prod, staging, flagId: flag.id, lists: [...lists, segment.included], rolloutId: rollout.data.id };
  }

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    orgId = (await api().getOrg({ path: { slug: 'acme' } })).id;
  });
  afterAll(() => t?.close());

  it('refuses without the typed key, below admin, with an environment-restricted or approval-required key, and across tenants', async () => {
    const project = await api().createProject({ path: { slug: 'acme' }, body: { key: 'guarded', name: 'Guarded' } });
    const env = await api().createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } });
    for (const body of [undefined, {}, { confirm: '' }, { confirm: 'Prod' }]) {
      const err = await expectApiError(api().deleteEnvironment({ path: { envId: env.id }, ...(body ? { body } : {}) }), 400, 'invalid_confirmation');
      expect(Object.keys(err.fields ?? {})).toEqual(['confirm']);
      const projectErr = await expectApiError(api().deleteProject({ path: { id: project.id }, ...(body ? { body } : {}) }), 400, 'invalid_confirmation');
      expect(Object.keys(projectErr.fields ?? {})).toEqual(['confirm']);
    }
    const member = await seedUser(t.server.deps.db, 'mia@example.com', { orgId, role: 'member' });
    await expectApiError(t.asSession(member.sessionToken).deleteEnvironment({ path: { envId: env.id }, body: { confirm: 'prod' } }), 403, 'insufficient_role');
    await expectApiError(t.asSession(member.sessionToken).deleteProject({ path: { id: project.id }, body: { confirm: 'guarded' } }), 403, 'insufficient_role');
    const restricted = await mint({ name: 'prod only', environments: [env.id] });
    await expectApiError(t.asToken(restricted.token).deleteEnvironment({ path: { envId: env.id }, body: { confirm: 'prod' } }), 403, 'token_env_out_of_scope');
    await expectApiError(t.asToken(restricted.token).deleteProject({ path: { id: project.id }, body: { confirm: 'guarded' } }), 403, 'token_env_out_of_scope');
    const approval = await mint({ name: 'approval', requiresApproval: true });
    await expectApiError(t.asToken(approval.token).deleteEnvironment({ path: { envId: env.id }, body: { confirm: 'prod' } }), 403, 'approval_not_supported');
    await expectApiError(t.asToken(approval.token).deleteProject({ path: { id: project.id }, body: { confirm: 'guarded' } }), 403, 'approval_not_supported');
    const reader = await mint({ name: 'reader', actions: ['read'] });
    await expectApiError(t.asToken(reader.token).deleteEnvironment({ path: { envId: env.id }, body: { confirm: 'prod' } }), 403, 'token_action_denied');
    const eve = await seedUser(t.server.deps.db, 'eve@example.com');
    await t.asSession(eve.sessionToken).createOrg({ body: { slug: 'evil', name: 'Evil' } });
    await expectApiError(t.asSession(eve.sessionToken).deleteEnvironment({ path: { envId: env.id }, body: { confirm: 'prod' } }), 404, 'not_found');
    await expectApiError(t.asSession(eve.sessionToken).deleteProject({ path: { id: project.id }, body: { confirm: 'guarded' } }), 404, 'not_found');
    await expectApiError(api().deleteEnvironment({ path: { envId: 'not-a-uuid' }, body: { confirm: 'prod' } }), 404, 'not_found');
    // Nothing was deleted.
    expect((await api().getEnvironment({ path: { envId: env.id } })).key).toBe('prod');
    expect((await api().getProject({ path: { id: project.id } })).key).toBe('guarded');
  });

  it('deletes an environment and everything in it; keys bound to it alone are revoked, others lose it; its streams end', async () => {
    const { project, prod, staging, lists, rolloutId } = await populatedProject('web');
    const sdkKey = await mint({ name: 'prod sdk', kind: 'sdk', environments: [prod] });
    const both = await mint({ name: 'both envs', environments: [prod, staging] });
    const everywhere = await mint({ name: 'everywhere' });
    const before = await envRows([prod]);
    for (const table of ['primitive_states', 'rollouts', 'rollback_webhook_secrets', 'rollback_fires', 'proposals', 'usage_hours', 'environments']) expect(before[table]).toBeGreaterThan(0);
    expect(await count('rollout_target_ids where list_id = ?', [lists[0]!])).toBe(3);

    const stream = await fetch(`${t.url}/api/v1/envs/${prod}/ruleset/stream`, { headers: { authorization: `Bearer ${sdkKey.token}` } });
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('retry:');
    const stagingVersion = (await api().getEnvironment({ path: { envId: staging } })).version;

    await api().deleteEnvironment({ path: { envId: prod }, body: { confirm: 'prod' }, headers: { 'x-audit-reason': 'region closed' } });

    await expectApiError(api().getEnvironment({ path: { envId: prod } }), 404, 'not_found');
    expect(await envRows([prod])).toEqual(zeroes(before));
    expect(await count('rollout_target_ids where list_id = ?', [lists[0]!])).toBe(0);
    expect(await count('rollout_spare_target_lists where rollout_id = ?', [rolloutId])).toBe(0);
    // The stream ends; the key bound to prod alone is revoked, the other keeps staging.
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
    await expectApiError(t.asToken(sdkKey.token).getRuleset({ path: { envId: staging } }), 401, 'unauthorized');
    const keys = await api().listApiKeys({ path: { slug: 'acme' } });
    expect(keys.find((k) => k.id === sdkKey.id)?.revokedAt).not.toBeNull();
    expect(keys.find((k) => k.id === both.id)).toMatchObject({ environments: [staging], revokedAt: null });
    expect(keys.find((k) => k.id === everywhere.id)).toMatchObject({ environments: null, revokedAt: null });
    expect((await t.asToken(both.token).getRuleset({ path: { envId: staging } })).primitives.map((p) => p.key)).toEqual(['limits', 'checkout']); // configs first, then flags
    // The definitions and the other environment stay, untouched.
    expect((await api().listEnvironments({ path: { id: project.id } })).map((e) => e.key)).toEqual(['staging']);
    expect((await api().getEnvironment({ path: { envId: staging } })).version).toBe(stagingVersion);
    expect((await api().listFlags({ path: { id: project.id } })).map((f) => f.key)).toEqual(['checkout']);
    // The audit log keeps the environment's history and records the deletion and the revocation.
    const audit = (await api().listAuditEvents({ path: { slug: 'acme' }, query: { envId: prod, limit: 200 } })).events;
    expect(audit.map((e) => e.action)).toEqual(expect.arrayContaining(['environment.deleted', 'environment.created', 'flag.update_rules', 'rollout.created']));
    const deleted = audit.find((e) => e.action === 'environment.deleted')!;
    expect(deleted).toMatchObject({ resourceKey: 'prod', resourceId: prod, reason: 'region closed' });
    expect((await api().getAuditEvent({ path: { id: deleted.id } })).newValue).toEqual({ revokedApiKeys: [sdkKey.id], narrowedApiKeys: [both.id] });
    const revoked = (await api().listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'api_token', limit: 200 } })).events.filter((e) => e.action === 'api_token.revoked');
    expect(revoked.map((e) => e.resourceId)).toEqual([sdkKey.id]);
    // The key is free again.
    expect((await api().createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod again' } })).key).toBe('prod');
  });

  it('ends the streams of an environment deleted by another instance at the next credentials check', async () => {
    const project = await api().createProject({ path: { slug: 'acme' }, body: { key: 'elsewhere', name: 'Elsewhere' } });
    const env = await api().createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } });
    await api().createFlag({ path: { id: project.id }, body: { key: 'f', name: 'F', defaultValue: false } });
    const stream = await fetch(`${t.url}/api/v1/envs/${env.id}/ruleset/stream`, { headers: { cookie: `svc_session=${owner.sessionToken}` } });
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('retry:');
    // Another instance's delete: the row goes without this instance hearing of it.
    await rawQuery(db(), 'delete from environments where id = ?', [env.id]);
    await t.server.deps.streams.recheck();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
  });

  it('deletes a project and everything in it, revoking keys bound to its environments alone; the audit log keeps its history', async () => {
    const { project, prod, staging, flagId, lists } = await populatedProject('shop');
    const other = await api().createProject({ path: { slug: 'acme' }, body: { key: 'other', name: 'Other' } });
    const otherEnv = (await api().createEnvironment({ path: { id: other.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await api().createFlag({ path: { id: other.id }, body: { key: 'checkout', name: 'Checkout', defaultValue: true } });
    const bound = await mint({ name: 'shop staging', environments: [staging] });
    const mixed = await mint({ name: 'shop and other', environments: [prod, otherEnv] });

    await api().deleteProject({ path: { id: project.id }, body: { confirm: 'shop' } });

    await expectApiError(api().getProject({ path: { id: project.id } }), 404, 'not_found');
    await expectApiError(api().getEnvironment({ path: { envId: staging } }), 404, 'not_found');
    const envCounts = await envRows([prod, staging]);
    expect(envCounts).toEqual(zeroes(envCounts));
    for (const table of ['primitives', 'rollout_plans', 'segments', 'webhook_subscriptions', 'rollouts']) expect(await count(`${table} where project_id = ?`, [project.id])).toBe(0);
    expect(await count('usage_hours where primitive_id = ?', [flagId])).toBe(0);
    for (const list of lists) expect(await count('rollout_target_ids where list_id = ?', [list])).toBe(0);
    const keys = await api().listApiKeys({ path: { slug: 'acme' } });
    expect(keys.find((k) => k.id === bound.id)?.revokedAt).not.toBeNull();
    expect(keys.find((k) => k.id === mixed.id)).toMatchObject({ environments: [otherEnv], revokedAt: null });
    // The other project is untouched.
    expect((await api().evaluate({ path: { envId: otherEnv }, body: { context: { userId: 'u1' } } })).results.checkout).toMatchObject({ value: true });
    // History stays in the organization's audit log.
    expect(await count('audit_events where project_id = ?', [project.id])).toBeGreaterThan(5);
    const rows = (await api().listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'project', resourceKey: 'shop' } })).events;
    const deleted = rows.find((e) => e.action === 'project.deleted')!;
    expect(await api().getAuditEvent({ path: { id: deleted.id } })).toMatchObject({
      resourceId: project.id,
      previousValue: { key: 'shop', name: 'shop', environments: ['prod', 'staging'] },
      newValue: { revokedApiKeys: [bound.id], narrowedApiKeys: [mixed.id] },
    });
    // The key is free again.
    expect((await api().createProject({ path: { slug: 'acme' }, body: { key: 'shop', name: 'Shop again' } })).key).toBe('shop');
  });
});
