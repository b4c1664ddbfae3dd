/**
 * Micro-benchmark of the local evaluator's hot path (not a test).
 *
 *   node --import tsx sdk/src/evaluation/bench-local.ts
 *
 * One flag with a 37.5% rollout and a 1,000-entry target-ID allow-list;
 * 100,000 distinct ids and their contexts generated up front; each round
 * evaluates every context once through `compileRuleset(...).evaluate(key, ctx)`.
 * Reports the median ns/evaluation of 7 rounds (after warm-up) and the spread,
 * in wall-clock time and in process CPU time (the latter is steadier when other
 * processes compete for the cores).
 */
import { compileRuleset } from './evaluate.js';
import type { EvaluationContext, Ruleset } from './types.js';

const N = 100_000;
const ROUNDS = 7;

// Deterministic pseudo-random ids (xorshift32), mixed shapes like real user ids.
let state = 0x9e3779b9;
function next(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return state >>> 0;
}
function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}
const ids: string[] = [];
for (let i = 0; i < N; i++) {
  switch (i % 3) {
    case 0:
      ids.push(`user-${i}`);
      break;
    case 1:
      ids.push(`${hex(next(), 8)}-${hex(next() & 0xffff, 4)}-4${hex(next() & 0xfff, 3)}-${hex(next() & 0xffff, 4)}-${hex(next(), 8)}${hex(next() & 0xffff, 4)}`);
      break;
    default:
      ids.push(`u${next()}@example.com`);
  }
}
// Ids normally arrive through JSON.parse (request bodies, SDK callers' data),
// which yields flat strings; the template literals above build rope strings,
// so round-trip them through JSON to bench the realistic representation.
const flatIds = JSON.parse(JSON.stringify(ids)) as string[];
const contexts: EvaluationContext[] = flatIds.map((userId, i) => ({ userId, plan: i % 2 === 0 ? 'pro' : 'free' }));
// 1,000 target IDs: every 100th id is on the allow-list.
const targetIds = flatIds.filter((_, i) => i % 100 === 0);

const ruleset: Ruleset = {
  envId: 'env-bench',
  version: 1,
  primitives: [
    {
      kind: 'flag',
      key: 'checkout-v2',
      value: false,
      rules: [],
      rollout: {
        id: 'r-bench',
        status: 'active',
        percent: 37.5,
        seed: 'checkout-v2:production',
        bucketField: 'userId',
        newValue: true,
        targetIds,
      },
    },
  ],
};

const compiled = compileRuleset(ruleset);

/** The measured loop: evaluates every context once; returns a checksum so nothing is optimised away. */
function evaluateAll(): number {
  let acc = 0;
  for (let i = 0; i < N; i++) {
    const r = compiled.evaluate('checkout-v2', contexts[i] as EvaluationContext);
    if (r !== undefined) acc += r.variant === 'rollout-new' ? 1 : r.variant === 'target-id' ? 1_000_000 : 0;
  }
  return acc;
}

interface Round {
  /** wall-clock ns per evaluation */
  ns: number;
  /** process CPU (user + system) ns per evaluation: less sensitive to other processes on a shared machine */
  cpuNs: number;
  admitted: number;
  targeted: number;
}

function round(): Round {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const acc = evaluateAll();
  const t1 = process.hrtime.bigint();
  const c = process.cpuUsage(c0);
  return {
    ns: Number(t1 - t0) / N,
    cpuNs: ((c.user + c.system) * 1000) / N,
    admitted: acc % 1_000_000,
    targeted: Math.floor(acc / 1_000_000),
  };
}

// Warm-up (JIT).
for (let i = 0; i < 10; i++) round();

const rounds: Round[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(round());

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  const min = sorted[0] as number;
  const max = sorted[sorted.length - 1] as number;
  return `median ${median.toFixed(1)} ns/eval (min ${min.toFixed(1)}, max ${max.toFixed(1)}, spread ${(max - min).toFixed(1)} ns)`;
}

const wall = rounds.map((r) => r.ns);
const wallMedian = [...wall].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] as number;
const last = rounds[ROUNDS - 1] as Round;
console.log(`node ${process.version}, ${N.toLocaleString('en')} distinct ids, ${targetIds.length} target IDs, 37.5% rollout, ${ROUNDS} rounds`);
console.log(`wall: ${wall.map((s) => s.toFixed(1)).join(', ')} ns/eval`);
console.log(`wall ${summary(wall)}`);
console.log(`cpu  ${summary(rounds.map((r) => r.cpuNs))}`);
console.log(`sanity: admitted by percent ${last.admitted} (${((last.admitted / N) * 100).toFixed(2)}%), target_id ${last.targeted}`);
console.log(wallMedian <= 100 ? 'goal <= 100 ns (wall median): met' : 'goal <= 100 ns (wall median): NOT met');
