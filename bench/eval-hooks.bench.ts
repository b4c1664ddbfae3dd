/**
 * `eval-hooks`: what the live client's evaluation hooks cost per evaluation. The same
 * `getBoolean(key, ctx, false)` loop over a flag at a 37.5% rollout (a `createFlagClient`
 * started from a bootstrap ruleset, its network stubbed out), on these clients:
 *
 * - no hook (the baseline);
 * - `onEvaluation: () => {}` (a no-op hook: the cost of calling out at all);
 * - `exposures` with a no-op `track`, every evaluation a new exposure (distinct ids, so the
 *   de-duplication set is always full and evicting: the worst case);
 * - `exposures` with a no-op `track`, 1,000 users evaluated over and over (de-duplication hits:
 *   the usual case of a server answering the same users);
 * - guard reporting on (the rollout holds at a guarded step, docs/guards.md; every other client has
 *   it off), every evaluation a new unit of its arm (the worst case) and 1,000 users repeated (the
 *   usual case: each unit counted once), its report sent inside the measured time;
 * - the default client (usage reporting on) with and without guard reporting, 1,000 users
 *   repeated: the goal is ≤ 5 % more CPU with it, measured apart by alternating the two clients
 *   over many short runs (ABBA) and summing each one's CPU (`BENCH_EVAL_HOOKS_PAIRED_RUNS`, 64;
 *   40 in quick mode), in fresh processes holding those two clients alone
 *   (`BENCH_EVAL_HOOKS_PROCESSES`, 9; 3 in quick mode), of which the median counts: the ratio
 *   differs between processes by more than within one. Against the client without any reporting the ratio is reported too: there
 *   guard reporting also pays for the call out of the evaluation, which usage reporting, on by
 *   default, already makes;
 * - `track()` of a watched event, per call (each evaluates the guarded flag for the context).
 *
 * A round evaluates every id once per client (the exposure clients' pending batches flushed
 * inside the measured time, so delivery is counted), wall time and process CPU per
 * evaluation, order rotated each round; median over the rounds. Each round checks that every
 * client admitted exactly the contexts the evaluator admits (37.5% ± 1 point of the ids) and that
 * `track` received exactly the exposures expected (every id, or each of the 1,000 users once over
 * the whole run).
 *
 * Quick mode (`BENCH_EVAL_HOOKS_QUICK=1`, about 10 s): 20,000 ids, 3 rounds after 1 warm-up.
 * Needs no database: runs once whatever the backends.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createFlagClient, type Exposure, type FlagClient, type FlagClientOptions } from '@gradual/sdk';
import { compileRuleset, type EvaluationContext, type Ruleset } from '@gradual/sdk/evaluation';
import type { Backend } from './lib/backends.js';
import { goal, series, type BenchResult, type Series } from './lib/report.js';
import { collectGarbage, elapsed, median, ratioOf, type Ratio } from './lib/stats.js';

const QUICK = process.env.BENCH_EVAL_HOOKS_QUICK === '1';
const N = QUICK ? 20_000 : 100_000;
const ROUNDS = Number(process.env.BENCH_EVAL_HOOKS_ROUNDS ?? (QUICK ? 3 : 7));
const WARMUP_ROUNDS = QUICK ? 1 : 3;
const USERS = 1_000;
/** Runs of each client in the alternated measurement of the guard's bar. */
const PAIRED_RUNS = Number(process.env.BENCH_EVAL_HOOKS_PAIRED_RUNS ?? (QUICK ? 40 : 64));
const PAIRED_BLOCKS = 8;
/** Fresh processes the alternated measurement runs in, one after the other; the median counts. */
const PAIRED_PROCESSES = Number(process.env.BENCH_EVAL_HOOKS_PROCESSES ?? (QUICK ? 3 : 9));
const PAIRED_CHILD = fileURLToPath(new URL('./lib/eval-hooks-paired.ts', import.meta.url));
const execFileAsync = promisify(execFile);
const PERCENT = 37.5;
const KEY = 'checkout-v2';

/**
 * A fetch that never answers (until aborted), so the client serves its bootstrap and never syncs;
 * a guard report is accepted at once.
 */
