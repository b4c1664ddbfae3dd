/**
 * 1. Target IDs bulk add: 100,000 NEW target IDs in one `POST …/rollout/target-ids/add` through
 * the generated SDK (API key) against a real server, each run into a fresh rollout.
 *
 * Baseline, in the same run and on the same database connection (the server's own pool):
 * the same 100,000 IDs inserted into another fresh rollout with one
 * `insert … select …, unnest($1::text[]) … on conflict do nothing` statement: the textbook
 * set-based bulk insert (and what the store runs for a list that is not empty). For an empty
 * list the store skips the conflict check (`select distinct`, no `on conflict`), so the whole
 * request can come in under this baseline; the ratio shows the request's cost (client JSON
 * encoding, HTTP, body parsing, zod validation, authorization, the transaction with the
 * rollout row lock, count update, env version bump and audit row) net of that saving.
 *
 * Runs are paired (API, baseline) and the order alternates within pairs so drift on a noisy
 * machine hits both sides alike; a first, smaller pair is a warm-up and is not counted. IDs are random
 * UUIDs (new rows in random key order, the harder case for the primary key index).
 */
import { randomUUID } from 'node:crypto';
import { rawQuery } from '../server/src/features/common/sql.js';
import { startBenchServer, type Backend } from './lib/backends.js';
import { profileCpu, renderCpu } from './lib/cpu-profile.js';
import { cpuSince, cpuSnapshot } from './lib/cpu-time.js';
import { applied, setUpTenant } from './lib/instance.js';
import { goal, series, type BenchResult } from './lib/report.js';
import { profileSql, renderSqlProfile } from './lib/sql-profile.js';
import { collectGarbage, elapsed, median, ratioOf } from './lib/stats.js';

const IDS = 100_000;
const RUNS = Number(process.env.BENCH_TARGET_IDS_RUNS ?? 5);
const WARMUP = 1;
/** The warm-up pair (JIT, connections, caches) needs no full-size batch. */
const WARMUP_IDS = 10_000;
const GOAL_MS = { postgres: 1500, embedded: 3000 } as const;
const PROFILE = process.env.BENCH_PROFILE === '1';

