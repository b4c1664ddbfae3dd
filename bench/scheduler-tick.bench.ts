/**
 * 3. Scheduler tick over 10,000 due rollouts (auto plan, every rollout due).
 *
 * Setup: through the API, a project with 4 environments, a 10-step auto plan and one template
 * flag whose rollout is attached to the plan (so the rows are exactly what the API writes);
 * then direct SQL clones the template into 10,000 flags (+ their per-env states) and 10,000
 * active rollouts spread over the 4 environments, and the template's rollout is cancelled.
 * Measured: one `runSchedulerTick` (default batch size) with a SettableClock moved just past
 * the due time, on the server's own database handle. Each run moves the clock one hold
 * further, so the same rollouts are due again and advance one more step.
 * Checked after each run: the tick saw 10,000 due and transitioned 10,000; exactly 10,000
 * `rollout.advanced` audit rows at the tick's instant, for 10,000 distinct rollouts; all
 * 10,000 rollouts now sit on the next step with the next due time.
 */
import { pino } from 'pino';
import { SettableClock } from '../server/src/clock.js';
import { InProcessEnvChangeBus } from '../server/src/features/environments/env-changes.js';
import { runSchedulerTick, SCHEDULER_BATCH } from '../server/src/features/rollouts/scheduler.js';
import { rawQuery } from '../server/src/features/common/sql.js';
import { startBenchServer, type Backend } from './lib/backends.js';
import { applied, setUpTenant, type Tenant } from './lib/instance.js';
import type { TestServer } from '../tests/support/server.js';
import { goal, series, type BenchResult } from './lib/report.js';
import { profileCpu, renderCpu } from './lib/cpu-profile.js';
import { cpuSince, cpuSnapshot } from './lib/cpu-time.js';
import { profileSql, renderSqlProfile } from './lib/sql-profile.js';
import { collectGarbage, elapsed, median } from './lib/stats.js';

const ROLLOUTS = Number(process.env.BENCH_SCHEDULER_ROLLOUTS ?? 10_000);
const RUNS = Number(process.env.BENCH_SCHEDULER_RUNS ?? 3);
const ENVS = 4;
export const HOLD_S = 3600;
const GOAL_MS = 10_000;
const PROFILE = process.env.BENCH_PROFILE === '1';
export const T0 = new Date('2030-01-07T12:00:00Z'); // a Monday; the plan has no blackout days anyway