const silentFetch: typeof fetch = (input, init) =>
  new Promise((resolve, reject) => {
    const url = input instanceof Request ? input.url : String(input);
    const accepted = (body: string) => resolve(new Response(body, { status: 202, headers: { 'content-type': 'application/json' } }));
    if (url.endsWith('/guard-metrics')) return accepted('{"accepted":0,"skipped":0,"dropped":0}');
    if (url.endsWith('/usage')) return accepted('{"accepted":0,"skipped":0,"dropped":0,"overLimit":0}');
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal?.aborted) reject(signal.reason as Error);
    signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });

interface Subject {
  name: string;
  client: FlagClient;
  contexts: EvaluationContext[];
  /** Exposures `track` received (exposure subjects). */
  tracked: { count: number } | null;
  /** Exposures this round must deliver, given how many were delivered before it. */
  expected: ((before: number) => number) | null;
}

interface Round {
  wallNs: number;
  cpuNs: number;
  admitted: number;
}

/**
 * `a`'s cost over `b`'s: `runs` runs of each in ABBA order (so neither always goes first after
 * the other), CPU and wall summed per client; the ratio of the sums, and its spread over
 * PAIRED_BLOCKS consecutive blocks of the runs.
 */
async function pairedRatio(run: (s: Subject) => Promise<Round>, a: Subject, b: Subject, runs: number, check: (s: Subject, r: Round) => void) {
  const blocks = Array.from({ length: PAIRED_BLOCKS }, () => ({ a: { cpu: 0, wall: 0 }, b: { cpu: 0, wall: 0 } }));
  for (let i = 0; i < runs; i++) {
    const block = blocks[Math.floor((i * PAIRED_BLOCKS) / runs)]!;
    const order = i % 2 === 0 ? ([a, b] as const) : ([b, a] as const);
    for (const s of order) {
      const r = await run(s);
      check(s, r);
      const into = s === a ? block.a : block.b;
      into.cpu += r.cpuNs;
      into.wall += r.wallNs;
    }
  }
  const total = (k: 'cpu' | 'wall', side: 'a' | 'b') => blocks.reduce((n, x) => n + x[side][k], 0);
  const of = (k: 'cpu' | 'wall') => ratioOf(total(k, 'a') / total(k, 'b'), blocks.map((x) => x.a[k] / x.b[k]), `over ${PAIRED_BLOCKS} blocks`);
  return { cpu: of('cpu'), wall: of('wall') };
}

/**
 * What every measurement here shares: the ruleset (one flag at a 37.5% rollout holding at a guarded
 * step), the contexts, the clients' options, a round of one client and its check against the
 * evaluator.
 */
function fixture() {
  const ruleset: Ruleset = {
    envId: 'env-bench',
    version: 1,
    primitives: [
      {
        kind: 'flag',
        key: KEY,
        value: false,
        rules: [],
        rollout: {
          id: 'r-bench',
          status: 'active',
          percent: PERCENT,
          seed: `${KEY}:production`,
          bucketField: 'userId',
          newValue: true,
          targetIds: [],
          guard: { since: '2026-12-01T12:00:00.000Z', events: ['checkout-errors'] },
        },
      },
    ],
  };
  const distinct: EvaluationContext[] = Array.from({ length: N }, (_, i) => ({ userId: `user-${i}`, plan: i % 3 ? 'free' : 'pro' }));
  const repeated: EvaluationContext[] = Array.from({ length: N }, (_, i) => distinct[i % USERS]!);
  const base: FlagClientOptions = {
    baseUrl: 'http://127.0.0.1:9',
    envId: 'env-bench',
    mode: 'poll',
    pollIntervalMs: 3_600_000,
    requestTimeoutMs: 3_600_000,
    bootstrap: ruleset,
    fetch: silentFetch,
    logger: null,
    // Hooks alone; usage reporting is measured by local-eval; guard reporting only where named.
    sendUsage: false,
    guardIntervalMs: 0,
  };
  const runRound = async (s: Subject): Promise<Round> => {
    const { client, contexts } = s;
    const before = s.tracked?.count ?? 0;
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    let admitted = 0;
    for (let i = 0; i < N; i++) if (client.getBoolean(KEY, contexts[i]!, false)) admitted++;
    await client.flush();
    const t1 = process.hrtime.bigint();
    const c = process.cpuUsage(c0);
    if (s.tracked && s.expected) {
      const delivered = s.tracked.count - before;
      if (delivered !== s.expected(before)) throw new Error(`${s.name}: track received ${delivered} exposures, expected ${s.expected(before)}`);
    }
    return { wallNs: Number(t1 - t0) / N, cpuNs: ((c.user + c.system) * 1000) / N, admitted };
  };
  // The evaluator itself decides who is admitted; every client must agree with it exactly.
  const compiled = compileRuleset(ruleset);
  const admittedIn = (contexts: EvaluationContext[]) => contexts.filter((ctx) => compiled.evaluate(KEY, ctx)?.value === true).length;
  const expectedAdmitted = new Map([distinct, repeated].map((c) => [c, admittedIn(c)]));
  const share = (100 * expectedAdmitted.get(distinct)!) / N;
  if (Math.abs(share - PERCENT) > 1) throw new Error(`the evaluator admitted ${share.toFixed(2)}% of the ids, expected ${PERCENT}% ± 1`);
  const check = (s: Subject, r: Round) => {
    const expected = expectedAdmitted.get(s.contexts)!;
    if (r.admitted !== expected) throw new Error(`${s.name}: ${r.admitted} evaluations got the new value, the evaluator says ${expected}`);
  };
  return { distinct, repeated, base, runRound, check };
}

