/**
 * `npm run bench`: the performance benchmarks, each on embedded PGlite and (when reachable)
 * PostgreSQL, each against a fresh database it creates and drops (`local-eval` needs no
 * database and runs once). Prints a table per benchmark and PASS/FAIL per goal, writes
 * bench/results/latest.json. Exits 0 whatever the goals say; non-zero only when a benchmark
 * crashed.
 *
 * Ids:
 *   target-ids     100,000 target IDs added to a rollout in one request
 *   target-ids-replace
 *                  a 1,000,000-ID replace end to end, and another organization's GET p50/p99
 *                  during it against at rest (BENCH_REPLACE_IDS overrides the size)
 *   segment-target-ids-replace
 *                  a 1,000,000-ID replace of a segment's list beside a rollout's, on one server
 *   contains       `contains` lookups against 1,000,000 listed IDs (vs a bare node:http + Set)
 *   scheduler      one scheduler tick over 10,000 due rollouts
 *   local-eval     ns per local evaluation, 100,000 ids, 37.5% rollout (± 1,000 target IDs):
 *                  our evaluator and live client (without and with usage reporting) vs
 *                  unleash-client and @openfeature/flagd-core (BENCH_LOCAL_EVAL_QUICK=1: ours only,
 *                  15 rounds, a few seconds)
 *   eval-hooks     ns per live-client evaluation with no hook, a no-op onEvaluation hook and batched
 *                  exposures (all new; 1,000 users repeated), and the ratios to no hook
 *                  (BENCH_EVAL_HOOKS_QUICK=1: 20,000 evaluations × 3 rounds, about 10 s)
 *   worst-rules    ms per local evaluation of the costliest legal rulesets (nested segments at the
 *                  contract's maxima, `contains` with 1,000 long values) vs the flag's own maximum of
 *                  plain conditions: the evaluator's work budget at work
 *   propagation    rollout write → streaming live client sees the new value, 200 writes (vs the
 *                  write's own round trip)
 *   rollback-fire  rollback webhook fire → streaming client sees the rollback (vs the fire's round
 *                  trip), and fire endpoint throughput at 50 in flight (vs GET /healthz)
 *   fan-out        write → the last of N streaming connections (raw SSE readers in a pool of
 *                  processes) receives the new version, N = 1,000 … 10,000, vs a bare node:http SSE
 *                  broadcaster sending the same bytes to the same connections; idle memory per stream
 *                  (BENCH_FANOUT_QUICK=1: 1,000 and 2,000 streams, under a minute)
 *   server-load    autocannon against a production start (ruleset 304/200, evaluate, rollout PUT)
 *                  vs a bare node:http server replaying the same bytes; latency at 50% of max; soak
 *
 *   BENCH_ONLY=target-ids,contains,…          run a subset (comma-separated ids)
 *   BENCH_BACKENDS=embedded|postgres|all      restrict the backends (default all reachable)
 *   BENCH_DATABASE_URL / DATABASE_URL         PostgreSQL admin database (default 127.0.0.1:5432/postgres)
 *   BENCH_PROFILE=1                           attribute time: SQL waits per statement + CPU profile
 *                                             (first measured target-ID add, an extra contains round,
 *                                             the first scheduler tick)
 *   BENCH_TARGET_IDS_RUNS, BENCH_CONTAINS_ROUNDS, BENCH_SCHEDULER_RUNS, BENCH_SCHEDULER_ROLLOUTS
 *                                             override the counts (defaults: 5, 4 × 500, 3, 10,000)
 *   BENCH_LOAD_SECONDS, BENCH_SOAK_SECONDS, BENCH_LOAD_CONNECTIONS
 *                                             server-load: seconds per run (8), soak length (60; the
 *                                             full run in docs/benchmarks.md uses 600), connections (32)
 *   BENCH_LOAD_LATENCY_RUNS                   server-load: paced runs at half the maximum (3; the goal
 *                                             takes the median run's p99)
 *   BENCH_LOAD_MAX_ROUNDS                     server-load: maximum-throughput rounds per scenario (2)
 *   BENCH_LOAD_SCENARIOS=ruleset-304,…        server-load: only these scenarios, no soak
 *   BENCH_SERVER_CPU_PROF=<dir>, BENCH_SERVER_NODE_ARGS="--trace-gc …"
 *                                             diagnose a production start (contains, server-load):
 *                                             its CPU profile (read it with bench/lib/show-cpu-profile.ts),
 *                                             extra node flags
 * Not a benchmark: bench/gc-probe.ts reports heap allocated and promoted per request for each
 * server-load scenario and /healthz (from the server's --trace-gc-nvp), to find GC pressure.
 *   BENCH_LOCAL_EVAL_ROUNDS (7), BENCH_PROPAGATION_WRITES (200), BENCH_PROPAGATION_GAP_MS (25),
 *   BENCH_ROLLBACK_FIRES (120), BENCH_ROLLBACK_THROUGHPUT_ROUNDS (3 × 1,000 fires)
 *   BENCH_FANOUT_COUNTS (1000,2500,5000,10000), BENCH_FANOUT_WRITES (20 per count), BENCH_FANOUT_PROCS
 *   (4 client processes), BENCH_FANOUT_GAP_MS (100), BENCH_FANOUT_GC=0 (no inspector, RSS without a GC);
 *   10,000 streams need `ulimit -n` ≥ 10,512 (the server inherits the bench's limit)
 *
 * On a busy machine wall times inflate; the CPU-time rows (this process, plus the PostgreSQL
 * backends when local) and the same-run ratios are the steadier numbers.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchContains } from './contains.bench.js';
import { benchEvalHooks } from './eval-hooks.bench.js';
import { benchFanOut } from './fan-out.bench.js';
import { benchLocalEval } from './local-eval.bench.js';
import { benchPropagation } from './propagation.bench.js';
import { benchRollbackFire } from './rollback-fire.bench.js';
import { detectBackends, type Backend } from './lib/backends.js';
import { render, summaryTable, writeJson, type BenchResult } from './lib/report.js';
import { collectGarbage } from './lib/stats.js';
import { benchSchedulerTick } from './scheduler-tick.bench.js';
import { benchServerLoad } from './server-load.bench.js';
import { benchTargetIdsAdd } from './target-ids-add.bench.js';
import { benchTargetIdsReplace } from './target-ids-replace.bench.js';
import { benchWorstRules } from './worst-rules.bench.js';
import { benchSegmentTargetIdsReplace } from './segment-target-ids-replace.bench.js';

type Bench = (backend: Backend, log: (msg: string) => void) => Promise<BenchResult>;

/** `noDatabase`: runs once (on the first backend's turn), not once per backend. */
const BENCHES: Array<{ id: string; run: Bench; noDatabase?: boolean }> = [
  { id: 'target-ids', run: benchTargetIdsAdd },
  { id: 'target-ids-replace', run: benchTargetIdsReplace },
  { id: 'segment-target-ids-replace', run: benchSegmentTargetIdsReplace },
  { id: 'contains', run: benchContains },
  { id: 'scheduler', run: benchSchedulerTick },
  { id: 'server-load', run: benchServerLoad },
  { id: 'local-eval', run: benchLocalEval, noDatabase: true },
  { id: 'eval-hooks', run: benchEvalHooks, noDatabase: true },
  { id: 'worst-rules', run: benchWorstRules, noDatabase: true },
  { id: 'propagation', run: benchPropagation },
  { id: 'rollback-fire', run: benchRollbackFire },
  { id: 'fan-out', run: benchFanOut },
];

