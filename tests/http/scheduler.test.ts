import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { runSchedulerTick } from '../../server/src/features/rollouts/scheduler.js';
import { SettableClock } from '../../server/src/clock.js';
import { InProcessEnvChangeBus } from '../../server/src/features/environments/env-changes.js';
import { openDatabase } from '../../server/src/db/database.js';
import { rolloutOps } from '../support/rollout-ops.js';

const DAY = 86_400;

describe.each(['flag', 'config'] as const)('scheduler: an auto plan driven by the test clock (%s)', (kind) => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  const path = () => ({ envId, key: 'new-checkout' });

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    if (kind === 'flag') await owner.session.createFlag({ path: { id: project.id }, body: { key: 'new-checkout', name: 'New checkout', defaultValue: false } });
    else await owner.session.createConfig({ path: { id: project.id }, body: { key: 'new-checkout', name: 'New checkout', defaultValue: false } });
    await owner.session.createRolloutPlan({
      path: { id: project.id },
      body: {
        key: 'weekday-ramp',
        name: 'Weekday ramp with sign-off',
        cadence: 'auto',
        blackoutDaysOfWeek: [0, 6],
        blackoutTimezone: 'America/New_York',
        rampSteps: [
          { percent: 5, holdForSeconds: DAY },
          { percent: 25, holdForSeconds: DAY },
          { percent: 50, holdForSeconds: DAY, requiresApproval: true },
          { percent: 100, holdForSeconds: 0 },
        ],
      },
    });
  });
  afterAll(() => t?.close());

  it('lands on the expected percent at every step, across a weekend blackout and the DST change', async () => {
    const ops = rolloutOps(owner.session, kind);
    const get = () => ops.get(path());
    // Thursday 2026-10-29, 12:00 in New York (EDT, UTC-4).
    await t.setClock('2026-10-29T16:00:00Z');
    const started = await ops.put(path(), { percent: 5, newValue: true, planKey: 'weekday-ramp' });
    expect(started).toMatchObject({ percent: 5, rampStepIdx: 0, cadence: 'auto', nextStepAt: '2026-10-30T16:00:00.000Z' });

    // One second early: nothing happens.
    await t.setClock('2026-10-30T15:59:59Z');
    expect(await get()).toMatchObject({ percent: 5, rampStepIdx: 0 });

    // Friday noon: step 1 (25%), next due Saturday noon.
    await t.setClock('2026-10-30T16:00:00Z');
    expect(await get()).toMatchObject({ percent: 25, rampStepIdx: 1, status: 'active', nextStepAt: '2026-10-31T16:00:00.000Z' });

    // Saturday is a blackout day: deferred to Monday 00:00 New York time. DST ended on Sunday
    // 2026-11-01 at 02:00, so Monday midnight is EST (UTC-5) = 05:00Z.
    await t.setClock('2026-10-31T16:00:00Z');
    expect(await get()).toMatchObject({ percent: 25, rampStepIdx: 1, nextStepAt: '2026-11-02T05:00:00.000Z' });
    await t.setClock('2026-11-01T16:00:00Z'); // Sunday: still waiting
    expect(await get()).toMatchObject({ percent: 25, nextStepAt: '2026-11-02T05:00:00.000Z' });

    // Monday 00:00 EST: the next step needs approval, so the rollout pauses at the gate.
    await t.setClock('2026-11-02T05:00:00Z');
    expect(await get()).toMatchObject({ status: 'paused', pausedReason: 'approval_gate', percent: 25, pausedAtPercent: 25, nextStepAt: null });
    // Time passing does not move a gated rollout.
    await t.setClock('2026-11-05T05:00:00Z');
    expect(await get()).toMatchObject({ status: 'paused', percent: 25 });

    // A human approves: the gated step is entered at once.
    const approved = await ops.resume(path());
    expect(approved).toMatchObject({ status: 'active', percent: 50, rampStepIdx: 2, nextStepAt: '2026-11-06T05:00:00.000Z' });

    // Friday 2026-11-06 00:00 EST: the final step completes the rollout.
    await t.setClock('2026-11-06T05:00:00Z');
    expect(await get()).toMatchObject({ status: 'completed', percent: 100, rampStepIdx: 3, nextStepAt: null });
    expect((await ops.state(path())).value).toBe(true);

    const trail = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { envId, limit: 20 } })).events
      .filter((e) => e.resourceType === 'rollout' || e.action === `${kind}.update_value`)
      .reverse()
      .map((e) => [e.action, e.actorType, e.reason]);
    expect(trail).toEqual([
      ['rollout.created', 'user', null],
      ['rollout.advanced', 'system', null],
      ['rollout.approval_gate_reached', 'system', 'Approval gate at step 3 of 4 (50%)'],
      ['rollout.approval_resolved', 'user', null],
      ['rollout.advanced', 'system', null],
      ['rollout.completed', 'system', null],
      [`${kind}.update_value`, 'system', null],
    ]);
  });
});

describe('scheduler: several instances on one database', () => {
  let t: TestServer;
  let owner: ClaimedInstance;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
  });
  afterAll(() => t?.close());

  it('applies each due step exactly once when two schedulers race', async () => {
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'race', name: 'Race' } });
    const env = await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } });
    await owner.session.createRolloutPlan({
      path: { id: project.id },
      body: { key: 'fast', name: 'Fast', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 20, holdForSeconds: 60 }, { percent: 30, holdForSeconds: 0 }] },
    });
    const start = await t.setClock('2026-06-01T10:00:00Z');
    const n = 40;
    for (let i = 0; i < n; i++) {
      await owner.session.createFlag({ path: { id: project.id }, body: { key: `f${i}`, name: `F${i}`, defaultValue: false } });
      await owner.session.putFlagRollout({ path: { envId: env.id, key: `f${i}` }, body: { percent: 10, newValue: true, planKey: 'fast' } });
    }
    const before = (await owner.session.getEnvironment({ path: { envId: env.id } })).version;

    // Two scheduler instances with their own clock and connection, racing over the same due rows.
    // On PostgreSQL the second has its own pool on the same database; embedded PGlite is one
    // session, so both share it (and SKIP LOCKED still guarantees a single winner per row).
    const clock = new SettableClock();
    clock.set(new Date(start.getTime() + 61_000));
    const db = t.server.deps.db;
    const other = db.kind === 'postgres' ? await openDatabase({ ...t.databaseOptions, migrate: false }) : db;
    const deps = (database: typeof db) => ({ db: database, clock, bus: new InProcessEnvChangeBus(), logger: pino({ level: 'silent' }) });
    try {
      const [a, b] = await Promise.all([runSchedulerTick(deps(db), 7), runSchedulerTick(deps(other), 7)]);
      expect(a.transitioned + b.transitioned).toBe(n);
    } finally {
      if (other !== db) await other.close();
    }
    const advanced = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { envId: env.id, resourceType: 'rollout', limit: 200 } })).events.filter(
      (e) => e.action === 'rollout.advanced',
    );
    expect(advanced).toHaveLength(n);
    expect(new Set(advanced.map((e) => e.resourceKey)).size).toBe(n);
    for (let i = 0; i < n; i += 13) {
      expect(await owner.session.getFlagRollout({ path: { envId: env.id, key: `f${i}` } })).toMatchObject({ percent: 20, rampStepIdx: 1 });
    }
    // Each scheduler batch bumped the version once; never more than one bump per rollout.
    const after = (await owner.session.getEnvironment({ path: { envId: env.id } })).version;
    expect(after - before).toBeGreaterThanOrEqual(1);
    expect(after - before).toBeLessThanOrEqual(n);
  });
});