/**
 * The guard's bar in this process: the default client (usage reporting on) without and with guard
 * reporting, 1,000 users repeated, alternated over `runs` runs each (pairedRatio). The bench runs
 * it in fresh processes (bench/lib/eval-hooks-paired.ts): the ratio differs more between processes
 * than within one (where each process's objects and compiled code land), so one process alone
 * does not decide the bar.
 */
export async function guardBarInThisProcess(runs: number): Promise<{ cpu: Ratio; wall: Ratio }> {
  const { base, repeated, runRound, check } = fixture();
  const users = USERS.toLocaleString('en');
  const without: Subject = { name: `usage, ${users} users repeated`, client: createFlagClient({ ...base, sendUsage: true }), contexts: repeated, tracked: null, expected: null };
  const withIt: Subject = { name: `usage and guard arms, ${users} users repeated`, client: createFlagClient({ ...base, sendUsage: true, guardIntervalMs: 10_000 }), contexts: repeated, tracked: null, expected: null };
  try {
    await Promise.all([without.client.ready(), withIt.client.ready()]);
    for (let w = 0; w < WARMUP_ROUNDS; w++) for (const s of [without, withIt]) check(s, await runRound(s));
    return await pairedRatio(runRound, withIt, without, runs, check);
  } finally {
    await Promise.all([without.client.close(), withIt.client.close()]);
  }
}

