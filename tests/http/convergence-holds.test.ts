import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { applied } from '../support/rollout-ops.js';
import { scrapeMetrics } from '../support/metrics.js';

/**
 * Ramps and rollbacks that wait on proof (docs/convergence.md): a step's hold starts when enough
 * of the SDK instances seen recently serve the step's version (the rollout's stepVersion, stored
 * on it), a step the fleet does not reach in time pauses the rollout with reason `convergence`,
 * and a rollback records when the fleet served it. The instances here acknowledge through the
 * contract route with the versions the test chooses, on the test clock.
 */
describe('ramps and rollbacks that wait on the fleet', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;
  let token: string;
  const HOUR = 3600;
  const rampSteps = [
    { percent: 10, holdForSeconds: HOUR, holdFromConvergence: { instancesPercent: 99, timeoutSeconds: 600 } },
    { percent: 50, holdForSeconds: HOUR },
    { percent: 100, holdForSeconds: 0 },
  ];

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    for (const key of ['checkout', 'search', 'banner', 'promo']) await owner.session.createFlag({ path: { id: projectId }, body: { key, name: key, defaultValue: false } });
    token = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'fleet', kind: 'sdk', environments: [envId] } })).token;
    await owner.session.createRolloutPlan({ path: { id: projectId }, body: { key: 'proven', name: 'Proven', cadence: 'auto', rampSteps } });
  });
  afterAll(() => t?.close());

  const ack = (instanceId: string, version: number) =>
    t.asToken(token).ackRuleset({ path: { envId }, body: { instanceId, sdk: { name: 'sim', version: '1.0.0' }, version, mode: 'stream' } });
  const envVersion = async () => (await t.asToken(token).getRuleset({ path: { envId } })).version;

  it('starts the hold once 99 % of the instances seen serve the step\'s version, which the rollout stores', async () => {
    await t.setClock('2026-12-02T09:00:00Z');
    const before = await envVersion();
    for (const id of ['a', 'b']) await ack(id, before);

    const entered = await applied(owner.session.putFlagRollout({ path: { envId, key: 'checkout' }, body: { percent: 10, newValue: true, planKey: 'proven' } }));
    const stepVersion = await envVersion();
    expect(entered).toMatchObject({ percent: 10, rampStepIdx: 0, stepVersion, nextStepAt: null, awaitingConvergenceUntil: '2026-12-02T09:10:00.000Z' });

    // One instance of two serves it: 50 %, below 99 %.
    await ack('a', stepVersion);
    await t.setClock('2026-12-02T09:01:00Z');
    expect(await owner.session.getFlagRollout({ path: { envId, key: 'checkout' } })).toMatchObject({ nextStepAt: null, awaitingConvergenceUntil: '2026-12-02T09:10:00.000Z' });

    // Both do (one on a later version): the hold starts now.
    await ack('b', stepVersion + 1);
    await t.setClock('2026-12-02T09:02:00Z');
    expect(await owner.session.getFlagRollout({ path: { envId, key: 'checkout' } })).toMatchObject({ percent: 10, nextStepAt: '2026-12-02T10:02:00.000Z', awaitingConvergenceUntil: null });
    await t.setClock('2026-12-02T10:02:00Z');
    const next = await owner.session.getFlagRollout({ path: { envId, key: 'checkout' } });
    expect(next).toMatchObject({ percent: 50, rampStepIdx: 1, awaitingConvergenceUntil: null, nextStepAt: '2026-12-02T11:02:00.000Z' });
    expect(next.stepVersion).toBe(await envVersion());
  });

  it('pauses with reason convergence when the fleet is not there by the timeout, naming the share, and waits again after a resume', async () => {
    await t.setClock('2026-12-02T12:00:00Z');
    const before = await envVersion();
    for (const id of ['c', 'd', 'e', 'f']) await ack(id, before);
    await owner.session.putFlagRollout({ path: { envId, key: 'search' }, body: { percent: 10, newValue: true, planKey: 'proven' } });
    const stepVersion = await envVersion();
    // The instances keep acknowledging (a heartbeat), three of four on the step.
    for (let minute = 1; minute <= 10; minute++) {
      for (const id of ['c', 'd', 'e']) await ack(id, stepVersion);
      await ack('f', before);
      await t.setClock(new Date(Date.parse('2026-12-02T12:00:00Z') + minute * 60_000));
    }
    const paused = await owner.session.getFlagRollout({ path: { envId, key: 'search' } });
    expect(paused).toMatchObject({ status: 'paused', pausedReason: 'convergence', percent: 10, pausedAtPercent: 10, awaitingConvergenceUntil: null });
    expect(paused.allowedActions).toEqual(expect.arrayContaining(['resume', 'advance', 'rollback', 'cancel']));
    const { events } = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'search', envId } });
    expect(events.find((e) => e.action === 'rollout.paused')).toMatchObject({
      actorType: 'system',
      reason: `convergence: 3 of 4 SDK instances (75.0%) served v${stepVersion} or later after 600 s; the step waits for 99%`,
    });

    const resumed = await applied(owner.session.resumeFlagRollout({ path: { envId, key: 'search' } }));
    expect(resumed).toMatchObject({ status: 'active', percent: 10, nextStepAt: null, awaitingConvergenceUntil: '2026-12-02T12:20:00.000Z' });
  });

  it('starts the hold at once when no SDK instance was seen recently: nothing to wait for', async () => {
    await t.setClock('2026-12-03T09:00:00Z'); // every acknowledgement above is older than the window
    await owner.session.putFlagRollout({ path: { envId, key: 'banner' }, body: { percent: 10, newValue: true, planKey: 'proven' } });
    await t.setClock('2026-12-03T09:00:01Z');
    expect(await owner.session.getFlagRollout({ path: { envId, key: 'banner' } })).toMatchObject({ nextStepAt: '2026-12-03T10:00:01.000Z', awaitingConvergenceUntil: null });
  });

  it('refuses holding from convergence on the final step, on a manual plan, and a share or timeout out of range, each by its field', async () => {
    const hold = { instancesPercent: 99, timeoutSeconds: 600 };
    const refused = async (body: Parameters<typeof owner.session.createRolloutPlan>[0]['body'], code: string) =>
      (await expectApiError(owner.session.createRolloutPlan({ path: { id: projectId }, body }), 400, code)).fields;
    expect(
      await refused({ key: 'final', name: 'F', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: HOUR }, { percent: 100, holdForSeconds: 0, holdFromConvergence: hold }] }, 'rollout_plan_invalid_ramp'),
    ).toHaveProperty(['rampSteps.1.holdFromConvergence']);
    expect(
      await refused({ key: 'manual', name: 'M', cadence: 'manual', rampSteps: [{ percent: 10, holdForSeconds: HOUR, holdFromConvergence: hold }, { percent: 100, holdForSeconds: 0 }] }, 'rollout_plan_invalid_ramp'),
    ).toHaveProperty(['rampSteps.0.holdFromConvergence']);
    expect(
      await refused({ key: 'low', name: 'L', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: HOUR, holdFromConvergence: { instancesPercent: 40, timeoutSeconds: 600 } }, { percent: 100, holdForSeconds: 0 }] }, 'invalid_request'),
    ).toHaveProperty(['rampSteps.0.holdFromConvergence.instancesPercent']);
    expect(
      await refused({ key: 'short', name: 'S', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: HOUR, holdFromConvergence: { instancesPercent: 99, timeoutSeconds: 5 } }, { percent: 100, holdForSeconds: 0 }] }, 'invalid_request'),
    ).toHaveProperty(['rampSteps.0.holdFromConvergence.timeoutSeconds']);
  });

  it('records when 99 % of the fleet served a rollback: on the rollout, in an audit row and in the webhook event', async () => {
    const subscription = await owner.session.createWebhookSubscription({
      path: { id: projectId },
      body: { name: 'fleet', url: 'https://hooks.example.com/gradual', events: ['rollout.rollback_converged'] },
    });
    const T0 = Date.parse('2026-12-04T09:00:00Z');
    const at = (ms: number) => t.setClock(new Date(T0 + ms));
    await at(-60_000);
    await applied(owner.session.putFlagRollout({ path: { envId, key: 'promo' }, body: { percent: 30, newValue: true } }));
    const live = await envVersion();
    for (const id of ['g', 'h', 'i']) await ack(id, live);

    await at(0);
    await owner.session.rollbackFlagRollout({ path: { envId, key: 'promo' }, headers: { 'x-audit-reason': 'checkout errors' } });
    const version = await envVersion();
    for (const [ms, id] of [[150, 'g'], [400, 'h'], [900, 'i']] as const) {
      await at(ms); // each move runs a scheduler tick: fewer than 99 % serve it until the last
      expect((await owner.session.getFlagRollout({ path: { envId, key: 'promo' } })).lastRollbackConvergence).toBe(null);
      await ack(id, version);
    }
    await at(1000);
    const rolledBack = await owner.session.getFlagRollout({ path: { envId, key: 'promo' } });
    const recorded = { version, rolledBackAt: '2026-12-04T09:00:00.000Z', convergedAt: '2026-12-04T09:00:00.900Z', convergedMs: 900, instances: 3, serving: 3 };
    expect(rolledBack).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', stepVersion: version, lastRollbackConvergence: recorded });

    const { events } = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'promo', envId } });
    expect(events.filter((e) => e.action === 'rollout.rollback_converged')).toEqual([
      expect.objectContaining({ actorType: 'system', reason: `convergence: 3 of 3 SDK instances served v${version} or later 900 ms after the rollback`, version: null }),
    ]);
    const { items } = await owner.session.listWebhookDeliveries({ path: { id: projectId, subscriptionId: subscription.id } });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ eventType: 'rollout.rollback_converged', payload: { type: 'rollout.rollback_converged', data: { rollbackConvergence: recorded } } });

    // In the metrics: the fleet by state, and the rollback's time.
    const metrics = await scrapeMetrics(t.server.url);
    expect(metrics.sample(`gradual_sdk_instances{env_id="${envId}",state="current"}`)).toBe(3);
    expect(metrics.sample(`gradual_sdk_instances{env_id="${envId}",state="behind"}`)).toBe(0);
    expect(metrics.sample('gradual_rollback_convergence_seconds_count')).toBe(1);
    expect(metrics.sample('gradual_rollback_convergence_seconds_sum')).toBeCloseTo(0.9);

    // Recorded once: later ticks leave it.
    await at(60_000);
    expect((await owner.session.listWebhookDeliveries({ path: { id: projectId, subscriptionId: subscription.id } })).items).toHaveLength(1);
  });
});
