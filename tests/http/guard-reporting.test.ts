import { createFlagClient } from '@gradual/sdk';
import { armOf } from '@gradual/sdk/evaluation';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { prng } from '../support/random.js';
import { rolloutOps } from '../support/rollout-ops.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * Guarded steps fed by a real SDK (docs/guards.md "Reporting from the SDK"): the live client counts
 * its exposures per arm and the errors `track` attributes, and sends them itself; the guard status
 * route shows the checks while the step holds, and the stop after. The server's clock is the
 * test's, set to the real time so that the SDK's windows (on the real clock) end within the last
 * 10 minutes of it.
 */
const HOUR = 3600;

describe('guard reporting from the SDK', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    await owner.session.createGuardMetric({ path: { id: projectId }, body: { key: 'checkout-errors', name: 'Checkout errors', kind: 'count', worse: 'higher' } });
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'search', name: 'Search', defaultValue: false } });
    await owner.session.createGuardMetric({ path: { id: projectId }, body: { key: 'search-latency', name: 'Search latency (ms)', kind: 'mean', worse: 'higher', event: 'search_ms' } });
    await owner.session.createRolloutPlan({
      path: { id: projectId },
      body: {
        key: 'latency-guarded',
        name: 'Latency guarded',
        cadence: 'auto',
        rampSteps: [
          { percent: 20, holdForSeconds: 6 * HOUR, guard: { metrics: [{ key: 'search-latency', margin: 5, action: 'pause' }], minUnitsPerArm: 100 } },
          { percent: 100, holdForSeconds: 0 },
        ],
      },
    });
    await owner.session.createRolloutPlan({
      path: { id: projectId },
      body: {
        key: 'guarded',
        name: 'Guarded',
        cadence: 'auto',
        rampSteps: [{ percent: 10, holdForSeconds: 6 * HOUR, guard: { metrics: [{ key: 'checkout-errors', margin: 0.1 }], minUnitsPerArm: 100 } }, { percent: 100, holdForSeconds: 0 }],
      },
    });
  });
  afterAll(() => t?.close());

  it('a live client reports its arms and tracked errors; the guard route shows the checks, then the rollback a 3 % against 1 % error rate causes', async () => {
    await t.setClock(new Date());
    const path = { envId, key: 'checkout' };
    await rolloutOps(owner.session, 'flag').put(path, { percent: 10, newValue: true, planKey: 'guarded' });
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'checkout service', kind: 'sdk', environments: [envId] } });
    const client = createFlagClient({ baseUrl: t.url, token, envId, mode: 'stream', logger: null, sendUsage: false });
    try {
      await client.waitForReady({ timeoutMs: 10_000 });
      expect(client.ruleset()!.primitives.find((p) => p.key === 'checkout')!.rollout!.guard).toMatchObject({ events: ['checkout-errors'] });

      // One round: 5,000 new users evaluated (about 500 an arm), errors tracked at 3 % in the
      // admitted band and 1 % in the control band; sent with flush().
      let next = 0;
      const expected = { treatment: 0, control: 0 };
      const round = async () => {
        for (let i = 0; i < 5000; i++, next++) {
          const context = { userId: `user-${next}` };
          const served = client.evaluate('checkout', context);
          const arm = armOf(served.bucket!, 10);
          if (arm) expected[arm]++;
          if ((arm === 'treatment' && next % 100 < 3) || (arm === 'control' && next % 100 < 1)) client.track('checkout-errors', context);
          client.track('not-a-metric', context, { value: 1 });
        }
        await client.flush();
      };

      await round();
      await t.advanceClock(60);
      const holding = await owner.session.getFlagRolloutGuard({ path });
      expect(holding).toMatchObject({
        step: { index: 0, percent: 10, holdForSeconds: 6 * HOUR, guard: { minUnitsPerArm: 100 } },
        decision: 'hold',
        waitingFor: ['hold'],
        checks: { holdPassed: false, units: { treatment: expected.treatment, control: expected.control, min: 100 }, srmOk: true },
        lastStop: null,
      });
      const metric = holding.checks!.metrics[0]!;
      expect(metric).toMatchObject({ key: 'checkout-errors', kind: 'count', worse: 'higher', margin: 0.1, action: 'rollback', threshold: 20 });
      expect(metric.estimate!.value).toBeGreaterThan(1.5);
      expect(metric.series.length).toBeGreaterThanOrEqual(1);

      let rounds = 1;
      while ((await owner.session.getFlagRollout({ path })).status === 'active' && rounds < 8) {
        await round();
        await t.advanceClock(60);
        rounds++;
      }
      const stopped = await owner.session.getFlagRollout({ path });
      expect(stopped).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', percent: 0, lastGuardStop: { cause: 'metric', metricKey: 'checkout-errors', action: 'rollback' } });
      const admitted = Array.from({ length: 200 }, (_, i) => ({ userId: `user-${i}` })).find((c) => armOf(client.evaluate('checkout', c).bucket!, 10) === 'treatment')!;
      await vi.waitFor(() => expect(client.evaluate('checkout', admitted).value).toBe(false), { timeout: 5000, interval: 10 });

      const after = await owner.session.getFlagRolloutGuard({ path });
      expect(after).toMatchObject({ step: null, decision: null, checks: null, lastStop: { metricKey: 'checkout-errors', cause: 'metric' } });
      expect(after.lastStop!.estimate!.value).toBeGreaterThan(1.5);
      // The SDK no longer counts: the rolled-back rollout's entry has no guard.
      expect(client.ruleset()!.primitives.find((p) => p.key === 'checkout')!.rollout!.guard).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('a mean metric tracked with values (search latency 230 ms against 200 ms, seeded) pauses the step, its difference and always-valid interval beyond the margin', async () => {
    await t.setClock(new Date());
    const path = { envId, key: 'search' };
    await rolloutOps(owner.session, 'flag').put(path, { percent: 20, newValue: true, planKey: 'latency-guarded' });
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'search service', kind: 'sdk', environments: [envId] } });
    const client = createFlagClient({ baseUrl: t.url, token, envId, mode: 'stream', logger: null, sendUsage: false });
    const random = prng(38);
    // Normal by Box–Muller: the candidate is 30 ms slower, both with a spread of 40 ms.
    const latency = (mean: number) => mean + 40 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    try {
      await client.waitForReady({ timeoutMs: 10_000 });
      expect(client.ruleset()!.primitives.find((p) => p.key === 'search')!.rollout!.guard).toMatchObject({ events: ['search_ms'] });
      let next = 0;
      const round = async () => {
        for (let i = 0; i < 2000; i++, next++) {
          const context = { userId: `searcher-${next}` };
          client.evaluate('search', context);
          const arm = client.guardArm('search', context);
          if (arm !== null) client.track('search_ms', context, { value: latency(arm === 'treatment' ? 230 : 200) });
        }
        await client.flush();
      };
      let rounds = 0;
      while ((await owner.session.getFlagRollout({ path })).status === 'active' && rounds < 10) {
        await round();
        await t.advanceClock(60);
        rounds++;
      }
      const stopped = await owner.session.getFlagRollout({ path });
      expect(stopped).toMatchObject({ status: 'paused', pausedReason: 'guard', percent: 20, lastGuardStop: { cause: 'metric', metricKey: 'search-latency', action: 'pause' } });
      const { value, lower, upper } = stopped.lastGuardStop!.estimate!;
      expect(value).toBeGreaterThan(20);
      expect(value).toBeLessThan(40);
      // The always-valid interval excludes the margin: that is what made it a regression.
      expect(lower!).toBeGreaterThan(5);
      expect(upper!).toBeGreaterThan(value);
      const { events } = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'search', envId } });
      expect(events.find((e) => e.action === 'rollout.paused')).toMatchObject({ actorType: 'system', reason: 'guard:search-latency' });
    } finally {
      await client.close();
    }
  });
});