export async function benchSchedulerTick(backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const notes: string[] = [];
  const t = await startBenchServer(backend);
  try {
    const { tenant, seedMs } = await seedDueRollouts(t);
    const db = t.server.deps.db;
    const sql = (text: string, params: Parameters<typeof rawQuery>[2] = []) => rawQuery(db.em(), text, params);
    notes.push(
      `setup: plan + template rollout via the API, then ${ROLLOUTS} flags (+${ROLLOUTS * ENVS} env states) and ${ROLLOUTS} active rollouts ` +
        `cloned from it by direct SQL over ${ENVS} environments, then ANALYZE (${(seedMs / 1000).toFixed(1)} s)`,
    );

    // --- measured ticks
    const clock = new SettableClock();
    const deps = { db, clock, bus: new InProcessEnvChangeBus(), logger: pino({ level: 'silent' }) };
    const samples: number[] = [];
    const profile: Record<string, unknown> = {};
    const bumps: number[] = [];
    const cpu: number[] = [];
    let at = T0;
    for (let run = 1; run <= RUNS; run++) {
      at = new Date(at.getTime() + (HOLD_S + 1) * 1000); // just past the due time of every rollout
      clock.set(at);
      const versionsBefore = await sql(`select coalesce(sum(version), 0)::int as v from environments where project_id = ?`, [tenant.projectId]);
      collectGarbage();
      const cpuBefore = await cpuSnapshot(db);
      // BENCH_PROFILE=1 attributes the first run (SQL waits + CPU profile); it slows that run a little.
      const profiling = PROFILE && run === 1;
      const start = performance.now();
      const result = profiling ? await profiled(() => runSchedulerTick(deps), notes, profile) : await runSchedulerTick(deps);
      const ms = elapsed(start);
      samples.push(ms);
      const spent = await cpuSince(db, cpuBefore);
      cpu.push(spent.processMs + (spent.serverMs ?? 0));

      const check = await sql(
        `select count(*)::int as n, count(distinct resource_id)::int as distinct_rollouts from audit_events
         where action = 'rollout.advanced' and created_at = ?`,
        [at],
      );
      const audit = check.rows[0] as { n: number; distinct_rollouts: number };
      const moved = await sql(
        `select count(*)::int as n from rollouts where status = 'active' and ramp_step_idx = ? and percent = ? and next_step_at = ?`,
        [run, (run + 1) * 10, new Date(at.getTime() + HOLD_S * 1000)],
      );
      const versionsAfter = await sql(`select coalesce(sum(version), 0)::int as v from environments where project_id = ?`, [tenant.projectId]);
      const bumped = (versionsAfter.rows[0]!.v as number) - (versionsBefore.rows[0]!.v as number);
      bumps.push(bumped);
      const ok =
        result.due === ROLLOUTS && result.transitioned === ROLLOUTS && audit.n === ROLLOUTS && audit.distinct_rollouts === ROLLOUTS && moved.rows[0]!.n === ROLLOUTS;
      log(`  scheduler run ${run}: ${(ms / 1000).toFixed(2)} s, due ${result.due}, transitioned ${result.transitioned}, audit rollout.advanced ${audit.n} (${audit.distinct_rollouts} distinct), on step ${run}: ${String(moved.rows[0]!.n)}, env version bumps ${bumped}`);
      if (!ok) throw new Error(`scheduler run ${run} did not advance exactly ${ROLLOUTS} rollouts one step (see above)`);
    }
    const batches = Math.ceil(ROLLOUTS / SCHEDULER_BATCH);
    notes.push(`per rollout: ${((median(samples) / ROLLOUTS) * 1000).toFixed(0)} µs wall, ${((median(cpu) / ROLLOUTS) * 1000).toFixed(0)} µs CPU (medians)`);
    notes.push(
      `verified each run: ${ROLLOUTS} due, ${ROLLOUTS} transitioned, exactly ${ROLLOUTS} rollout.advanced audit rows (distinct rollouts) at the tick instant, ` +
        `${ROLLOUTS} rollouts on the next step; env version bumps per tick: ${bumps.join(', ')} (${batches} batches of ${SCHEDULER_BATCH} × ≤ ${ENVS} envs)`,
    );
    const s = series(`runSchedulerTick, ${ROLLOUTS.toLocaleString('en')} due`, samples);
    return {
      id: 'scheduler',
      title: `Scheduler tick over ${ROLLOUTS.toLocaleString('en')} due rollouts`,
      backend: backend.kind,
      backendLabel: backend.label,
      series: [s, series(`  CPU time (${backend.kind === 'postgres' ? 'this process + PostgreSQL backends' : 'this process, PGlite thread included'})`, cpu)],
      ratios: [],
      goals: [goal(`tick over ${ROLLOUTS} due rollouts, median of ${RUNS}`, s.summary.median, GOAL_MS)],
      notes,
      details: { rollouts: ROLLOUTS, environments: ENVS, batchSize: SCHEDULER_BATCH, envVersionBumps: bumps, ...(PROFILE ? { profile } : {}) },
      wallMs: elapsed(wall),
    };
  } finally {
    await t.close();
  }
}

/**
 * Seeds ROLLOUTS active auto-plan rollouts on step 0 (10%), all due at T0 + HOLD_S, on the
 * server's fresh database; the server's clock is left at T0.
 */