/** guardBarInThisProcess in a fresh process of the same node and flags as this one. */
async function guardBarInAProcess(runs: number): Promise<{ cpu: Ratio; wall: Ratio }> {
  const { stdout } = await execFileAsync(process.execPath, [...process.execArgv, PAIRED_CHILD, String(runs)], { env: process.env, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { cpu: Ratio; wall: Ratio };
}

export async function benchEvalHooks(_backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const { distinct, repeated, base, runRound, check } = fixture();
  const counter = () => {
    const tracked = { count: 0 };
    return { tracked, track: (batch: Exposure[]) => void (tracked.count += batch.length) };
  };
  const allNew = counter();
  const repeats = counter();
  const subjects: Subject[] = [
    { name: 'no hook', client: createFlagClient(base), contexts: distinct, tracked: null, expected: null },
    { name: 'onEvaluation no-op', client: createFlagClient({ ...base, onEvaluation: () => {} }), contexts: distinct, tracked: null, expected: null },
    {
      name: 'exposures, every evaluation new',
      client: createFlagClient({ ...base, exposures: { track: allNew.track, flushIntervalMs: 1000, batchSize: 100 } }),
      contexts: distinct,
      tracked: allNew.tracked,
      // More distinct ids than the de-duplication set holds: every evaluation is delivered again.
      expected: () => N,
    },
    {
      name: `exposures, ${USERS.toLocaleString('en')} users repeated`,
      client: createFlagClient({ ...base, exposures: { track: repeats.track, flushIntervalMs: 1000, batchSize: 100 } }),
      contexts: repeated,
      tracked: repeats.tracked,
      expected: (before) => (before === 0 ? USERS : 0),
    },
    { name: 'guard arms, every evaluation new', client: createFlagClient({ ...base, guardIntervalMs: 10_000 }), contexts: distinct, tracked: null, expected: null },
    // The baseline of the repeated cases: the same 1,000 context objects (they stay in the CPU's caches).
    { name: `no hook, ${USERS.toLocaleString('en')} users repeated`, client: createFlagClient(base), contexts: repeated, tracked: null, expected: null },
    { name: `guard arms, ${USERS.toLocaleString('en')} users repeated`, client: createFlagClient({ ...base, guardIntervalMs: 10_000 }), contexts: repeated, tracked: null, expected: null },
    // The default client: usage reporting on (its window sent inside the measured time).
    { name: `usage, ${USERS.toLocaleString('en')} users repeated`, client: createFlagClient({ ...base, sendUsage: true }), contexts: repeated, tracked: null, expected: null },
    { name: `usage and guard arms, ${USERS.toLocaleString('en')} users repeated`, client: createFlagClient({ ...base, sendUsage: true, guardIntervalMs: 10_000 }), contexts: repeated, tracked: null, expected: null },
  ];
  const DEFAULT_GUARDED = subjects.length - 1;
  const DEFAULT_CLIENT = subjects.length - 2;
  const GUARD_REPEATED = subjects.length - 3;
  const REPEATED_BASELINE = subjects.length - 4;
  try {
    await Promise.all(subjects.map((s) => s.client.ready()));
    for (let w = 0; w < WARMUP_ROUNDS; w++) for (const s of subjects) check(s, await runRound(s));
    const samples = new Map<Subject, Round[]>(subjects.map((s) => [s, []]));
    for (let r = 0; r < ROUNDS; r++) {
      collectGarbage();
      for (let k = 0; k < subjects.length; k++) {
        const s = subjects[(k + r) % subjects.length]!;
        const round = await runRound(s);
        check(s, round);
        samples.get(s)!.push(round);
      }
      log(`  eval-hooks round ${r + 1}/${ROUNDS}: ns/eval ${subjects.map((s) => `${s.name} ${samples.get(s)!.at(-1)!.wallNs.toFixed(0)}`).join(', ')}`);
    }

    // track() of a watched event: each call evaluates the guarded flag for the context.
    const tracker = subjects[GUARD_REPEATED]!.client;
    const trackNs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < N; i++) tracker.track('checkout-errors', repeated[i]);
      await tracker.flush();
      trackNs.push(Number(process.hrtime.bigint() - t0) / N);
    }

    const out: Series[] = [];
    const ratios: BenchResult['ratios'] = [];
    const baseline = samples.get(subjects[0]!)!;
    for (const s of subjects) {
      const rs = samples.get(s)!;
      out.push(series(`getBoolean(), ${s.name}, wall`, rs.map((x) => x.wallNs), false, 'ns'));
      out.push(series(`  same, process CPU`, rs.map((x) => x.cpuNs), false, 'ns'));
      if (s === subjects[0]) continue;
      const perRound = rs.map((x, k) => x.wallNs / baseline[k]!.wallNs);
      ratios.push({ label: `${s.name} / no hook, wall`, ...ratioOf(median(rs.map((x) => x.wallNs)) / median(baseline.map((x) => x.wallNs)), perRound, 'over the rounds') });
      const perRoundCpu = rs.map((x, k) => x.cpuNs / baseline[k]!.cpuNs);
      ratios.push({ label: `${s.name} / no hook, CPU`, ...ratioOf(median(rs.map((x) => x.cpuNs)) / median(baseline.map((x) => x.cpuNs)), perRoundCpu, 'over the rounds') });
    }
    out.push(series('track() of a watched event, wall', trackNs, false, 'ns'));
    // The guard's bar: the same client and contexts with and without guard reporting.
    const pair = (withIt: number, without: number, metric: 'cpuNs' | 'wallNs') => {
      const a = samples.get(subjects[withIt]!)!;
      const b = samples.get(subjects[without]!)!;
      return ratioOf(median(a.map((x) => x[metric])) / median(b.map((x) => x[metric])), a.map((x, k) => x[metric] / b[k]![metric]), 'over the rounds');
    };
    const users = USERS.toLocaleString('en');
    ratios.push({ label: `guard arms / no hook, both ${users} users repeated, wall`, ...pair(GUARD_REPEATED, REPEATED_BASELINE, 'wallNs') });
    ratios.push({ label: `guard arms / no hook, both ${users} users repeated, CPU`, ...pair(GUARD_REPEATED, REPEATED_BASELINE, 'cpuNs') });
    ratios.push({ label: `usage and guard arms / usage (the default client), both ${users} users repeated, wall`, ...pair(DEFAULT_GUARDED, DEFAULT_CLIENT, 'wallNs') });
    const guardCpu = pair(DEFAULT_GUARDED, DEFAULT_CLIENT, 'cpuNs');
    ratios.push({ label: `usage and guard arms / usage (the default client), both ${users} users repeated, CPU`, ...guardCpu });
    // The bar itself, measured apart: the two default clients alternated in ABBA order over many
    // short runs, CPU and wall summed per client (drift and other processes' bursts fall on both
    // alike), the ratio of the sums; in PAIRED_PROCESSES fresh processes, one after the other, of
    // which the median counts.
    const perProcess: Array<{ cpu: Ratio; wall: Ratio }> = [];
    for (let k = 0; k < PAIRED_PROCESSES; k++) {
      perProcess.push(await guardBarInAProcess(PAIRED_RUNS));
      log(`  eval-hooks paired, process ${k + 1}/${PAIRED_PROCESSES}: CPU ×${perProcess.at(-1)!.cpu.value.toFixed(3)} (blocks ×${perProcess.at(-1)!.cpu.lo.toFixed(3)}–×${perProcess.at(-1)!.cpu.hi.toFixed(3)}), wall ×${perProcess.at(-1)!.wall.value.toFixed(3)}`);
    }
    const acrossProcesses = (k: 'cpu' | 'wall') => {
      const values = perProcess.map((p) => p[k].value);
      return ratioOf(median(values), values, `over ${PAIRED_PROCESSES} processes`);
    };
    const paired = { cpu: acrossProcesses('cpu'), wall: acrossProcesses('wall') };
    const pairedLabel = `usage and guard arms / usage, alternated ABBA over ${PAIRED_RUNS} runs each, median of ${PAIRED_PROCESSES} processes`;
    ratios.push({ label: `${pairedLabel}, wall`, ...paired.wall });
    ratios.push({ label: `${pairedLabel}, CPU`, ...paired.cpu });
    const goals = [goal(`guard arms on the default client (${users} users repeated, alternated runs, median of ${PAIRED_PROCESSES} processes): CPU per evaluation`, paired.cpu.value, 1.05, 'x')];
    return {
      id: 'eval-hooks',
      title: `live client evaluation hooks, ${N.toLocaleString('en')} evaluations per round${QUICK ? ' (quick mode)' : ''}`,
      backend: 'none',
      backendLabel: 'in process (no database)',
      series: out,
      ratios,
      goals,
      notes: [
        `${ROUNDS} rounds after ${WARMUP_ROUNDS} warm-up, order rotated; ns per getBoolean(), median over rounds; exposure clients' pending batches flushed inside the measured time`,
        `exposures: batchSize 100, default de-duplication (10,000 remembered); "every evaluation new": ${N.toLocaleString('en')} distinct userIds, each delivered; "repeated": ${USERS.toLocaleString('en')} userIds, each delivered once over the run (checked every round)`,
      ],
      details: { n: N, rounds: ROUNDS, warmupRounds: WARMUP_ROUNDS, quick: QUICK, users: USERS },
      wallMs: elapsed(wall),
    };
  } finally {
    await Promise.all(subjects.map((s) => s.client.close()));
  }
}
