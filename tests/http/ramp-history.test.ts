import type { GradualClient, RolloutRamp, RolloutRampMarkCause } from '@gradual/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { applied } from '../support/rollout-ops.js';

const HOUR = 3600;

/** The cause of a done mark for each audit action of a rollout's state. */
const CAUSES: Record<string, RolloutRampMarkCause> = {
  'rollout.created': 'created',
  'rollout.updated': 'edited',
  'rollout.advanced': 'advanced',
  'rollout.approval_gate_reached': 'approval_gate',
  'rollout.approval_resolved': 'approved',
  'rollout.auto_rollback': 'rolled_back',
  'rollout.rolled_back': 'rolled_back',
  'rollout.resumed': 'resumed',
  'rollout.completed': 'completed',
  'rollout.cancelled': 'cancelled',
};

/**
 * GET …/rollout/ramp from a real server: the past is the rollout's audit log (its state changes,
 * at their actual times), the future the server's own projection of the plan, as the scheduler
 * then runs it. The test clock moves the scheduler.
 */
describe('the rollout ramp route', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  const path = () => ({ envId, key: 'new-checkout' });

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'new-checkout', name: 'New checkout', defaultValue: false } });
    await owner.session.createConfig({ path: { id: project.id }, body: { key: 'limits', name: 'Limits', defaultValue: { max: 1 } } });
    await owner.session.createRolloutPlan({
      path: { id: project.id },
      body: {
        key: 'gated',
        name: 'Gated',
        cadence: 'auto',
        blackoutDaysOfWeek: [],
        blackoutTimezone: 'UTC',
        rampSteps: [
          { percent: 25, holdForSeconds: HOUR },
          { percent: 50, holdForSeconds: 5400, requiresApproval: true },
          { percent: 100, holdForSeconds: 0 },
        ],
      },
    });
  });
  afterAll(() => t?.close());

  /** This rollout's state changes in the audit log, oldest first: [time, cause]. */
  async function auditPast(s: GradualClient, rolloutId: string): Promise<[string, RolloutRampMarkCause | undefined][]> {
    const { events } = await s.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'new-checkout', envId, limit: 200 } });
    return events
      .filter((e) => e.resourceId === rolloutId && !e.action.startsWith('rollout.target_ids'))
      .reverse()
      .map((e) => [e.createdAt, CAUSES[e.action]]);
  }
  const done = (ramp: RolloutRamp) => ramp.marks.filter((m) => m.kind === 'done');
  const planned = (ramp: RolloutRamp) => ramp.marks.filter((m) => m.kind === 'planned').map((m) => [m.at, m.percent, m.cause, m.waitsFor, m.gate]);
  const doneSegments = (ramp: RolloutRamp) => ramp.segments.filter((x) => x.kind === 'done').map((x) => [x.from, x.to, x.percent, x.phase]);

  it('no rollout: 404', async () => {
    await expect(owner.session.getFlagRolloutRamp({ path: path() })).rejects.toMatchObject({ status: 404 });
    await expect(owner.session.getConfigRolloutRamp({ path: { envId, key: 'limits' } })).rejects.toMatchObject({ status: 404 });
    await expect(owner.session.getFlagRolloutRamp({ path: { envId, key: 'no-such-flag' } })).rejects.toMatchObject({ status: 404 });
  });

  it('a gate, an approval, a rollback and a resume: the past matches the audit log, the future is the scheduler’s', async () => {
    const s = owner.session;
    // An earlier rollout of the same flag, cancelled: its rows are not this rollout's history.
    await t.setClock('2026-11-17T12:00:00Z');
    await applied(s.putFlagRollout({ path: path(), body: { percent: 50, newValue: true } }));
    await applied(s.cancelFlagRollout({ path: path() }));

    await t.setClock('2026-11-18T12:00:00Z');
    const started = await applied(s.putFlagRollout({ path: path(), body: { percent: 25, newValue: true, planKey: 'gated' } }));
    expect(planned(await s.getFlagRolloutRamp({ path: path() }))).toEqual([
      ['2026-11-18T13:00:00.000Z', 25, 'approval_gate', 'schedule', true],
      ['2026-11-18T13:00:00.000Z', 50, 'step', 'approval', false],
      ['2026-11-18T14:30:00.000Z', 100, 'completed', 'approval', false],
    ]);

    await t.setClock('2026-11-18T13:00:00Z'); // the scheduler stops before the gated step
    expect(await s.getFlagRollout({ path: path() })).toMatchObject({ status: 'paused', pausedReason: 'approval_gate', percent: 25 });
    await t.setClock('2026-11-18T13:20:00Z');
    await applied(s.resumeFlagRollout({ path: path() })); // approved: 50% now
    const secret = await s.createRollbackSecret({ path: { envId }, body: { name: 'alerts' } });
    await t.setClock('2026-11-18T13:30:00Z');
    const fired = await fetch(`${t.url}/api/v1/webhooks/rollback/envs/${envId}/flags/new-checkout`, { method: 'POST', headers: { authorization: `Bearer ${secret.token}` } });
    expect(fired.status).toBeLessThan(300);
    await s.addFlagTargetIds({ path: path(), body: { targetIds: ['u-1'] } });
    await t.setClock('2026-11-18T14:00:00Z');

    const rolledBack = await s.getFlagRolloutRamp({ path: path() });
    expect(rolledBack.start).toBe(started.createdAt);
    expect(rolledBack.now).toBe('2026-11-18T14:00:00.000Z');
    expect(done(rolledBack).map((m) => [m.at, m.cause])).toEqual(await auditPast(s, started.id));
    expect(doneSegments(rolledBack)).toEqual([
      ['2026-11-18T12:00:00.000Z', '2026-11-18T13:00:00.000Z', 25, 'active'],
      ['2026-11-18T13:00:00.000Z', '2026-11-18T13:20:00.000Z', 25, 'approval_gate'],
      ['2026-11-18T13:20:00.000Z', '2026-11-18T13:30:00.000Z', 50, 'active'],
      ['2026-11-18T13:30:00.000Z', '2026-11-18T14:00:00.000Z', 0, 'rolled_back'],
    ]);
    // Resuming returns to 50%; the final step follows its exact hold (1 h 30 min) from the resume.
    expect(planned(rolledBack)).toEqual([
      ['2026-11-18T14:00:00.000Z', 50, 'resumed', 'resume', false],
      ['2026-11-18T15:30:00.000Z', 100, 'completed', 'resume', false],
    ]);
    // Configs answer the same route.
    await expect(s.getConfigRolloutRamp({ path: { envId, key: 'limits' } })).rejects.toMatchObject({ status: 404 });

    await t.setClock('2026-11-18T15:00:00Z');
    const resumed = await applied(s.resumeFlagRollout({ path: path() }));
    expect(resumed.nextStepAt).toBe('2026-11-18T16:30:00.000Z');
    const afterResume = await s.getFlagRolloutRamp({ path: path() });
    expect(done(afterResume).map((m) => [m.at, m.cause])).toEqual(await auditPast(s, started.id));
    expect(done(afterResume).map((m) => [m.cause, m.percent])).toEqual([
      ['created', 25],
      ['approval_gate', 25],
      ['approved', 50],
      ['rolled_back', 0],
      ['resumed', 50],
    ]);
    expect(planned(afterResume)).toEqual([[resumed.nextStepAt, 100, 'completed', 'schedule', false]]);

    // The scheduler completes the rollout when the projection said it would.
    await t.setClock('2026-11-18T16:30:00Z');
    await t.setClock('2026-11-18T17:00:00Z');
    const completed = await s.getFlagRolloutRamp({ path: path() });
    expect(done(completed).map((m) => [m.at, m.cause])).toEqual(await auditPast(s, started.id));
    expect(done(completed).slice(-2).map((m) => [m.at, m.cause, m.percent])).toEqual([
      ['2026-11-18T16:30:00.000Z', 'advanced', 100],
      ['2026-11-18T16:30:00.000Z', 'completed', 100],
    ]);
    expect(planned(completed)).toEqual([]);
    expect(doneSegments(completed).at(-1)).toEqual(['2026-11-18T16:30:00.000Z', '2026-11-18T17:00:00.000Z', 100, 'completed']);
  });
});
