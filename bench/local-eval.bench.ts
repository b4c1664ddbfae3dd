/**
 * `local-eval`: ns per local evaluation of one flag with an active 37.5% rollout,
 * ours side by side with two peers in the same process and the same run:
 *
 * - ours, the evaluator (`compileRuleset(ruleset).evaluate(key, ctx)`, `@gradual/sdk/evaluation`),
 *   and the live client's `getBoolean(key, ctx, fallback)` (what an application calls; a
 *   `createFlagClient` started from a bootstrap ruleset, its network stubbed out), without usage
 *   reporting (`sendUsage: false`) and with it (the default: every evaluation counted, a report
 *   every 60 s answered 202 by the stub); their ratio is the cost of usage reporting;
 * - `unleash-client` `isEnabled(name, ctx)` with a `flexibleRollout` strategy (stickiness userId),
 *   initialised offline: `bootstrap` data, in-memory storage, `refreshInterval: 0` (never fetches),
 *   metrics off;
 * - `@openfeature/flagd-core` `FlagdCore.resolveBooleanEvaluation` with a `fractional` targeting
 *   rule (weights 375/625), flags set from a JSON string with `setConfigurations`.
 *
 * Two scenarios, each over the same 100,000 distinct ids (mixed shapes, flat strings as JSON
 * would give them): `rollout` (the percentage rollout alone) and `rollout + 1,000 target IDs`
 * (every 100th id on an allow-list that always gets the new value, as the issue describes;
 * unleash: a `default` strategy constrained `userId IN [ids]` before the flexibleRollout;
 * flagd: `if (in targetingKey [ids]) "on" else fractional`).
 *
 * A round evaluates every id once per (scenario, implementation), wall time (hrtime) and
 * process CPU time (user + system) per round, the order of implementations rotated each round.
 * Median of BENCH_LOCAL_EVAL_ROUNDS (default 7) rounds after 3 warm-up rounds. Every round is
 * checked: each implementation's admitted share of the non-listed ids must be within 1 point
 * of 37.5% and every listed id must get the new value (nobody benchmarks a no-op).
 *
 * `BENCH_LOCAL_EVAL_QUICK=1`: our three subjects only (no peers), 15 rounds after 3 warm-up, a few
 * seconds: the usage-reporting overhead and our ns per evaluation.
 *
 * Needs no database: runs once whatever the backends (reported as "in process").
 */
import { once } from 'node:events';
import { FlagdCore } from '@openfeature/flagd-core';
import { createFlagClient, type FlagClient } from '@gradual/sdk';
import { compileRuleset, type EvaluationContext, type Ruleset } from '@gradual/sdk/evaluation';
import { InMemStorageProvider, Unleash } from 'unleash-client';
import type { Backend } from './lib/backends.js';
import { goal, series, type BenchResult, type Series } from './lib/report.js';
import { collectGarbage, elapsed, median, ratioOf } from './lib/stats.js';

const N = 100_000;
const QUICK = process.env.BENCH_LOCAL_EVAL_QUICK === '1';
const ROUNDS = Number(process.env.BENCH_LOCAL_EVAL_ROUNDS ?? (QUICK ? 15 : 7));
const WARMUP_ROUNDS = 3;
const PERCENT = 37.5;
const TOLERANCE_PP = 1;
const KEY = 'checkout-v2';
/** ns per evaluation of the evaluator: a plain 37.5 % rollout, and the same with a 1,000-ID allow-list. */
const GOAL_NS = { rollout: 50, targets: 60 };
const GOAL_VS_FLAGD = 4;
/** Usage reporting may cost the live client's evaluation at most this factor. */
const GOAL_USAGE_OVERHEAD = 1.05;

/** Deterministic ids of mixed shapes (as in sdk/src/evaluation/bench-local.ts), flattened through JSON. */
function makeIds(): string[] {
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
  const ids: string[] = [];
  for (let i = 0; i < N; i++) {
    if (i % 3 === 0) ids.push(`user-${i}`);
    else if (i % 3 === 1) ids.push(`${hex(next(), 8)}-${hex(next() & 0xffff, 4)}-4${hex(next() & 0xfff, 3)}-${hex(next() & 0xffff, 4)}-${hex(next(), 8)}${hex(next() & 0xffff, 4)}`);
    else ids.push(`u${next()}@example.com`);
  }
  return JSON.parse(JSON.stringify(ids)) as string[];
}

interface Counts {
  /** Non-listed ids that got the new value. */
  admitted: number;
  /** Listed ids (every 100th) that got the new value. */
  listedHits: number;
}

/**
 * One implementation in one scenario. `loop` evaluates every id once (contexts prepared up
 * front) and counts who got the new value. Each implementation has its own loop literal, so
 * no call site in a measured loop is shared between implementations (a shared, megamorphic
 * call would add the same few ns to everyone and blur the ratios).
 */