const RESULTS_PATH = fileURLToPath(new URL('./results/latest.json', import.meta.url));

async function main(): Promise<number> {
  const started = performance.now();
  // The test harness can put a validating proxy in front of the server; never measure through it.
  delete process.env.GRADUAL_TEST_VIA_PRISM;
  const log = (msg: string) => console.log(msg);
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim()).filter(Boolean);
  const selected = BENCHES.filter((b) => !only || only.includes(b.id));
  const { backends, notes } = await detectBackends();
  const machine = { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, memGiB: +(totalmem() / 2 ** 30).toFixed(1), loadavg: loadavg() };
  log(`Gradual bench — ${selected.map((b) => b.id).join(', ')} on ${backends.map((b) => b.kind).join(' + ')}`);
  log(`machine: node ${machine.node}, ${machine.cpus} × ${machine.cpuModel ?? '?'}, load average ${machine.loadavg.map((l) => l.toFixed(2)).join(' ')} at start`);
  for (const n of notes) log(`· ${n}`);
  const busy = () => loadavg()[0]! > cpus().length;
  if (busy()) log(`! the machine is busy (load average above ${cpus().length} cores): wall times are inflated, compare the CPU-time rows and the ratios`);

  const results: BenchResult[] = [];
  const failures: Array<{ bench: string; backend: string; error: string }> = [];
  for (const bench of selected) {
    for (const backend of bench.noDatabase ? backends.slice(0, 1) : backends) {
      log(`\n… ${bench.id}${bench.noDatabase ? ' (in process, no database)' : ` on ${backend.kind}`}`);
      try {
        const result = await bench.run(backend, log);
        results.push(result);
        log(render(result));
      } catch (err) {
        const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
        failures.push({ bench: bench.id, backend: bench.noDatabase ? 'none' : backend.kind, error });
        console.error(`✗ ${bench.id} on ${backend.kind} crashed:\n${error}`);
      }
      collectGarbage();
    }
  }

  const wallMs = performance.now() - started;
  log(`\nGoals (informational: the bench exits 0 whatever they say)\n${summaryTable(results)}`);
  log(`\ntotal wall time ${(wallMs / 1000).toFixed(1)} s; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at end${busy() ? ' (busy machine)' : ''}`);
  await writeJson(RESULTS_PATH, {
    startedAt: new Date(Date.now() - wallMs).toISOString(),
    wallMs,
    machine: { ...machine, loadavgAtEnd: loadavg() },
    backendNotes: notes,
    results,
    crashed: failures,
  });
  log(`results: ${RESULTS_PATH}`);
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
