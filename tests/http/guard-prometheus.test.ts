/**
 * Guard metrics read from Prometheus (docs/guards.md#prometheus-source), against a real Prometheus
 * whose database holds a small exporter's counters at the test clock's times: a count metric that
 * regresses (3 % of units against 1 %) rolls the step back, and a mean metric with the same values
 * in both arms shows no difference. Units per arm come from SDK reports, as for SDK events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolloutOps } from '../support/rollout-ops.js';
import { prometheusInstalled, reportMissingPrometheus, startPrometheus, type RunningPrometheus } from '../support/prometheus.js';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

const HOUR_MS = 3_600_000;
const SAMPLE_EVERY_S = 10;
/** Some hours back, on the hour: within Prometheus's retention, and clear of its head block. */
const T0 = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 26 * HOUR_MS;

/**
 * The exporter of a checkout service whose new version errs three times as often: its counters
 * every 10 s for two hours from T0, as OpenMetrics with timestamps. Per minute, the treatment arm
 * has 6 errors and the control arm 2; both arms observe 6 latencies of 0.15 s and 0.25 s, alternately.
 */
function checkoutExposition(): string {
  const lines: string[] = [];
  const family = (name: string, series: Array<{ labels: string; step: (i: number) => number }>) => {
    lines.push(`# TYPE ${name} counter`);
    for (const s of series) {
      let total = 0;
      for (let i = 0; i <= (2 * 3600) / SAMPLE_EVERY_S; i++) {
        total += s.step(i);
        lines.push(`${name}_total{${s.labels}} ${Number(total.toFixed(6))} ${T0 / 1000 + i * SAMPLE_EVERY_S}`);
      }
    }
  };
  family('checkout_errors', [
    { labels: 'flag="new-checkout",arm="treatment"', step: (i) => (i > 0 ? 1 : 0) },
    { labels: 'flag="new-checkout",arm="control"', step: (i) => (i > 0 && i % 3 === 0 ? 1 : 0) },
  ]);
  const latency = (i: number) => (i % 2 === 0 ? 0.15 : 0.25);
  for (const arm of ['treatment', 'control']) {
    family(`checkout_latency_observations_${arm}`, [{ labels: `arm="${arm}"`, step: (i) => (i > 0 ? 1 : 0) }]);
    family(`checkout_latency_seconds_${arm}`, [{ labels: `arm="${arm}"`, step: (i) => (i > 0 ? latency(i) : 0) }]);
    family(`checkout_latency_squares_${arm}`, [{ labels: `arm="${arm}"`, step: (i) => (i > 0 ? latency(i) ** 2 : 0) }]);
  }
  lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}

const ERRORS = { events: 'checkout_errors_total{flag="{{key}}",arm="{{arm}}"}' };
/** One family per arm (a selector may place `{{arm}}` anywhere, the metric's name too). */
const LATENCY = {
  events: 'checkout_latency_observations_{{arm}}_total',
  sum: 'checkout_latency_seconds_{{arm}}_total',
  sumSquares: 'checkout_latency_squares_{{arm}}_total',
};