interface Subject {
  impl: string;
  scenario: string;
  loop: (listed: Uint8Array) => Counts;
}

interface Round {
  wallNs: number;
  cpuNs: number;
  admitted: number;
  listedHits: number;
}

function runRound(s: Subject, listed: Uint8Array): Round {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const counts = s.loop(listed);
  const t1 = process.hrtime.bigint();
  const c = process.cpuUsage(c0);
  return { wallNs: Number(t1 - t0) / N, cpuNs: ((c.user + c.system) * 1000) / N, ...counts };
}

/** A fetch that never answers (until aborted): the live client serves its bootstrap and never syncs. */
const silentFetch: typeof fetch = (_input, init) =>
  new Promise((_resolve, reject) => {
    const signal = init?.signal;
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

/** Like silentFetch, but usage reports are accepted at once (202), as the server answers them. */
const usageFetch: typeof fetch = (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  if (url.endsWith('/usage')) return Promise.resolve(new Response('{"accepted":1,"skipped":0}', { status: 202, headers: { 'content-type': 'application/json' } }));
  return silentFetch(input, init);
};

export async function benchLocalEval(_backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const ids = makeIds();
  const listed = new Uint8Array(N);
  for (let i = 0; i < N; i += 100) listed[i] = 1;
  const targetIds = ids.filter((_, i) => listed[i] === 1);
  const nonListed = N - targetIds.length;

  const scenarios = [
    { name: 'rollout', targets: [] as string[], goalNs: GOAL_NS.rollout },
    { name: 'rollout + 1,000 target IDs', targets: targetIds, goalNs: GOAL_NS.targets },
  ];
  const oursCtx: EvaluationContext[] = ids.map((userId) => ({ userId }));
  const unleashCtx = ids.map((userId) => ({ userId }));
  const flagdCtx = ids.map((targetingKey) => ({ targetingKey }));

  const subjects: Subject[] = [];
  const clients: FlagClient[] = [];
  const unleashes: Unleash[] = [];
  try {
    for (const sc of scenarios) {
      // Ours.
      const ruleset: Ruleset = {
        envId: 'env-bench',
        version: 1,
        primitives: [
          {
            kind: 'flag',
            key: KEY,
            value: false,
            rules: [],
            rollout: { id: 'r-bench', status: 'active', percent: PERCENT, seed: `${KEY}:production`, bucketField: 'userId', newValue: true, targetIds: sc.targets },
          },
        ],
      };
      const compiled = compileRuleset(ruleset);
      subjects.push({
        impl: 'ours: evaluator evaluate()',
        scenario: sc.name,
        loop: (listed) => {
          let admitted = 0;
          let listedHits = 0;
          for (let i = 0; i < N; i++) if (compiled.evaluate(KEY, oursCtx[i]!)?.value === true) {
            if (listed[i] === 1) listedHits++;
            else admitted++;
          }
          return { admitted, listedHits };
        },
      });
      const clientOptions = {
        baseUrl: 'http://127.0.0.1:9',
        envId: 'env-bench',
        mode: 'poll',
        pollIntervalMs: 3_600_000,
        requestTimeoutMs: 3_600_000,
        bootstrap: ruleset,
        logger: null,
      } as const;
      const client = createFlagClient({ ...clientOptions, fetch: silentFetch, sendUsage: false });
      clients.push(client);
      await client.ready();
      subjects.push({
        impl: 'ours: live client getBoolean()',
        scenario: sc.name,
        loop: (listed) => {
          let admitted = 0;
          let listedHits = 0;
          for (let i = 0; i < N; i++) if (client.getBoolean(KEY, oursCtx[i]!, false)) {
            if (listed[i] === 1) listedHits++;
            else admitted++;
          }
          return { admitted, listedHits };
        },
      });
      const reporting = createFlagClient({ ...clientOptions, fetch: usageFetch });
      clients.push(reporting);
      await reporting.ready();
      subjects.push({
        impl: 'ours: live client getBoolean() + usage',
        scenario: sc.name,
        loop: (listed) => {
          let admitted = 0;
          let listedHits = 0;
          for (let i = 0; i < N; i++) if (reporting.getBoolean(KEY, oursCtx[i]!, false)) {
            if (listed[i] === 1) listedHits++;
            else admitted++;
          }
          return { admitted, listedHits };
        },
      });
      if (QUICK) continue;

      // unleash-client, offline.
      const strategies: Array<Record<string, unknown>> = [];
      if (sc.targets.length) strategies.push({ name: 'default', parameters: {}, constraints: [{ contextName: 'userId', operator: 'IN', values: sc.targets }] });
      strategies.push({ name: 'flexibleRollout', parameters: { rollout: String(PERCENT), stickiness: 'userId', groupId: KEY }, constraints: [] });
      const unleash = new Unleash({
        appName: 'gradual-bench',
        url: 'http://127.0.0.1:9/api/',
        refreshInterval: 0,
        disableMetrics: true,
        skipInstanceCountWarning: true,
        storageProvider: new InMemStorageProvider(),
        bootstrap: { data: [{ name: KEY, enabled: true, type: 'release', project: 'default', stale: false, impressionData: false, strategies } as never] },
      });
      unleashes.push(unleash);
      unleash.on('error', (err: unknown) => log(`  unleash error: ${String(err)}`));
      // Ready once its bootstrap is loaded (asynchronously, after construction).
      await Promise.race([
        once(unleash, 'ready'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('unleash-client did not become ready from its bootstrap')), 5000).unref()),
      ]);
      subjects.push({
        impl: 'unleash-client isEnabled()',
        scenario: sc.name,
        loop: (listed) => {
          let admitted = 0;
          let listedHits = 0;
          for (let i = 0; i < N; i++) if (unleash.isEnabled(KEY, unleashCtx[i])) {
            if (listed[i] === 1) listedHits++;
            else admitted++;
          }
          return { admitted, listedHits };
        },
      });

      // @openfeature/flagd-core.
      const fractional = { fractional: [['on', 375], ['off', 625]] };
      const targeting = sc.targets.length ? { if: [{ in: [{ var: 'targetingKey' }, sc.targets] }, 'on', fractional] } : fractional;
      const flagd = new FlagdCore();
      flagd.setConfigurations(JSON.stringify({ flags: { [KEY]: { state: 'ENABLED', variants: { on: true, off: false }, defaultVariant: 'off', targeting } } }));
      subjects.push({
        impl: 'flagd-core resolveBoolean…()',
        scenario: sc.name,
        loop: (listed) => {
          let admitted = 0;
          let listedHits = 0;
          for (let i = 0; i < N; i++) if (flagd.resolveBooleanEvaluation(KEY, false, flagdCtx[i]).value) {
            if (listed[i] === 1) listedHits++;
            else admitted++;
          }
          return { admitted, listedHits };
        },
      });
    }

    // Warm-up, then measured rounds, order rotated each round.
    const samples = new Map<Subject, Round[]>(subjects.map((s) => [s, []]));
    const check = (s: Subject, r: Round) => {
      const share = (100 * r.admitted) / nonListed;
      const expectListed = s.scenario === 'rollout' ? Math.round((targetIds.length * PERCENT) / 100) : targetIds.length;
      if (Math.abs(share - PERCENT) > TOLERANCE_PP) throw new Error(`${s.impl} (${s.scenario}) admitted ${share.toFixed(2)}% of the ids, expected ${PERCENT}% ± ${TOLERANCE_PP}`);
      if (s.scenario !== 'rollout' && r.listedHits !== targetIds.length) throw new Error(`${s.impl} (${s.scenario}) gave ${r.listedHits} of ${targetIds.length} listed ids the new value`);
      if (s.scenario === 'rollout' && Math.abs(r.listedHits - expectListed) > targetIds.length * 0.06) {
        throw new Error(`${s.impl} (rollout) admitted ${r.listedHits} of the ${targetIds.length} every-100th ids, expected about ${expectListed}`);
      }
    };
    for (let w = 0; w < WARMUP_ROUNDS; w++) for (const s of subjects) check(s, runRound(s, listed));
    for (let r = 0; r < ROUNDS; r++) {
      collectGarbage();
      const order = subjects.map((_, k) => subjects[(k + r) % subjects.length]!);
      for (const s of order) {
        const round = runRound(s, listed);
        check(s, round);
        samples.get(s)!.push(round);
      }
      const line = scenarios
        .map((sc) => subjects.filter((s) => s.scenario === sc.name).map((s) => samples.get(s)!.at(-1)!.wallNs.toFixed(0)).join('/'))
        .join('; ');
      log(`  local-eval round ${r + 1}/${ROUNDS}: ns/eval ours/getBoolean/getBoolean+usage${QUICK ? '' : '/unleash/flagd'} — ${line}`);
    }

    const out: Series[] = [];
    const ratios: BenchResult['ratios'] = [];
    const goals: BenchResult['goals'] = [];
    const notes: string[] = [];
    const shares: Record<string, Record<string, number>> = {};
    for (const sc of scenarios) {
      const of = (impl: string) => subjects.find((s) => s.scenario === sc.name && s.impl.startsWith(impl))!;
      const ours = samples.get(of('ours: evaluator'))!;
      for (const s of subjects.filter((x) => x.scenario === sc.name)) {
        const rs = samples.get(s)!;
        out.push(series(`[${sc.name}] ${s.impl}, wall`, rs.map((x) => x.wallNs), false, 'ns'));
        out.push(series(`[${sc.name}]   same, process CPU`, rs.map((x) => x.cpuNs), false, 'ns'));
        (shares[sc.name] ??= {})[s.impl] = +((100 * rs.at(-1)!.admitted) / nonListed).toFixed(2);
      }
      const oursMed = median(ours.map((x) => x.wallNs));
      const pairs: Array<[string, Round[], string]> = [
        ['ours: live client getBoolean() + usage', samples.get(of('ours: live client getBoolean()'))!, 'getBoolean() + usage / getBoolean()'],
        ['ours: live client getBoolean()', ours, 'getBoolean() / evaluate()'],
      ];
      if (!QUICK) for (const peer of ['unleash-client', 'flagd-core']) pairs.push([peer, ours, `${peer} / ours (× faster)`]);
      for (const [impl, base, label] of pairs) {
        const p = samples.get(subjects.find((s) => s.scenario === sc.name && s.impl === impl) ?? of(impl))!;
        const perRound = p.map((x, k) => x.wallNs / base[k]!.wallNs);
        const perRoundCpu = p.map((x, k) => x.cpuNs / base[k]!.cpuNs);
        ratios.push({ label: `[${sc.name}] ${label}, wall`, ...ratioOf(median(p.map((x) => x.wallNs)) / median(base.map((x) => x.wallNs)), perRound, 'over the rounds') });
        ratios.push({ label: `[${sc.name}] ${label}, CPU`, ...ratioOf(median(p.map((x) => x.cpuNs)) / median(base.map((x) => x.cpuNs)), perRoundCpu, 'over the rounds') });
      }
      goals.push(goal(`[${sc.name}] ours ns/eval (median wall)`, oursMed, sc.goalNs, 'ns'));
      const plain = samples.get(subjects.find((s) => s.scenario === sc.name && s.impl === 'ours: live client getBoolean()')!)!;
      const withUsage = samples.get(subjects.find((s) => s.scenario === sc.name && s.impl === 'ours: live client getBoolean() + usage')!)!;
      goals.push(
        goal(
          `[${sc.name}] usage reporting: getBoolean() + usage / getBoolean() (median of per-round CPU ratios)`,
          median(withUsage.map((x, k) => x.cpuNs / plain[k]!.cpuNs)),
          GOAL_USAGE_OVERHEAD,
          'x',
        ),
      );
      if (QUICK) continue;
      const flagd = samples.get(of('flagd-core'))!;
      goals.push(
        goal(`[${sc.name}] ours vs flagd-core speed-up (median of per-round ratios)`, median(flagd.map((x, k) => x.wallNs / ours[k]!.wallNs)), GOAL_VS_FLAGD, 'x', 'atLeast'),
      );
    }
    notes.push(
      `${N.toLocaleString('en')} distinct ids, ${ROUNDS} rounds after ${WARMUP_ROUNDS} warm-up, each implementation evaluates every id once per round, order rotated; ns per evaluation, median over rounds`,
      `verified every round: admitted share of the ${nonListed.toLocaleString('en')} non-listed ids within ${TOLERANCE_PP} point of ${PERCENT}% (last round: ${Object.entries(shares)
        .map(([sc, m]) => `${sc}: ${Object.entries(m).map(([k, v]) => `${k.split(' ')[0]!.replace(':', '')} ${v}%`).join(', ')}`)
        .join(' | ')}); with the allow-list, all ${targetIds.length} listed ids get the new value`,
      `unleash flexibleRollout buckets in whole percents (murmur % 100 + 1 ≤ rollout), so "37.5" admits 37%; flagd fractional weights 375/625; ours 37.5% exactly (bucket < 37.5)`,
      `peers initialised offline: unleash-client (bootstrap, InMemStorageProvider, refreshInterval 0, metrics off), flagd-core (setConfigurations from a JSON string); no network in the measured loop`,
    );
    return {
      id: 'local-eval',
      title: `local evaluation, ${N.toLocaleString('en')} ids, ${PERCENT}% rollout: ours vs unleash-client vs flagd-core`,
      backend: 'none',
      backendLabel: 'in process (no database)',
      series: out,
      ratios,
      goals,
      notes,
      details: { n: N, rounds: ROUNDS, warmupRounds: WARMUP_ROUNDS, percent: PERCENT, targetIds: targetIds.length, admittedShares: shares },
      wallMs: elapsed(wall),
    };
  } finally {
    for (const c of clients) await c.close();
    for (const u of unleashes) u.destroy();
  }
}
