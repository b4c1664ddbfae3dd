import { createFlagClient } from '@gradual/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

  it('rolls back at the first check after a count metric regresses (1 % → 3 %), and a streaming SDK serves the base value within a second', async () => {
    await t.setClock('2026-12-02T09:00:00Z');
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'regress', name: 'Regress', defaultValue: false } });
    await owner.session.createRolloutPlan({
      path: { id: projectId },
      body: {
        key: 'errors-guarded',
        name: 'Errors guarded',
        cadence: 'auto',
        rampSteps: [{ percent: 10, holdForSeconds: 6 * HOUR, guard: { metrics: [{ key: 'checkout-errors' }], minUnitsPerArm: 100 } }, { percent: 100, holdForSeconds: 0 }],
      },
    });
    const path = { envId, key: 'regress' };
    await rolloutOps(owner.session, 'flag').put(path, { percent: 10, newValue: true, planKey: 'errors-guarded' });
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'reporter', kind: 'sdk', environments: [envId] } });
    const reporter = t.asToken(token);
    const client = createFlagClient({ baseUrl: t.url, token, envId, mode: 'stream', logger: null, sendUsage: false });
    try {
      await client.waitForReady({ timeoutMs: 10_000 });
      // A context in the admitted band (bucket below 10) gets the candidate.
      const admitted = Array.from({ length: 500 }, (_, i) => ({ userId: `u${i}` })).find((c) => client.evaluate('regress', c).value === true)!;
      expect(admitted).toBeDefined();

      // A minute of both arms: 500 exposed units each, 3 % errors against 1 %.
      const minute = async () => {
        const now = await t.advanceClock(60);
        const windowEnd = now.toISOString();
        const windowStart = new Date(now.getTime() - 10_000).toISOString();
        const arm = (a: 'treatment' | 'control') => ({ kind: 'flag' as const, key: 'regress', percent: 10, arm: a });
        return reporter.reportGuardMetrics({
          path: { envId },
          body: {
            windowStart,
            windowEnd,
            exposures: [{ ...arm('treatment'), units: 500 }, { ...arm('control'), units: 500 }],
            events: [
              { ...arm('treatment'), event: 'checkout-errors', count: 15, sum: 0, sumSquares: 0 },
              { ...arm('control'), event: 'checkout-errors', count: 5, sum: 0, sumSquares: 0 },
            ],
          },
        });
      };
      expect(await minute()).toEqual({ accepted: 4, skipped: 0, dropped: 0 });
      let minutes = 1;
      while ((await owner.session.getFlagRollout({ path })).status === 'active' && minutes < 30) {
        await minute();
        minutes++;
      }
      const stopped = await owner.session.getFlagRollout({ path });
      expect(stopped).toMatchObject({
        status: 'paused',
        pausedReason: 'auto_rollback',
        percent: 0,
        rolledBackFromPercent: 10,
        lastGuardStop: { action: 'rollback', cause: 'metric', metricKey: 'checkout-errors', stepPercent: 10, threshold: 20 },
      });
      expect(stopped.lastGuardStop!.eValue).toBeGreaterThanOrEqual(20);
      expect(stopped.lastGuardStop!.units.treatment).toBeLessThanOrEqual(2000 + 500);
      // Caught within a few minutes of 500 units an arm: the simulations' median is 1,000 exposures per arm.
      expect(minutes).toBeLessThanOrEqual(6);

      const started = performance.now();
      await vi.waitFor(() => expect(client.evaluate('regress', admitted).value).toBe(false), { timeout: 1000, interval: 10 });
      expect(performance.now() - started).toBeLessThan(1000);

      const { events } = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'regress', envId } });
      expect(events[0]).toMatchObject({ action: 'rollout.auto_rollback', actorType: 'system', reason: 'guard:checkout-errors' });

      // A report for the rolled-back rollout counts for nothing.
      expect(await minute()).toEqual({ accepted: 0, skipped: 0, dropped: 4 });
    } finally {
      await client.close();
    }
  });

  it('takes reports from server and SDK keys only, windows that end within the last 10 minutes, and skips what the key cannot see', async () => {
    const { token: clientKey } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'page', kind: 'client', environments: [envId] } });
    const now = await t.advanceClock(0);
    const body = { windowStart: new Date(now.getTime() - 10_000).toISOString(), windowEnd: now.toISOString(), exposures: [], events: [] };
    await expectApiError(t.asToken(clientKey).reportGuardMetrics({ path: { envId }, body }), 403, 'scope_denied');
    const old = { ...body, windowStart: new Date(now.getTime() - 16 * 60_000).toISOString(), windowEnd: new Date(now.getTime() - 11 * 60_000).toISOString() };
    expect((await expectApiError(owner.session.reportGuardMetrics({ path: { envId }, body: old }), 400, 'invalid_request')).fields).toHaveProperty('windowEnd');
    const long = { ...body, windowStart: new Date(now.getTime() - 6 * 60_000).toISOString() };
    expect((await expectApiError(owner.session.reportGuardMetrics({ path: { envId }, body: long }), 400, 'invalid_request')).fields).toHaveProperty('windowStart');
    const { token: teamKey } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'team', kind: 'sdk', environments: [envId], resources: ['other-*'] } });
    const unseen = { ...body, exposures: [{ kind: 'flag' as const, key: 'regress', percent: 10, arm: 'treatment' as const, units: 1 }, { kind: 'flag' as const, key: 'nope', percent: 10, arm: 'control' as const, units: 1 }] };
    expect(await t.asToken(teamKey).reportGuardMetrics({ path: { envId }, body: unseen })).toEqual({ accepted: 0, skipped: 2, dropped: 0 });
  });
});
