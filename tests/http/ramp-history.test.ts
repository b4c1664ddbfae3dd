import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRamp } from '../../dashboard/src/ramp-history.js';
import { loadRampHistory } from '../../dashboard/src/ramp-history-load.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { applied } from '../support/rollout-ops.js';

const HOUR = 3600;

/**
 * The dashboard's ramp history read from a real server's audit log: the times, percents and
 * states the transitions recorded, through the SDK client the dashboard uses.
 */
describe('the ramp history from the audit log', () => {
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
    await owner.session.createRolloutPlan({
      path: { id: project.id },
      body: {
        key: 'ramp',
        name: 'Ramp',
        cadence: 'auto',
        blackoutDaysOfWeek: [],
        blackoutTimezone: 'UTC',
        rampSteps: [
          { percent: 25, holdForSeconds: HOUR },
          { percent: 50, holdForSeconds: 5400 },
          { percent: 100, holdForSeconds: 0 },
        ],
      },
    });
  });
  afterAll(() => t?.close());

  it('records start, a scheduled step, a rollback to 0% and a resume, with their times; an earlier rollout is left out', async () => {
    const s = owner.session;
    // An earlier rollout of the same flag, cancelled: its rows are not this rollout's history.
    await t.setClock('2026-11-17T12:00:00Z');
    await applied(s.putFlagRollout({ path: path(), body: { percent: 50, newValue: true } }));
    await applied(s.cancelFlagRollout({ path: path() }));

    await t.setClock('2026-11-18T12:00:00Z');
    const started = await applied(s.putFlagRollout({ path: path(), body: { percent: 25, newValue: true, planKey: 'ramp' } }));
    await t.setClock('2026-11-18T13:00:00Z'); // the scheduler enters 50%
    const secret = await s.createRollbackSecret({ path: { envId }, body: { name: 'alerts' } });
    await t.setClock('2026-11-18T13:30:00Z');
    const fired = await fetch(`${t.url}/api/v1/webhooks/rollback/envs/${envId}/flags/new-checkout`, { method: 'POST', headers: { authorization: `Bearer ${secret.token}` } });
    expect(fired.status).toBeLessThan(300);
    await s.addFlagTargetIds({ path: path(), body: { targetIds: ['u-1'] } });
    await t.setClock('2026-11-18T14:00:00Z');
    const rolledBack = await s.getFlagRollout({ path: path() });
    expect(rolledBack).toMatchObject({ id: started.id, status: 'paused', pausedReason: 'auto_rollback', percent: 0, rolledBackFromPercent: 50 });

    const history = await loadRampHistory(s, 'acme', rolledBack);
    expect(history.map((h) => [new Date(h.at).toISOString(), h.action, h.state.status, h.state.percent])).toEqual([
      ['2026-11-18T12:00:00.000Z', 'rollout.created', 'active', 25],
      ['2026-11-18T13:00:00.000Z', 'rollout.advanced', 'active', 50],
      ['2026-11-18T13:30:00.000Z', 'rollout.auto_rollback', 'paused', 0],
    ]);

    const now = Date.parse('2026-11-18T14:00:00Z');
    const ramp = buildRamp(rolledBack, history, now);
    expect(ramp.segments.filter((x) => x.kind === 'done').map((x) => [new Date(x.from).toISOString(), x.percent])).toEqual([
      ['2026-11-18T12:00:00.000Z', 25],
      ['2026-11-18T13:00:00.000Z', 50],
      ['2026-11-18T13:30:00.000Z', 0],
    ]);
    expect(Math.min(...ramp.segments.map((x) => x.from))).toBe(Date.parse(rolledBack.createdAt));

    // Resumed: back at 50%, and the projection's next step is the server's own nextStepAt.
    await t.setClock('2026-11-18T15:00:00Z');
    const resumed = await applied(s.resumeFlagRollout({ path: path() }));
    const after = await loadRampHistory(s, 'acme', resumed);
    expect(after.map((h) => [h.action, h.state.percent])).toEqual([
      ['rollout.created', 25],
      ['rollout.advanced', 50],
      ['rollout.auto_rollback', 0],
      ['rollout.resumed', 50],
    ]);
    const planned = buildRamp(resumed, after, Date.parse('2026-11-18T15:00:00Z')).marks.filter((m) => m.kind === 'planned');
    expect(planned.map((m) => [new Date(m.at).toISOString(), m.percent])).toEqual([[resumed.nextStepAt, 100]]);
    expect(resumed.nextStepAt).toBe('2026-11-18T16:30:00.000Z');
  });
});
