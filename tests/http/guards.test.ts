import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolloutOps } from '../support/rollout-ops.js';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

const HOUR = 3600;

describe('guarded ramp steps', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'new-checkout', name: 'New checkout', defaultValue: false } });
  });
  afterAll(() => t?.close());

  it('defines metrics: created with the event defaulting to the key, listed, a key only once, and audited', async () => {
    const errors = await owner.session.createGuardMetric({
      path: { id: projectId },
      body: { key: 'checkout-errors', name: 'Checkout errors', kind: 'count', worse: 'higher' },
    });
    expect(errors).toMatchObject({ key: 'checkout-errors', event: 'checkout-errors', kind: 'count', worse: 'higher', description: '' });
    await owner.session.createGuardMetric({
      path: { id: projectId },
      body: { key: 'latency', name: 'Checkout latency', kind: 'mean', worse: 'higher', event: 'checkout_ms' },
    });
    expect((await owner.session.listGuardMetrics({ path: { id: projectId } })).map((m) => [m.key, m.event])).toEqual([
      ['checkout-errors', 'checkout-errors'],
      ['latency', 'checkout_ms'],
    ]);
    await expectApiError(
      owner.session.createGuardMetric({ path: { id: projectId }, body: { key: 'latency', name: 'Again', kind: 'count', worse: 'higher' } }),
      409,
      'guard_metric_key_conflict',
    );
    const audit = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'guard_metric' } });
    expect(audit.events.map((e) => `${e.action} ${e.resourceKey}`).sort()).toEqual(['guard_metric.created checkout-errors', 'guard_metric.created latency']);
  });

  it('refuses a guard on the final step, on a manual plan, naming a metric twice or one the project lacks, each by its field', async () => {
    const guard = { metrics: [{ key: 'checkout-errors' }] };
    const refused = async (body: Parameters<typeof owner.session.createRolloutPlan>[0]['body']) =>
      (await expectApiError(owner.session.createRolloutPlan({ path: { id: projectId }, body }), 400, 'rollout_plan_invalid_ramp')).fields;
    expect(
      await refused({ key: 'final', name: 'F', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: HOUR }, { percent: 100, holdForSeconds: 0, guard }] }),
    ).toHaveProperty(['rampSteps.1.guard']);
    expect(
      await refused({ key: 'manual', name: 'M', cadence: 'manual', rampSteps: [{ percent: 10, holdForSeconds: HOUR, guard }, { percent: 100, holdForSeconds: 0 }] }),
    ).toHaveProperty(['rampSteps.0.guard']);
    expect(
      await refused({
        key: 'twice',
        name: 'T',
        cadence: 'auto',
        rampSteps: [{ percent: 10, holdForSeconds: HOUR, guard: { metrics: [{ key: 'latency' }, { key: 'latency' }] } }, { percent: 100, holdForSeconds: 0 }],
      }),
    ).toHaveProperty(['rampSteps.0.guard.metrics.1.key']);
    expect(
      await refused({
        key: 'unknown',
        name: 'U',
        cadence: 'auto',
        rampSteps: [{ percent: 10, holdForSeconds: HOUR, guard: { metrics: [{ key: 'checkout-errors' }, { key: 'crashes' }] } }, { percent: 100, holdForSeconds: 0 }],
      }),
    ).toEqual({ 'rampSteps.0.guard.metrics.1.key': 'no guard metric "crashes" in this project' });
  });

  it('holds a step that has no data past its hold, never advancing blind, then pauses it (guard) at its longest hold, as the system', async () => {
    await t.setClock('2026-12-01T09:00:00Z');
    const plan = await owner.session.createRolloutPlan({
      path: { id: projectId },
      body: {
        key: 'guarded',
        name: 'Guarded',
        cadence: 'auto',
        rampSteps: [
          { percent: 10, holdForSeconds: HOUR, guard: { metrics: [{ key: 'checkout-errors', margin: 0.1 }, { key: 'latency', action: 'pause' }], minUnitsPerArm: 100, maxHoldFactor: 2 } },
          { percent: 100, holdForSeconds: 0 },
        ],
      },
    });
    // Defaults applied where the plan said nothing.
    expect(plan.rampSteps[0]!.guard).toEqual({
      metrics: [
        { key: 'checkout-errors', margin: 0.1, action: 'rollback' },
        { key: 'latency', margin: 0, action: 'pause' },
      ],
      minUnitsPerArm: 100,
      maxHoldFactor: 2,
    });
    const path = { envId, key: 'new-checkout' };
    const ops = rolloutOps(owner.session, 'flag');
    const started = await ops.put(path, { percent: 10, newValue: true, planKey: 'guarded' });
    expect(started).toMatchObject({ percent: 10, rampStepIdx: 0, nextStepAt: '2026-12-01T10:00:00.000Z', lastGuardStop: null });

    // Checked every minute, and past the hold: no units in either arm, so the step stays.
    await t.advanceClock(60);
    await t.advanceClock(HOUR);
    expect(await owner.session.getFlagRollout({ path })).toMatchObject({ status: 'active', percent: 10, rampStepIdx: 0 });

    // At twice the hold (maxHoldFactor 2) without enough units: paused where it is, with the reason.
    await t.advanceClock(HOUR);
    const paused = await owner.session.getFlagRollout({ path });
    expect(paused).toMatchObject({
      status: 'paused',
      pausedReason: 'guard',
      percent: 10,
      lastGuardStop: { action: 'pause', cause: 'insufficient_data', metricKey: null, stepPercent: 10, units: { treatment: 0, control: 0 } },
    });
    expect(paused.allowedActions).toEqual(['resume', 'advance', 'rollback', 'cancel']);
    const { events } = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'new-checkout', envId } });
    const row = events.find((e) => e.action === 'rollout.paused')!;
    expect(row).toMatchObject({ actorType: 'system', reason: 'guard:insufficient_data' });
    const detail = await owner.session.getAuditEvent({ path: { id: row.id } });
    expect(detail.newValue).toMatchObject({ pausedReason: 'guard', lastGuardStop: { cause: 'insufficient_data' } });
    expect(events.some((e) => e.action === 'rollout.advanced')).toBe(false);

    // A person resumes it: the step's hold, and its analysis, start again.
    const resumed = await ops.resume(path);
    expect(resumed).toMatchObject({ status: 'active', percent: 10, nextStepAt: '2026-12-01T12:01:00.000Z' });
  });

  it('keeps a metric while a plan or a live rollout watches it, and deletes it (idempotently) once nothing does', async () => {
    const inUse = await expectApiError(owner.session.deleteGuardMetric({ path: { id: projectId, key: 'latency' } }), 409, 'guard_metric_in_use');
    expect(inUse.details).toMatchObject({ plans: ['guarded'], rollouts: [{ envId, kind: 'flag', key: 'new-checkout' }] });
    await owner.session.createGuardMetric({ path: { id: projectId }, body: { key: 'unused', name: 'Unused', kind: 'count', worse: 'higher' } });
    await owner.session.deleteGuardMetric({ path: { id: projectId, key: 'unused' } });
    await owner.session.deleteGuardMetric({ path: { id: projectId, key: 'unused' } });
    expect((await owner.session.listGuardMetrics({ path: { id: projectId } })).map((m) => m.key)).toEqual(['checkout-errors', 'latency']);
  });
});