export async function seedDueRollouts(t: TestServer): Promise<{ tenant: Tenant; seedMs: number }> {
  await t.setClock(T0); // before signing in: the session must not expire when the clock jumps
  const tenant = await setUpTenant(t, ENVS);
  const db = t.server.deps.db;
  const em = () => db.em();

  // --- setup through the API: plan + one template rollout
  await tenant.owner.createRolloutPlan({
    path: { id: tenant.projectId },
    body: {
      key: 'ramp',
      name: 'Ten steps',
      cadence: 'auto',
      rampSteps: Array.from({ length: 10 }, (_, i) => ({ percent: (i + 1) * 10, holdForSeconds: i === 9 ? 0 : HOLD_S })),
    },
  });
  const tpl = await tenant.owner.createFlag({ path: { id: tenant.projectId }, body: { key: 'tpl', name: 'Template', defaultValue: false } });
  const tplRollout = applied(
    await tenant.owner.putFlagRollout({ path: { envId: tenant.envIds[0]!, key: 'tpl' }, body: { percent: 10, newValue: true, planKey: 'ramp' } }),
  );
  if (tplRollout.rampStepIdx !== 0 || tplRollout.nextStepAt !== new Date(T0.getTime() + HOLD_S * 1000).toISOString()) {
    throw new Error(`unexpected template rollout ${JSON.stringify(tplRollout)}`);
  }

  // --- bulk clone by SQL
  const seedStart = performance.now();
  const sql = (text: string, params: Parameters<typeof rawQuery>[2] = []) => rawQuery(em(), text, params);
  await sql(
    `insert into primitives (id, org_id, project_id, kind, key, name, description, value_type, default_value, created_at, updated_at)
     select gen_random_uuid(), t.org_id, t.project_id, t.kind, 'bench-' || lpad(g::text, 6, '0'), 'Bench ' || g, null, t.value_type, t.default_value, t.created_at, t.updated_at
     from primitives t, generate_series(1, ?::int) g where t.id = ?`,
    [ROLLOUTS, tpl.id],
  );
  await sql(
    `insert into primitive_states (id, primitive_id, env_id, value, rules, created_at, updated_at)
     select gen_random_uuid(), p.id, s.env_id, s.value, s.rules, s.created_at, s.updated_at
     from primitives p join primitive_states s on s.primitive_id = ?
     where p.project_id = ? and p.key like 'bench-%'`,
    [tpl.id, tenant.projectId],
  );
  await sql(
    `insert into rollouts (id, org_id, project_id, env_id, primitive_id, primitive_kind, primitive_key, status, percent, paused_at_percent,
       paused_reason, rolled_back_from_percent, seed, bucket_field, new_value, gates_rules, plan_key, plan, ramp_step_idx, next_step_at,
       target_ids_count, created_at, updated_at)
     select gen_random_uuid(), r.org_id, r.project_id, e.id, p.id, p.kind, p.key, r.status, r.percent, r.paused_at_percent,
       r.paused_reason, r.rolled_back_from_percent, p.key || ':' || e.key, r.bucket_field, r.new_value, r.gates_rules, r.plan_key, r.plan,
       r.ramp_step_idx, r.next_step_at, 0, r.created_at, r.updated_at
     from rollouts r
     cross join primitives p
     join environments e on e.id = (?::uuid[])[1 + substr(p.key, 7)::int % ${ENVS}]
     where r.id = ? and p.project_id = ? and p.key like 'bench-%'`,
    [tenant.envIds, tplRollout.id, tenant.projectId],
  );
  await tenant.owner.cancelFlagRollout({ path: { envId: tenant.envIds[0]!, key: 'tpl' } });
  await sql('analyze primitives; analyze primitive_states; analyze rollouts; analyze audit_events; analyze environments');
  const seeded = await sql(`select count(*)::int as n from rollouts where status = 'active' and next_step_at is not null`);
  if (seeded.rows[0]!.n !== ROLLOUTS) throw new Error(`seeded ${String(seeded.rows[0]!.n)} due rollouts, expected ${ROLLOUTS}`);
  return { tenant, seedMs: elapsed(seedStart) };
}

async function profiled<T>(fn: () => Promise<T>, notes: string[], into: Record<string, unknown>): Promise<T> {
  const { value: inner, cpu } = await profileCpu(() => profileSql(fn));
  into.sql = inner.profile;
  into.cpu = cpu;
  notes.push(...renderSqlProfile(inner.profile, 10), ...renderCpu(cpu, 14));
  return inner.value;
}
