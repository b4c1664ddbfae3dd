/**
 * `worst-rules`: time per local evaluation of the costliest rulesets the contract accepts, which
 * the evaluator's work budget (sdk/src/evaluation/rules.ts, rule 10) must keep under a millisecond:
 *
 * - `worst legal segment graph`: segments nested as deep as the server allows (5), each segment with
 *   the most rules (100) and conditions (50) a segment may have, every rule's conditions matching
 *   up to the last one, which names every segment of the next level (or fails, at the deepest);
 *   a flag with the most rules (200 × 50) naming the first level. Without memoized membership this
 *   is exponential in the depth; with it, tens of thousands of conditions, so the budget ends it
 *   (reason ERROR). More or wider segments cost the same: the budget, not the graph, bounds it.
 * - `worst legal string conditions`: a flag's rules of `contains` conditions with 1,000 values of
 *   1,024 characters each, shaped against the string search (`b` + 1,019 × `a` + 4 digits), and
 *   a context whose attribute is 2,000 × `a`: long enough to be costly, short enough that one
 *   condition's 1,000 values fit in the budget and are all searched (a longer attribute is
 *   refused by the budget before any search).
 * - baseline: the flag's own legal maximum of plain conditions (200 rules × 50 `in` conditions,
 *   every rule failing on its last one): 10,000 conditions, decided (reason DEFAULT).
 *
 * Median and p99 of single evaluations (distinct contexts), wall time. Needs no database.
 */
import { compileRuleset, RULE_WORK_BUDGET, type Condition, type EvaluationContext, type Rule, type Ruleset, type RulesetSegment } from '@gradual/sdk/evaluation';
import type { Backend } from './lib/backends.js';
import { goal, series, type BenchResult } from './lib/report.js';
import { median, percentile, ratioOf } from './lib/stats.js';

const EVALUATIONS = Number(process.env.BENCH_WORST_RULES_EVALUATIONS ?? 300);
const GOAL_MS = 1;
const DEPTH = 5;
const WIDTH = 3;

const matching = (n: number): Condition[] => Array.from({ length: n }, () => ({ attribute: 'plan', operator: 'in', values: ['pro'] }));
const segKey = (level: number, i: number) => `level-${level}-${i}`;
const levelKeys = (level: number) => Array.from({ length: WIDTH }, (_, i) => segKey(level, i));

function segmentGraph(): Ruleset {
  const segments: RulesetSegment[] = [];
  for (let level = 0; level < DEPTH; level++) {
    for (let i = 0; i < WIDTH; i++) {
      const last: Condition =
        level + 1 < DEPTH
          ? { attribute: 'userId', operator: 'in_segment', values: levelKeys(level + 1) }
          : { attribute: 'country', operator: 'in', values: ['nowhere'] };
      const rules: Rule[] = Array.from({ length: 100 }, () => ({ conditions: [...matching(49), last], value: null }));
      segments.push({ key: segKey(level, i), included: [], excluded: [], rules });
    }
  }
  const rules: Rule[] = Array.from({ length: 200 }, (_, r) => ({
    conditions: [...matching(49), { attribute: 'userId', operator: 'in_segment', values: levelKeys(0) }],
    value: r,
  }));
  return { envId: 'bench', version: 1, primitives: [{ kind: 'flag', key: 'f', value: false, rules, rollout: null }], segments };
}

function stringConditions(): Ruleset {
  const needles = Array.from({ length: 1000 }, (_, i) => `b${'a'.repeat(1019)}${String(i).padStart(4, '0')}`);
  const rules: Rule[] = Array.from({ length: 200 }, (_, r) => ({
    conditions: Array.from({ length: 50 }, () => ({ attribute: 'bio', operator: 'contains', values: needles })),
    value: r,
  }));
  return { envId: 'bench', version: 1, primitives: [{ kind: 'flag', key: 'f', value: false, rules, rollout: null }] };
}

function plainMaximum(): Ruleset {
  const rules: Rule[] = Array.from({ length: 200 }, (_, r) => ({
    conditions: [...matching(49), { attribute: 'country', operator: 'in', values: ['nowhere'] }],
    value: r,
  }));
  return { envId: 'bench', version: 1, primitives: [{ kind: 'flag', key: 'f', value: false, rules, rollout: null }] };
}

interface Measured {
  ms: number[];
  reasons: Map<string, number>;
}

function measure(ruleset: Ruleset, context: (i: number) => EvaluationContext): Measured {
  const compiled = compileRuleset(ruleset);
  const ms: number[] = [];
  const reasons = new Map<string, number>();
  for (let i = 0; i < 20; i++) compiled.evaluate('f', context(-1 - i));
  for (let i = 0; i < EVALUATIONS; i++) {
    const ctx = context(i);
    const t0 = process.hrtime.bigint();
    const r = compiled.evaluate('f', ctx);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r) reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
  }
  return { ms, reasons };
}

export function benchWorstRules(_backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const bio = 'a'.repeat(2_000);
  const cases: Array<{ name: string; ruleset: () => Ruleset; context: (i: number) => EvaluationContext }> = [
    { name: 'plain maximum (200 rules × 50 conditions), baseline', ruleset: plainMaximum, context: (i) => ({ userId: `user-${i}`, plan: 'pro', country: 'NZ' }) },
    { name: 'worst legal segment graph', ruleset: segmentGraph, context: (i) => ({ userId: `user-${i}`, plan: 'pro', country: 'NZ' }) },
    { name: 'worst legal string conditions (2,000-character attribute)', ruleset: stringConditions, context: (i) => ({ userId: `user-${i}`, bio }) },
  ];
  const out = [];
  const goals = [];
  const notes: string[] = [];
  const medians = new Map<string, number>();
  const sortedBy = new Map<string, number[]>();
  for (const c of cases) {
    log(`  ${c.name} …`);
    const m = measure(c.ruleset(), c.context);
    const sorted = [...m.ms].sort((a, b) => a - b);
    medians.set(c.name, median(m.ms));
    sortedBy.set(c.name, sorted);
    out.push(series(c.name, m.ms, true));
    notes.push(`${c.name}: reasons ${[...m.reasons].map(([r, n]) => `${r} × ${n}`).join(', ')}`);
    if (c.name.startsWith('worst')) goals.push(goal(`${c.name}: p99 per evaluation`, percentile(sorted, 99), GOAL_MS));
  }
  const base = sortedBy.get(cases[0]!.name)!;
  const ratios = cases.slice(1).map((c) => {
    const s = sortedBy.get(c.name)!;
    const at = (p: number) => percentile(s, p) / percentile(base, p);
    return { label: `${c.name} / plain maximum (medians)`, ...ratioOf(at(50), [at(10), at(90)], 'ratio of the 10th and 90th percentiles') };
  });
  notes.push(`${EVALUATIONS} evaluations per case, distinct contexts, after 20 warm-up; budget ${RULE_WORK_BUDGET.toLocaleString('en')} units (rules.ts)`);
  return Promise.resolve({ id: 'worst-rules', title: 'Worst legal rulesets: ms per local evaluation', backend: 'none', backendLabel: 'in process', series: out, ratios, goals, notes, wallMs: performance.now() - wall });
}
