import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradualClient, MutationResult, Proposal } from '@gradual/sdk';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { rolloutOps, type Kind } from '../support/rollout-ops.js';
import { seedUser } from '../support/users.js';

const WEEK_S = 7 * 24 * 3600;

/**
 * Approval proposals: divertible mutations of approval-required API keys
 * become proposals that an admin applies or cancels. Flags and configs alike.
 */
describe.each<Kind>(['flag', 'config'])('%s approval proposals', (kind) => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let orgId: string;
  let projectId: string;
  let envId: string;
  let otherEnvId: string;
  const key = kind === 'flag' ? 'checkout' : 'limits';
  const otherKey = kind === 'flag' ? 'search' : 'search.limits';
  const candidate = kind === 'flag' ? true : { max: 2 };
  const base = kind === 'flag' ? false : { max: 1 };
  let path: { envId: string; key: string };
  let ops: ReturnType<typeof rolloutOps>;
  /** An approval-required key (kind api), an approval-required agent key, and a plain key. */
  let approval: { id: string; token: string; api: GradualClient };
  let agent: { id: string; token: string; api: GradualClient };
  let plain: { id: string; token: string; api: GradualClient };
  let admin: { userId: string; api: GradualClient };
  let member: { userId: string; api: GradualClient };
  let outsider: { userId: string; api: GradualClient; key: GradualClient };
  /** The first test's proposal: left pending, it drifts when the second test applies another. */
  let first: Proposal;

  const version = async () => (await owner.session.getEnvironment({ path: { envId } })).version;
  const audit = async (resourceType: string) =>
    (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType, limit: 200 } })).events;

  /** The divertible mutations of this kind, answering `{ data, response }`. */
  const raw = (api: GradualClient) => {
    const f = kind === 'flag';
    const w = api.withResponse;
    const ids = (targetIds: string[]) => ({ path, body: { targetIds } });
    return {
      put: (body: { percent: number; newValue?: unknown; planKey?: string | null }, headers: Record<string, string> = {}) =>
        f ? w.putFlagRollout({ path, body, headers }) : w.putConfigRollout({ path, body, headers }),
      delete: () => (f ? w.deleteFlagRollout({ path }) : w.deleteConfigRollout({ path })),
      pause: (headers: Record<string, string> = {}) => (f ? w.pauseFlagRollout({ path, headers }) : w.pauseConfigRollout({ path, headers })),
      resume: () => (f ? w.resumeFlagRollout({ path }) : w.resumeConfigRollout({ path })),
      cancel: () => (f ? w.cancelFlagRollout({ path }) : w.cancelConfigRollout({ path })),
      advance: () => (f ? w.advanceFlagRollout({ path }) : w.advanceConfigRollout({ path })),
      add: (targetIds: string[]) => (f ? w.addFlagTargetIds(ids(targetIds)) : w.addConfigTargetIds(ids(targetIds))),
      remove: (targetIds: string[]) => (f ? w.removeFlagTargetIds(ids(targetIds)) : w.removeConfigTargetIds(ids(targetIds))),
      replace: (targetIds: string[]) => (f ? w.replaceFlagTargetIds(ids(targetIds)) : w.replaceConfigTargetIds(ids(targetIds))),
    };
  };

  /** Asserts a diverted answer (202 + Location) and returns the proposal. */
  const proposed = async (call: Promise<{ data: MutationResult<unknown>; response: Response }>): Promise<Proposal> => {
    const { data, response } = await call;
    expect(response.status).toBe(202);
    if (data.kind !== 'proposed') throw new Error(`expected a proposal, got ${JSON.stringify(data)}`);
    const { proposal } = data;
    expect(response.headers.get('location')).toBe(`/api/v1/proposals/${proposal.id}`);
    expect(proposal.status).toBe('pending');
    return proposal;
  };

  const mint = async (body: Parameters<GradualClient['createApiKey']>[0]['body'], session = owner.session) => {
    const minted = await session.createApiKey({ path: { slug: 'acme' }, body });
    return { id: minted.id, token: minted.token, api: t.asToken(minted.token) };
  };

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    orgId = (await owner.session.getOrg({ path: { slug: 'acme' } })).id;
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    otherEnvId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    for (const k of [key, otherKey]) {
      if (kind === 'flag') await owner.session.createFlag({ path: { id: projectId }, body: { key: k, name: k, defaultValue: base } });
      else await owner.session.createConfig({ path: { id: projectId }, body: { key: k, name: k, defaultValue: base } });
    }
    path = { envId, key };
    ops = rolloutOps(owner.session, kind);
    await ops.put(path, { percent: 10, newValue: candidate });

    approval = await mint({ name: 'needs approval', requiresApproval: true });
    agent = await mint({ name: 'agent', kind: 'agent', requiresApproval: true });
    plain = await mint({ name: 'plain' });
    const a = await seedUser(t.server.deps.db, `admin-${kind}@example.com`, { orgId, role: 'admin' });
    admin = { userId: a.userId, api: t.asSession(a.sessionToken) };
    const m = await seedUser(t.server.deps.db, `member-${kind}@example.com`, { orgId, role: 'member' });
    member = { userId: m.userId, api: t.asSession(m.sessionToken) };
    const o = await seedUser(t.server.deps.db, `eve-${kind}@example.com`);
    const eve = t.asSession(o.sessionToken);
    await eve.createOrg({ body: { name: 'Evil Corp', slug: 'evil' } });
    const evilKey = await eve.createApiKey({ path: { slug: 'evil' }, body: { name: 'evil', requiresApproval: true } });
    outsider = { userId: o.userId, api: eve, key: t.asToken(evilKey.token) };
  });
  afterAll(() => t?.close());

  it('spec "Authentication" 8: an approval-required key\'s rollout PUT is diverted to a proposal: 202 with a Location header, and nothing changes', async () => {
    const before = await ops.get(path);
    const v = await version();
    const proposal = await proposed(raw(approval.api).put({ percent: 20 }, { 'x-audit-reason': 'ramp to 20' }));
    first = proposal;
    expect(proposal).toMatchObject({
      status: 'pending',
      kind: 'rollout.put',
      envId,
      resourceType: kind,
      resourceKey: key,
      request: { method: 'PUT', path: `/api/v1/envs/${envId}/${kind}s/${key}/rollout`, body: { percent: 20 }, headers: { 'x-audit-reason': 'ramp to 20' } },
      baseVersion: v,
      createdByTokenId: approval.id,
      appliedAt: null,
      appliedByUserId: null,
      cancelledAt: null,
      cancelledByUserId: null,
    });
    expect(Date.parse(proposal.expiresAt) - Date.parse(proposal.createdAt)).toBe(WEEK_S * 1000);
    // Nothing changed: same rollout, same version.
    expect(await ops.get(path)).toEqual(before);
    expect(await version()).toBe(v);
    // Readable by id (session or key) and audited as a proposal.
    expect(await owner.session.getProposal({ path: { id: proposal.id } })).toEqual(proposal);
    expect(await approval.api.getProposal({ path: { id: proposal.id } })).toEqual(proposal);
    const [created] = await audit('proposal');
    expect(created).toMatchObject({
      action: 'proposal.created',
      resourceType: 'proposal',
      resourceKey: key,
      resourceId: proposal.id,
      envId,
      actorType: 'api_token',
      actorId: approval.id,
      delegatorUserId: owner.userId,
      approverUserId: null,
      reason: 'ramp to 20',
    });
  });

  it('spec "Proposal cross-link": the data-change row of an applied proposal carries reason proposal:<id> (the key as actor, the admin as approver)', async () => {
    const v = await version();
    const proposal = await proposed(raw(approval.api).put({ percent: 25 }));
    const applied = await admin.api.applyProposal({ path: { id: proposal.id } });
    expect(applied).toMatchObject({ id: proposal.id, status: 'applied', appliedByUserId: admin.userId, result: { percent: 25, status: 'active' } });
    expect(applied.appliedAt).not.toBeNull();
    expect(await ops.get(path)).toMatchObject({ percent: 25 });
    expect(await version()).toBe(v + 1);
    const [row] = await audit('rollout');
    expect(row).toMatchObject({
      action: 'rollout.updated',
      actorType: 'api_token',
      actorId: approval.id,
      delegatorUserId: owner.userId,
      approverUserId: admin.userId,
      reason: `proposal:${proposal.id}`,
      version: v + 1,
    });
    const [appliedRow] = await audit('proposal');
    expect(appliedRow).toMatchObject({ action: 'proposal.applied', resourceId: proposal.id, actorType: 'user', actorId: admin.userId, approverUserId: null });
    // Terminal now.
    await expectApiError(admin.api.applyProposal({ path: { id: proposal.id } }), 410, 'proposal_gone');
    await expectApiError(admin.api.cancelProposal({ path: { id: proposal.id } }), 410, 'proposal_gone');
    // The first proposal was made at the same version, which has moved since: drift.
    expect(first.baseVersion).toBe(v);
    const err = await expectApiError(admin.api.applyProposal({ path: { id: first.id } }), 409, 'version_drift');
    expect(err.details).toEqual({ liveVersion: v + 1, proposedVersion: v });
    expect(await admin.api.getProposal({ path: { id: first.id } })).toMatchObject({ status: 'pending' });
  });

  it('diverts every rollout state mutation and target-ID edit; an agent key alike', async () => {
    const apply = async (call: Promise<{ data: MutationResult<unknown>; response: Response }>, kindOf: Proposal['kind']) => {
      const proposal = await proposed(call);
      expect(proposal.kind).toBe(kindOf);
      const v = await version();
      const applied = await owner.session.applyProposal({ path: { id: proposal.id } });
      expect(await version()).toBe(v + 1);
      return { proposal, applied };
    };
    const byKey = raw(approval.api);
    const byAgent = raw(agent.api);

    expect((await apply(byKey.pause({ 'x-audit-reason': 'look' }), 'rollout.pause')).applied.result).toMatchObject({ status: 'paused', pausedReason: 'user' });
    expect((await apply(byAgent.resume(), 'rollout.resume')).applied.result).toMatchObject({ status: 'active' });
    const [resumed] = await audit('rollout');
    expect(resumed).toMatchObject({ action: 'rollout.resumed', actorType: 'agent_token', actorId: agent.id, delegatorUserId: owner.userId, approverUserId: owner.userId });

    const added = await apply(byKey.add(['u1', 'u2', 'u3']), 'target_ids.add');
    expect(added.proposal.request).toEqual({ method: 'POST', path: `/api/v1/envs/${envId}/${kind}s/${key}/rollout/target-ids/add`, body: { targetIds: ['u1', 'u2', 'u3'] } });
    expect(added.applied.result).toEqual({ added: 3, count: 3 });
    expect((await apply(byAgent.remove(['u1']), 'target_ids.remove')).applied.result).toEqual({ removed: 1, count: 2 });
    expect((await apply(byKey.replace(['a', 'b', 'c', 'd']), 'target_ids.replace')).applied.result).toEqual({ count: 4 });
    expect(await ops.list(path)).toEqual({ items: ['a', 'b', 'c', 'd'] });
    const [replaced] = await audit('rollout');
    expect(replaced).toMatchObject({ action: 'rollout.target_ids_replaced', actorId: approval.id, reason: expect.stringMatching(/^proposal:/) });

    expect((await apply(byKey.cancel(), 'rollout.cancel')).applied.result).toMatchObject({ status: 'cancelled' });
    // A PUT after a cancelled rollout starts a new one; DELETE cancels it (no result: the direct call answers 204).
    const started = await apply(byKey.put({ percent: 5, newValue: candidate }), 'rollout.put');
    expect(started.applied.result).toMatchObject({ status: 'active', percent: 5, newValue: candidate, targetIdsCount: 0 });
    const deleted = await apply(byAgent.delete(), 'rollout.delete');
    expect(deleted.applied).not.toHaveProperty('result');
    expect(await ops.get(path)).toMatchObject({ status: 'cancelled' });
    // Back to a live rollout for the next tests.
    await ops.put(path, { percent: 10, newValue: candidate });
  });

  it('validates at proposal time like the direct call, and stores nothing when it fails', async () => {
    const count = (await owner.session.listProposals({ path: { slug: 'acme' } })).length;
    const byKey = raw(approval.api);
    await expectApiError(byKey.resume(), 409, 'rollout_not_paused');
    await expectApiError(byKey.advance(), 409, 'rollout_already_at_final_step');
    await expectApiError(byKey.put({ percent: 101 }), 400, 'invalid_request');
    await expectApiError(byKey.put({ percent: 10, planKey: 'no-such-plan' }), 400, 'invalid_request');
    await expectApiError(byKey.put({ percent: 12 }, { 'if-match': '"stale"' }), 412, 'precondition_failed');
    if (kind === 'flag') {
      const err = await expectApiError(byKey.put({ percent: 10, newValue: 'yes' }), 400, 'invalid_request');
      expect(err.fields).toEqual({ newValue: 'must be a boolean' });
    }
    const missing = kind === 'flag' ? approval.api.withResponse.pauseFlagRollout({ path: { envId, key: 'nope' } }) : approval.api.withResponse.pauseConfigRollout({ path: { envId, key: 'nope' } });
    await expectApiError(missing, 404, 'not_found');
    // Another primitive without a rollout: nothing to pause.
    const noRollout = kind === 'flag' ? approval.api.pauseFlagRollout({ path: { envId, key: otherKey } }) : approval.api.pauseConfigRollout({ path: { envId, key: otherKey } });
    await expectApiError(noRollout, 404, 'not_found');
    expect((await owner.session.listProposals({ path: { slug: 'acme' } })).length).toBe(count);
  });

  it('spec "Authentication" 8: mutations that cannot become a proposal answer 403 approval_not_supported (after the key\'s action, environment and resource checks)', async () => {
    const readOnly = await mint({ name: 'reader needing approval', actions: ['read'], requiresApproval: true });
    await expectApiError(raw(readOnly.api).pause(), 403, 'token_action_denied');
    const staging = await mint({ name: 'staging only', environments: [otherEnvId], requiresApproval: true });
    await expectApiError(raw(staging.api).pause(), 403, 'token_env_out_of_scope');
    const scoped = await mint({ name: 'other key only', resources: [otherKey], requiresApproval: true });
    await expectApiError(raw(scoped.api).pause(), 403, 'token_resource_out_of_scope');

    for (const api of [approval.api, agent.api]) {
      const plan = api.createRolloutPlan({ path: { id: projectId }, body: { key: 'p', name: 'P', rampSteps: [{ percent: 100, holdForSeconds: 0 }] } });
      await expectApiError(plan, 403, 'approval_not_supported');
      const value = kind === 'flag' ? api.setFlagValue({ path, body: { value: true } }) : api.setConfigValue({ path, body: { value: { max: 9 } } });
      await expectApiError(value, 403, 'approval_not_supported');
      await expectApiError(api.createProject({ path: { slug: 'acme' }, body: { key: 'x', name: 'X' } }), 403, 'approval_not_supported');
      await expectApiError(api.createEnvironment({ path: { id: projectId }, body: { key: 'x', name: 'X' } }), 403, 'approval_not_supported');
      // Reads are unaffected.
      expect(await (kind === 'flag' ? api.getFlagRollout({ path }) : api.getConfigRollout({ path }))).toMatchObject({ primitiveKey: key });
      expect(await api.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 1 } })).toHaveProperty('events');
    }
    // A plain key and sessions are never diverted.
    const { data, response } = await raw(plain.api).pause();
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ kind: 'applied', data: { status: 'paused', primitiveKey: key } });
    expect((await raw(owner.session).resume()).response.status).toBe(200);
  });

  it('spec "Versioning" 2: applying a proposal after the env version moved answers 409 version_drift with liveVersion and proposedVersion', async () => {
    const proposal = await proposed(raw(approval.api).pause());
    // Something else writes to the same environment (another primitive).
    if (kind === 'flag') await owner.session.setFlagValue({ path: { envId, key: otherKey }, body: { value: true } });
    else await owner.session.setConfigValue({ path: { envId, key: otherKey }, body: { value: { max: 7 } } });
    const err = await expectApiError(admin.api.applyProposal({ path: { id: proposal.id } }), 409, 'version_drift');
    expect(err.details).toEqual({ liveVersion: proposal.baseVersion + 1, proposedVersion: proposal.baseVersion });
    // Nothing happened and the proposal is still pending; it can be cancelled.
    expect(await ops.get(path)).toMatchObject({ status: 'active' });
    expect(await admin.api.getProposal({ path: { id: proposal.id } })).toMatchObject({ status: 'pending' });
    const cancelled = await admin.api.cancelProposal({ path: { id: proposal.id } });
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelledByUserId: admin.userId });
    await expectApiError(admin.api.applyProposal({ path: { id: proposal.id } }), 410, 'proposal_gone');
    await expectApiError(admin.api.cancelProposal({ path: { id: proposal.id } }), 410, 'proposal_gone');
    expect((await audit('proposal'))[0]).toMatchObject({ action: 'proposal.cancelled', resourceId: proposal.id, actorId: admin.userId });
  });

  it('apply and cancel need an admin or owner session; the proposing key may withdraw its own proposal', async () => {
    const proposal = await proposed(raw(approval.api).pause());
    // Members read but cannot decide.
    expect(await member.api.getProposal({ path: { id: proposal.id } })).toMatchObject({ status: 'pending' });
    await expectApiError(member.api.applyProposal({ path: { id: proposal.id } }), 403, 'insufficient_role');
    await expectApiError(member.api.cancelProposal({ path: { id: proposal.id } }), 403, 'insufficient_role');
    // No API key applies (not even a plain one). Apply declares only the session scheme, so
    // the SDK sends no bearer: call it raw. Other keys cannot cancel it.
    for (const token of [plain.token, approval.token]) {
      const res = await fetch(`${t.url}/api/v1/proposals/${proposal.id}/apply`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('scope_denied');
    }
    await expectApiError(plain.api.cancelProposal({ path: { id: proposal.id } }), 403, 'scope_denied');
    await expectApiError(agent.api.cancelProposal({ path: { id: proposal.id } }), 403, 'scope_denied');
    // The key that made it withdraws it.
    const withdrawn = await approval.api.cancelProposal({ path: { id: proposal.id } });
    expect(withdrawn).toMatchObject({ status: 'cancelled', cancelledByUserId: null });
    expect((await audit('proposal'))[0]).toMatchObject({ action: 'proposal.cancelled', actorType: 'api_token', actorId: approval.id });
    await expectApiError(approval.api.cancelProposal({ path: { id: proposal.id } }), 410, 'proposal_gone');

    // A proposal of a key revoked since is not applied; an admin can still cancel it.
    const doomed = await mint({ name: 'soon revoked', requiresApproval: true });
    const orphan = await proposed(raw(doomed.api).pause());
    await owner.session.revokeApiKey({ path: { slug: 'acme', id: doomed.id } });
    await expectApiError(owner.session.applyProposal({ path: { id: orphan.id } }), 403, 'forbidden');
    expect(await owner.session.cancelProposal({ path: { id: orphan.id } })).toMatchObject({ status: 'cancelled', cancelledByUserId: owner.userId });
    expect(await ops.get(path)).toMatchObject({ status: 'active' });
  });

  it('hides proposals from other tenants (404)', async () => {
    const proposal = await proposed(raw(approval.api).pause());
    await expectApiError(outsider.api.getProposal({ path: { id: proposal.id } }), 404, 'not_found');
    await expectApiError(outsider.api.applyProposal({ path: { id: proposal.id } }), 404, 'not_found');
    await expectApiError(outsider.api.cancelProposal({ path: { id: proposal.id } }), 404, 'not_found');
    await expectApiError(outsider.key.getProposal({ path: { id: proposal.id } }), 404, 'not_found');
    await expectApiError(outsider.key.cancelProposal({ path: { id: proposal.id } }), 404, 'not_found');
    await expectApiError(outsider.api.listProposals({ path: { slug: 'acme' } }), 404, 'not_found');
    // Another org's approval key cannot propose here either.
    await expectApiError(raw(outsider.key).pause(), 404, 'not_found');
    await expectApiError(owner.session.getProposal({ path: { id: '00000000-0000-4000-8000-000000000000' } }), 404, 'not_found');
    await expectApiError(owner.session.getProposal({ path: { id: 'not-a-uuid' } }), 404, 'not_found');
    await owner.session.cancelProposal({ path: { id: proposal.id } });
  });

  it('lists by status, newest first', async () => {
    const first = await proposed(raw(approval.api).add(['x1']));
    const second = await proposed(raw(agent.api).add(['x2']));
    const pending = await owner.session.listProposals({ path: { slug: 'acme' }, query: { status: 'pending' } });
    expect(pending.slice(0, 2).map((p) => p.id)).toEqual([second.id, first.id]);
    expect(pending.every((p) => p.status === 'pending')).toBe(true);
    const all = await member.api.listProposals({ path: { slug: 'acme' } });
    const createdAt = all.map((p) => Date.parse(p.createdAt));
    expect(createdAt).toEqual([...createdAt].sort((a, b) => b - a));
    for (const status of ['applied', 'cancelled'] as const) {
      const listed = await owner.session.listProposals({ path: { slug: 'acme' }, query: { status } });
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.every((p) => p.status === status)).toBe(true);
    }
    expect(await owner.session.listProposals({ path: { slug: 'acme' }, query: { status: 'pending', limit: 1 } })).toHaveLength(1);
    // A key scoped to another environment sees none of them.
    const staging = await mint({ name: 'staging reader', environments: [otherEnvId], actions: ['read'] });
    expect(await staging.api.listProposals({ path: { slug: 'acme' } })).toEqual([]);
    await expectApiError(staging.api.getProposal({ path: { id: first.id } }), 403, 'token_env_out_of_scope');
    await expectApiError(owner.session.listProposals({ path: { slug: 'acme' }, query: { status: 'bogus' as never } }), 400, 'invalid_request');
  });

  it('spec "Code catalog" proposal_gone: apply or cancel of an expired proposal answers 410 proposal_gone (pending proposals expire after 7 days, audited)', async () => {
    const pending = await owner.session.listProposals({ path: { slug: 'acme' }, query: { status: 'pending' } });
    expect(pending.length).toBeGreaterThan(0);
    const fresh = await proposed(raw(approval.api).pause());
    await t.advanceClock(WEEK_S - 60);
    // Not yet: a week minus a minute.
    expect(await owner.session.getProposal({ path: { id: fresh.id } })).toMatchObject({ status: 'pending' });
    await t.advanceClock(61);
    expect(await owner.session.getProposal({ path: { id: fresh.id } })).toMatchObject({ status: 'expired' });
    await expectApiError(owner.session.applyProposal({ path: { id: fresh.id } }), 410, 'proposal_gone');
    await expectApiError(approval.api.cancelProposal({ path: { id: fresh.id } }), 410, 'proposal_gone');
    expect(await owner.session.listProposals({ path: { slug: 'acme' }, query: { status: 'pending' } })).toEqual([]);
    const expired = (await audit('proposal')).filter((e) => e.action === 'proposal.expired');
    expect(expired.map((e) => e.resourceId).sort()).toEqual([...pending.map((p) => p.id), fresh.id].sort());
    expect(expired.find((e) => e.resourceId === fresh.id)).toMatchObject({ actorType: 'system', createdAt: fresh.expiresAt, resourceKey: key, envId });
    // Applying the rollout afterwards still works directly; the expired proposal changed nothing.
    expect(await ops.get(path)).toMatchObject({ status: 'active' });
  });
});
