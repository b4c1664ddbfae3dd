import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradualClient } from '@gradual/sdk';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { rolloutOps, type Kind } from '../support/rollout-ops.js';

/** The manual rollback (kill switch) and the actions a rollout offers, through the SDK. */
describe.each<Kind>(['flag', 'config'])('Roll back now: a %s rollout', (kind) => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;
  let ops: ReturnType<typeof rolloutOps>;
  let reader: GradualClient;
  let approvalKey: GradualClient;
  const candidate = kind === 'flag' ? true : { v: 2 };

  const rollback = (api: GradualClient, key: string, reason?: string) => {
    const options = { path: { envId, key }, headers: reason === undefined ? {} : { 'x-audit-reason': reason } };
    return kind === 'flag' ? api.rollbackFlagRollout(options) : api.rollbackConfigRollout(options);
  };
  const create = async (key: string) => {
    if (kind === 'flag') await owner.session.createFlag({ path: { id: projectId }, body: { key, name: key, defaultValue: false } });
    else await owner.session.createConfig({ path: { id: projectId }, body: { key, name: key, defaultValue: { v: 1 } } });
  };
  const start = async (key: string, percent: number) => {
    await create(key);
    return ops.put({ envId, key }, { percent, newValue: candidate });
  };
  const served = async (key: string) => (await reader.getRuleset({ path: { envId } })).primitives.find((p) => p.key === key)?.rollout;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    ops = rolloutOps(owner.session, kind);
    reader = t.asToken((await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'reader', actions: ['read'] } })).token);
    approvalKey = t.asToken((await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'needs approval', requiresApproval: true } })).token);
  });
  afterAll(() => t?.close());

  it('pauses at 0% remembering the percent, reaches the ruleset, is audited with its reason, and resume returns to the percent', async () => {
    const started = await start('checkout', 30);
    expect(started.allowedActions).toEqual(['pause', 'rollback', 'cancel']);
    expect(await served('checkout')).toMatchObject({ status: 'active', percent: 30 });

    const back = await rollback(owner.session, 'checkout', 'error rate above 2%');
    expect(back).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', percent: 0, rolledBackFromPercent: 30, allowedActions: ['resume', 'cancel'] });
    expect(await served('checkout')).toMatchObject({ status: 'paused', percent: 0 });
    expect(await ops.get({ envId, key: 'checkout' })).toEqual(back);

    const { events } = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 5 } });
    expect(events.find((e) => e.resourceKey === 'checkout' && e.action === 'rollout.rolled_back')).toMatchObject({
      actorType: 'user',
      envId,
      reason: 'error rate above 2%',
    });

    await expectApiError(rollback(owner.session, 'checkout', 'again'), 409, 'rollout_nothing_to_roll_back');
    const resumed = await ops.resume({ envId, key: 'checkout' });
    expect(resumed).toMatchObject({ status: 'active', percent: 30, rolledBackFromPercent: null, allowedActions: ['pause', 'rollback', 'cancel'] });
    expect(await served('checkout')).toMatchObject({ status: 'active', percent: 30 });
  });

  it('rolls back a paused rollout from the percent it was paused at', async () => {
    await start('paused', 12.5);
    expect((await ops.pause({ envId, key: 'paused' })).allowedActions).toEqual(['resume', 'rollback', 'cancel']);
    expect(await rollback(owner.session, 'paused', 'incident 42')).toMatchObject({ percent: 0, rolledBackFromPercent: 12.5 });
    expect(await ops.resume({ envId, key: 'paused' })).toMatchObject({ status: 'active', percent: 12.5 });
  });

  it('answers 409 when nothing is live, 404 without a rollout, 400 without a reason', async () => {
    await start('done', 40);
    const cancelled = await ops.cancel({ envId, key: 'done' });
    expect(cancelled.allowedActions).toEqual([]);
    await expectApiError(rollback(owner.session, 'done', 'too late'), 409, 'rollout_nothing_to_roll_back');

    await create('never');
    await expectApiError(rollback(owner.session, 'never', 'nothing here'), 404, 'not_found');
    await start('noreason', 10);
    expect((await expectApiError(rollback(owner.session, 'noreason'), 400, 'invalid_request')).fields).toHaveProperty('x-audit-reason');
    await expectApiError(rollback(owner.session, 'noreason', '   '), 400, 'invalid_request');
    // Authorization comes first: a read-only key learns only that it may not write.
    await expectApiError(rollback(reader, 'noreason'), 403, 'token_action_denied');
    expect(await ops.get({ envId, key: 'noreason' })).toMatchObject({ status: 'active', percent: 10 });
  });

  it('refuses a read-only key (403) and lets an approval-required key roll back without a proposal', async () => {
    await start('keys', 20);
    await expectApiError(rollback(reader, 'keys', 'reader'), 403, 'token_action_denied');
    expect(await ops.get({ envId, key: 'keys' })).toMatchObject({ status: 'active', percent: 20 });

    // Any other write of this key becomes a proposal; the kill switch does not wait for approval.
    const paused = await (kind === 'flag' ? approvalKey.pauseFlagRollout({ path: { envId, key: 'keys' } }) : approvalKey.pauseConfigRollout({ path: { envId, key: 'keys' } }));
    expect(paused.kind).toBe('proposed');
    expect(await rollback(approvalKey, 'keys', 'pager')).toMatchObject({ status: 'paused', percent: 0, rolledBackFromPercent: 20 });
    const { events } = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 5 } });
    expect(events.find((e) => e.resourceKey === 'keys' && e.action === 'rollout.rolled_back')).toMatchObject({ actorType: 'api_token', reason: 'pager' });
  });

  it('offers approve, not advance, at an approval gate; a rollback from the gate returns to its percent', async () => {
    await create('gated');
    await owner.session.createRolloutPlan({
      path: { id: projectId },
      body: {
        key: 'gated-ramp',
        name: 'Gated ramp',
        cadence: 'auto',
        blackoutDaysOfWeek: [],
        blackoutTimezone: 'UTC',
        rampSteps: [
          { percent: 10, holdForSeconds: 60 },
          { percent: 50, holdForSeconds: 60, requiresApproval: true },
          { percent: 100, holdForSeconds: 0 },
        ],
      },
    });
    expect((await ops.put({ envId, key: 'gated' }, { percent: 10, newValue: candidate, planKey: 'gated-ramp' })).allowedActions).toEqual([
      'pause',
      'advance',
      'rollback',
      'cancel',
    ]);
    await t.advanceClock(61);
    const gated = await ops.get({ envId, key: 'gated' });
    expect(gated).toMatchObject({ status: 'paused', pausedReason: 'approval_gate', percent: 10, allowedActions: ['approve', 'rollback', 'cancel'] });
    expect(await rollback(owner.session, 'gated', 'gate looked bad')).toMatchObject({ percent: 0, rolledBackFromPercent: 10, allowedActions: ['resume', 'cancel'] });
    expect(await ops.resume({ envId, key: 'gated' })).toMatchObject({ status: 'active', percent: 10, allowedActions: ['pause', 'advance', 'rollback', 'cancel'] });
  });
});