describe('guard metrics from Prometheus: what a definition may say', () => {
  let withUrl: TestServer;
  let without: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;

  beforeAll(async () => {
    // Nothing is read from it here: definitions are checked when they are written.
    [withUrl, without] = await Promise.all([startTestServer({ PROMETHEUS_URL: 'http://127.0.0.1:9/' }), startTestServer()]);
    owner = await claim(withUrl);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
  });
  afterAll(async () => {
    await withUrl?.close();
    await without?.close();
  });

  it('refuses a source the kind cannot use, a selector without {{arm}} or with another placeholder, each by its field, and answers the source it keeps', async () => {
    const refused = async (body: Parameters<typeof owner.session.createGuardMetric>[0]['body']) =>
      (await expectApiError(owner.session.createGuardMetric({ path: { id: projectId }, body }), 400, 'invalid_request')).fields;
    expect(await refused({ key: 'errors', name: 'E', kind: 'count', worse: 'higher', prometheus: { ...ERRORS, sum: LATENCY.sum } })).toEqual({
      'prometheus.sum': 'only for mean metrics: a count metric reads its events alone',
    });
    expect(await refused({ key: 'latency', name: 'L', kind: 'mean', worse: 'higher', prometheus: { events: LATENCY.events, sum: LATENCY.sum } })).toEqual({
      'prometheus.sumSquares': 'required for a mean metric (with events, the number of observations)',
    });
    expect(await refused({ key: 'errors', name: 'E', kind: 'count', worse: 'higher', prometheus: { events: 'checkout_errors_total' } })).toHaveProperty(['prometheus.events']);
    expect(await refused({ key: 'errors', name: 'E', kind: 'count', worse: 'higher', prometheus: { events: 'x_total{arm="{{arm}}",env="{{env}}"}' } })).toHaveProperty([
      'prometheus.events',
    ]);
    expect(await owner.session.listGuardMetrics({ path: { id: projectId } })).toEqual([]);

    const made = await owner.session.createGuardMetric({ path: { id: projectId }, body: { key: 'latency', name: 'Latency', kind: 'mean', worse: 'higher', prometheus: LATENCY } });
    expect(made).toMatchObject({ key: 'latency', event: 'latency', prometheus: LATENCY });
    const sdk = await owner.session.createGuardMetric({ path: { id: projectId }, body: { key: 'crashes', name: 'Crashes', kind: 'count', worse: 'higher' } });
    expect(sdk.prometheus).toBeNull();
  });

  it('refuses a Prometheus source on a server without PROMETHEUS_URL', async () => {
    const other = await claim(without);
    const id = (await other.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    const fields = (await expectApiError(other.session.createGuardMetric({ path: { id }, body: { key: 'errors', name: 'E', kind: 'count', worse: 'higher', prometheus: ERRORS } }), 400, 'invalid_request'))
      .fields;
    expect(fields).toEqual({ prometheus: 'needs the server setting PROMETHEUS_URL' });
  });
});

describe.skipIf(!prometheusInstalled)('guard metrics from a real Prometheus', () => {
  let prometheus: RunningPrometheus;
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;

  beforeAll(async () => {
    prometheus = await startPrometheus(checkoutExposition());
    t = await startTestServer({ PROMETHEUS_URL: prometheus.url });
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'new-checkout', name: 'New checkout', defaultValue: false } });
  });
  afterAll(async () => {
    await t?.close();
    await prometheus?.stop();
  });

  it('reads each arm once a minute: the regressed count metric rolls the step back, the mean metric shows no difference, and SDKs count only units', async () => {
    await owner.session.createGuardMetric({ path: { id: projectId }, body: { key: 'checkout-errors', name: 'Checkout errors', kind: 'count', worse: 'higher', prometheus: ERRORS } });
    await owner.session.createGuardMetric({ path: { id: projectId }, body: { key: 'checkout-latency', name: 'Checkout latency', kind: 'mean', worse: 'higher', prometheus: LATENCY } });
    await owner.session.createRolloutPlan({
      path: { id: projectId },
      body: {
        key: 'guarded',
        name: 'Guarded',
        cadence: 'auto',
        rampSteps: [
          { percent: 10, holdForSeconds: 6 * 3600, guard: { metrics: [{ key: 'checkout-errors' }, { key: 'checkout-latency', action: 'pause' }], minUnitsPerArm: 100 } },
          { percent: 100, holdForSeconds: 0 },
        ],
      },
    });
    await t.setClock(new Date(T0 + 5 * 60_000 + 30_000).toISOString());
    const path = { envId, key: 'new-checkout' };
    await rolloutOps(owner.session, 'flag').put(path, { percent: 10, newValue: true, planKey: 'guarded' });
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'reporter', kind: 'sdk', environments: [envId] } });
    const reporter = t.asToken(token);

    // The ruleset marks the guarded step, but asks SDKs for no event: the server reads them.
    const ruleset = await reporter.getRuleset({ path: { envId } });
    expect(ruleset.primitives.find((p) => p.key === 'new-checkout')?.rollout?.guard).toMatchObject({ events: [] });

    let minutes = 0;
    let sawLatency = false;
    for (; minutes < 30; minutes++) {
      // 200 new units per arm each minute, from an SDK.
      const now = new Date(T0 + (6 + minutes) * 60_000 + 29_000 - 60_000);
      await reporter.reportGuardMetrics({
        path: { envId },
        body: {
          windowStart: new Date(now.getTime() - 29_000).toISOString(),
          windowEnd: now.toISOString(),
          exposures: (['treatment', 'control'] as const).map((arm) => ({ kind: 'flag' as const, key: 'new-checkout', percent: 10, arm, units: 200 })),
          events: [],
        },
      });
      await t.advanceClock(60);
      const rollout = await owner.session.getFlagRollout({ path });
      if (rollout.status !== 'active') break;
      const guard = await owner.session.getFlagRolloutGuard({ path });
      const latency = guard.checks?.metrics.find((m) => m.key === 'checkout-latency');
      if (latency?.estimate) {
        // The same values in both arms: a difference of about nothing, far from a regression.
        expect(Math.abs(latency.estimate.value)).toBeLessThan(0.02);
        expect(latency.eValue).toBeLessThan(latency.threshold);
        sawLatency = true;
      }
    }
    expect(sawLatency).toBe(true);
    const stopped = await owner.session.getFlagRollout({ path });
    expect(stopped).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', percent: 0, lastGuardStop: { action: 'rollback', cause: 'metric', metricKey: 'checkout-errors', stepPercent: 10 } });
    // Three times the errors per unit: the rate ratio's estimate.
    expect(stopped.lastGuardStop!.estimate!.value).toBeGreaterThan(2);
    expect(stopped.lastGuardStop!.estimate!.value).toBeLessThan(4.5);
    expect(minutes).toBeLessThan(20);
    const { events } = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'new-checkout', envId } });
    expect(events.find((e) => e.action === 'rollout.auto_rollback')).toMatchObject({ actorType: 'system', reason: 'guard:checkout-errors' });
  });
});

reportMissingPrometheus('guard metrics from a real Prometheus');