export async function benchTargetIdsAdd(backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const notes: string[] = [];
  const t = await startBenchServer(backend);
  try {
    const tenant = await setUpTenant(t);
    const envId = tenant.envIds[0]!;
    const db = t.server.deps.db;
    const total = WARMUP + RUNS;
    // A fresh, empty rollout per measured insert, on both sides.
    const rolloutIds = new Map<string, string>();
    for (let i = 0; i < total; i++) {
      for (const side of ['api', 'sql']) {
        const key = `${side}-${i}`;
        await tenant.owner.createFlag({ path: { id: tenant.projectId }, body: { key, name: key, defaultValue: false } });
        const rollout = applied(await tenant.owner.putFlagRollout({ path: { envId, key }, body: { percent: 0, newValue: true } }));
        rolloutIds.set(key, rollout.id);
      }
    }

    const api: number[] = [];
    const sql: number[] = [];
    const apiCpu: number[] = [];
    const sqlCpu: number[] = [];
    const profile: Record<string, unknown> = {};
    for (let i = 0; i < total; i++) {
      const size = i < WARMUP ? WARMUP_IDS : IDS;
      const ids = Array.from({ length: size }, () => randomUUID());
      const viaApi = async () => {
        const key = `api-${i}`;
        const profiling = PROFILE && i === WARMUP;
        collectGarbage();
        const cpu = await cpuSnapshot(db);
        const start = performance.now();
        const call = () => tenant.api.addFlagTargetIds({ path: { envId, key }, body: { targetIds: ids } });
        const res = applied(profiling ? await profiled(call, notes, profile) : await call());
        const ms = elapsed(start);
        const spent = await cpuSince(db, cpu);
        if (res.added !== size || res.count !== size) throw new Error(`API add of ${key}: ${JSON.stringify(res)}`);
        return { ms, cpuMs: spent.processMs + (spent.serverMs ?? 0) };
      };
      const viaSql = async () => {
        collectGarbage();
        const cpu = await cpuSnapshot(db);
        const start = performance.now();
        const { rowCount } = await rawQuery(
          db.em(),
          `insert into rollout_target_ids (list_id, target_id) select ?, t from unnest(?::text[]) as t on conflict do nothing`,
          [rolloutIds.get(`sql-${i}`)!, ids],
        );
        const ms = elapsed(start);
        const spent = await cpuSince(db, cpu);
        if (rowCount !== size) throw new Error(`baseline insert: ${rowCount} rows`);
        return { ms, cpuMs: spent.processMs + (spent.serverMs ?? 0) };
      };
      let a: { ms: number; cpuMs: number };
      let b: { ms: number; cpuMs: number };
      if (i % 2 === 0) {
        a = await viaApi();
        b = await viaSql();
      } else {
        b = await viaSql();
        a = await viaApi();
      }
      log(`  target-ids ${i < WARMUP ? 'warm-up' : `run ${i - WARMUP + 1}`}: API ${a.ms.toFixed(0)} ms, baseline ${b.ms.toFixed(0)} ms`);
      if (i < WARMUP) continue;
      api.push(a.ms);
      sql.push(b.ms);
      apiCpu.push(a.cpuMs);
      sqlCpu.push(b.cpuMs);
    }

    // Check the API side really stored the IDs (and nothing else).
    const { rows } = await rawQuery<{ n: number }>(db.em(), `select count(*)::int as n from rollout_target_ids where list_id in (select coalesce(target_list_id, id) from rollouts where id = any(?::uuid[]))`, [
      [...rolloutIds].filter(([k]) => k.startsWith('api-')).map(([, id]) => id),
    ]);
    const expected = IDS * RUNS + WARMUP_IDS * WARMUP;
    if (rows[0]!.n !== expected) throw new Error(`API rollouts hold ${rows[0]!.n} IDs, expected ${expected}`);
    notes.push(`verified: every API add answered { added: ${IDS}, count: ${IDS} }; the API rollouts hold exactly the ${expected} IDs sent`);
    const cpuNote = backend.kind === 'postgres' ? 'this process + the PostgreSQL backends' : 'this process, PGlite thread included';
    notes.push(
      `IDs: random UUIDs (~${Math.round(((IDS * 39) / 1024 / 1024) * 10) / 10} MiB JSON body); ${WARMUP} warm-up pair of ${WARMUP_IDS} IDs not counted; CPU = ${cpuNote}`,
    );

    const pairRatios = api.map((x, k) => x / sql[k]!);
    const main = series(`API add ${IDS.toLocaleString('en')} IDs (SDK → server)`, api);
    return {
      id: 'target-ids',
      title: `Target IDs bulk add (${IDS.toLocaleString('en')} new IDs, one request)`,
      backend: backend.kind,
      backendLabel: backend.label,
      series: [main, series('baseline: one insert … unnest($1::text[])', sql), series('  CPU time, API add', apiCpu), series('  CPU time, baseline', sqlCpu)],
      ratios: [{ label: 'API / baseline (median of medians)', ...ratioOf(median(api) / median(sql), pairRatios, 'over the per-run pairs') }],
      goals: [goal(`median of ${RUNS} API adds`, main.summary.median, GOAL_MS[backend.kind])],
      notes,
      details: { ids: IDS, runs: RUNS, warmup: WARMUP, pairRatios, ...(PROFILE ? { profile } : {}) },
      wallMs: elapsed(wall),
    };
  } finally {
    await t.close();
  }
}

async function profiled<T>(fn: () => Promise<T>, notes: string[], into: Record<string, unknown>): Promise<T> {
  const { value: inner, cpu } = await profileCpu(() => profileSql(fn));
  into.sql = inner.profile;
  into.cpu = cpu;
  notes.push('BENCH_PROFILE (first measured API add):', ...renderSqlProfile(inner.profile, 8), ...renderCpu(cpu, 12));
  return inner.value;
}
