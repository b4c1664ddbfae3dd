/**
 * Rule and condition matching.
 *
 * Semantics (a decision, the same in the SDK and the server since both run this code):
 *
 * 1. A rule matches when ALL of its conditions match (AND). A rule with no
 *    conditions matches every context (a catch-all). Rules are tried in order;
 *    the first match wins (evaluate.ts).
 * 2. Within one condition the `values` are alternatives (OR): `in` matches when
 *    the attribute equals any value, the string operators when any value is a
 *    prefix / suffix / substring, the numeric operators when the comparison
 *    holds against any value (so `gt [18, 21]` means "> 18"). `not_in` matches
 *    when the attribute equals NONE of the values.
 * 3. The attribute is `context[attribute]` (plain property access, top-level
 *    keys only; no dotted paths).
 * 4. Scalars: a string, a number, a boolean or a bigint. The attribute is
 *    MISSING when it is undefined, null, or not a scalar and not an array
 *    (objects, functions; this also covers names inherited from
 *    Object.prototype such as "constructor"). A missing attribute makes the
 *    condition NOT match, whatever the operator, `not_in` included (as in
 *    LaunchDarkly): "country not_in [US]" does not catch contexts that do not
 *    send a country. Missing attributes never match anything.
 * 5. Equality (`in`, `not_in`) and the string operators (`starts_with`,
 *    `ends_with`, `contains`) compare canonical strings: a scalar attribute is
 *    turned into `String(v)` and so is each condition value (numbers as
 *    JavaScript's `String(n)`). So `1` matches `in ["1"]`, `"1"` matches
 *    `in [1]`, `true` matches `in ["true"]` (the only way to target a boolean,
 *    since condition values are strings or numbers), and `"1.0"` does NOT match
 *    `in [1]` (its canonical form is "1"). This is the same stringification the
 *    bucketing and target-ID match use. Comparisons are case-sensitive and
 *    exact (no trimming or Unicode normalisation). An empty string value is a
 *    prefix/suffix/substring of every present attribute.
 * 6. Numeric operators (`gt`, `gte`, `lt`, `lte`) compare numbers. A finite
 *    number is used as is; a string is used when it is a plain decimal numeral
 *    (optional sign, digits, optional fraction, optional exponent, no
 *    whitespace, no hex, not empty), e.g. "42", "-3.5", "1e3"; bigints are
 *    converted with Number(); booleans, other strings, NaN and ±Infinity never
 *    match. Condition values follow the same rule; values that are not numeric
 *    are ignored (a condition with no numeric value never matches).
 * 7. Arrays: an attribute that is an array is treated as the set of its scalar
 *    elements (non-scalar elements and nested arrays are ignored). Positive
 *    operators match when ANY element matches; `not_in` matches when NO element
 *    is in `values` (so an empty array matches `not_in` and nothing else).
 * 8. An operator this version does not know (a newer server) never matches,
 *    so the rule is skipped rather than the evaluation failing.
 * 9. Segments (`in_segment` / `not_in_segment`, `values` = segment keys): `in_segment` holds
 *    when the context is in ANY of the named segments, `not_in_segment` when it is in NONE.
 *    The context is in segment S when v, the canonical string of `context[attribute]` (the
 *    same stringification as the target-ID match), is one of S's `included` IDs; otherwise
 *    not when v is one of S's `excluded` IDs; otherwise when it matches ANY of S's rules (each
 *    rule: all of its conditions, segment conditions nested to any depth). Rule 4 does not
 *    apply to the segment operators: a context without the attribute (or with an array or
 *    object there) is in no included or excluded list, and S's rules still decide. A key the
 *    ruleset has no segment for names a segment nobody is in (so `not_in_segment [unknown]`
 *    holds). A segment on a reference cycle (which the server refuses to store) is treated as
 *    unknown, so evaluation always terminates.
 * 10. Cost. Within one evaluation a segment's membership is decided once per attribute value
 *    (memoized), so shared and nested segments cost what their rules hold, not the product of
 *    every path to them. And one evaluation of a primitive's rules may spend at most
 *    RULE_WORK_BUDGET units: one per condition tried, one per element of an array attribute,
 *    one per segment a condition looks up, and for the string operators one per value tried per
 *    128 characters of the attribute. Past it the rules are undecided: firstMatchingRule answers
 *    RULES_UNDECIDED, which the evaluator serves as the base value with reason ERROR
 *    (docs/segments.md). Only rulesets far beyond any real use reach it: a flag's own legal
 *    maximum of plain `in` conditions (200 rules × 50) costs half of it.
 */
import type { Condition, EvaluationContext, Rule, RulesetSegment } from './types.js';

const OP_IN = 0;
const OP_NOT_IN = 1;
const OP_STARTS_WITH = 2;
const OP_ENDS_WITH = 3;
const OP_CONTAINS = 4;
const OP_GT = 5;
const OP_GTE = 6;
const OP_LT = 7;
const OP_LTE = 8;
/** Every operator from OP_UNKNOWN on needs the slow path of matchesCompiledCondition. */
const OP_UNKNOWN = 9;
const OP_IN_SEGMENT = 10;
const OP_NOT_IN_SEGMENT = 11;

const OPS: Readonly<Record<string, number>> = {
  in: OP_IN,
  not_in: OP_NOT_IN,
  starts_with: OP_STARTS_WITH,
  ends_with: OP_ENDS_WITH,
  contains: OP_CONTAINS,
  gt: OP_GT,
  gte: OP_GTE,
  lt: OP_LT,
  lte: OP_LTE,
  in_segment: OP_IN_SEGMENT,
  not_in_segment: OP_NOT_IN_SEGMENT,
};

/** Plain decimal numeral (see rule 6 above). */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Canonical string of a scalar, or null when `v` is not a scalar. */
export function canonicalString(v: unknown): string | null {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(v);
    default:
      return null;
  }
}

/** Numeric value for the comparison operators, or NaN when there is none. */
export function numericValue(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? v : NaN;
  if (typeof v === 'string') {
    if (!DECIMAL.test(v)) return NaN;
    const n = Number(v);
    return Number.isFinite(n) ? n : NaN;
  }
  if (typeof v === 'bigint') {
    const n = Number(v);
    return Number.isFinite(n) ? n : NaN;
  }
  return NaN;
}

/** A condition prepared for repeated matching. */
export interface CompiledCondition {
  readonly attribute: string;
  readonly op: number;
  /** `in` / `not_in`: canonical strings of the values. */
  readonly set: ReadonlySet<string>;
  /** String operators: canonical strings of the values. */
  readonly strings: readonly string[];
  /** Numeric operators: min of the values for gt/gte, max for lt/lte; NaN when none. */
  readonly threshold: number;
  /** Segment operators: the named segments the ruleset has (unknown and cyclic ones left out). */
  readonly segments: readonly CompiledSegment[];
}

export interface CompiledRule {
  readonly conditions: readonly CompiledCondition[];
  readonly value: unknown;
}

/** A segment prepared for membership checks (rule 9). */
export interface CompiledSegment {
  readonly key: string;
  readonly included: ReadonlySet<string>;
  readonly excluded: ReadonlySet<string>;
  readonly rules: readonly CompiledRule[];
}

/** The compiled segment for a key, or undefined for a key nobody is in (unknown, or on a cycle). */
export type SegmentLookup = (key: string) => CompiledSegment | undefined;

const NO_SEGMENTS: readonly CompiledSegment[] = [];
const noSegment: SegmentLookup = () => undefined;

export function compileCondition(c: Condition, segments: SegmentLookup = noSegment): CompiledCondition {
  const op = OPS[c.operator as string] ?? OP_UNKNOWN;
  const values: readonly unknown[] = Array.isArray(c.values) ? c.values : [];
  const strings: string[] = [];
  for (const v of values) {
    const s = canonicalString(v);
    if (s !== null) strings.push(s);
  }
  let threshold = NaN;
  if (op === OP_GT || op === OP_GTE || op === OP_LT || op === OP_LTE) {
    const lower = op === OP_GT || op === OP_GTE;
    for (const v of values) {
      const n = numericValue(v);
      if (Number.isNaN(n)) continue;
      if (Number.isNaN(threshold) || (lower ? n < threshold : n > threshold)) threshold = n;
    }
  }
  let named = NO_SEGMENTS;
  if (op === OP_IN_SEGMENT || op === OP_NOT_IN_SEGMENT) {
    const found: CompiledSegment[] = [];
    for (const key of new Set(strings)) {
      const segment = segments(key);
      if (segment !== undefined) found.push(segment);
    }
    named = found;
  }
  return { attribute: c.attribute, op, set: new Set(strings), strings, threshold, segments: named };
}

export function compileRule(r: Rule, segments: SegmentLookup = noSegment): CompiledRule {
  return { conditions: (r.conditions ?? []).map((c) => compileCondition(c, segments)), value: r.value };
}

/** The segment keys a segment's rules name in segment conditions. */
function referencedKeys(s: RulesetSegment): string[] {
  const keys: string[] = [];
  for (const rule of s.rules ?? []) {
    for (const c of rule.conditions ?? []) {
      if (c.operator !== 'in_segment' && c.operator !== 'not_in_segment') continue;
      for (const v of Array.isArray(c.values) ? c.values : []) {
        const key = canonicalString(v);
        if (key !== null) keys.push(key);
      }
    }
  }
  return keys;
}

/**
 * The keys of segments that lie on a reference cycle (a strongly connected component with
 * more than one segment, or a segment naming itself): Tarjan's algorithm over the references.
 */
function cyclicKeys(byKey: ReadonlyMap<string, RulesetSegment>): Set<string> {
  const edges = new Map<string, string[]>();
  for (const [key, s] of byKey) edges.set(key, referencedKeys(s).filter((k) => byKey.has(k)));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cyclic = new Set<string>();
  let counter = 0;
  const visit = (key: string): void => {
    index.set(key, counter);
    low.set(key, counter);
    counter++;
    stack.push(key);
    onStack.add(key);
    for (const next of edges.get(key) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(key, Math.min(low.get(key) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(key, Math.min(low.get(key) as number, index.get(next) as number));
      }
    }
    if (low.get(key) !== index.get(key)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
      if (member === key) break;
    }
    if (component.length > 1 || (edges.get(key) ?? []).includes(key)) for (const member of component) cyclic.add(member);
  };
  for (const key of byKey.keys()) if (!index.has(key)) visit(key);
  return cyclic;
}

interface MutableSegment {
  key: string;
  included: ReadonlySet<string>;
  excluded: ReadonlySet<string>;
  rules: readonly CompiledRule[];
}

/**
 * Compiles a ruleset's segments once: included and excluded IDs into sets, rules into compiled
 * rules whose segment conditions point at the compiled segments. Segments on a reference cycle
 * are left out (rule 9), so the remaining references form an acyclic graph and membership
 * checks always terminate. Should a key repeat, the first segment wins.
 */
export function compileSegments(segments: readonly RulesetSegment[] | undefined): SegmentLookup {
  if (segments === undefined || segments.length === 0) return noSegment;
  const byKey = new Map<string, RulesetSegment>();
  for (const s of segments) if (!byKey.has(s.key)) byKey.set(s.key, s);
  const cyclic = cyclicKeys(byKey);
  const compiled = new Map<string, MutableSegment>();
  for (const [key, s] of byKey) {
    if (cyclic.has(key)) continue;
    compiled.set(key, { key, included: new Set(s.included ?? []), excluded: new Set(s.excluded ?? []), rules: [] });
  }
  const lookup: SegmentLookup = (key) => compiled.get(key);
  for (const [key, segment] of compiled) {
    segment.rules = ((byKey.get(key) as RulesetSegment).rules ?? []).map((r) => compileRule(r, lookup));
  }
  return lookup;
}

/**
 * Units of work one evaluation of a primitive's rules may spend (rule 10): about a millisecond of
 * the slowest legal work on one core (`BENCH_ONLY=worst-rules npm run bench`).
 */
export const RULE_WORK_BUDGET = 20_000;

/** firstMatchingRule's answer when the work budget ran out: the rules are undecided. */
export const RULES_UNDECIDED = -2;

/**
 * Thrown inside rule matching when the budget runs out; caught by firstMatchingRule only. One
 * instance made once: running out must not cost a stack trace per evaluation.
 */
const BUDGET_EXCEEDED = new Error('rule work budget exceeded');

/**
 * The state of the evaluation in progress (evaluation is synchronous, so one at a time): work
 * left, and segment memberships already decided, per segment and attribute value (`null`: the
 * context has no such attribute). Reset by firstMatchingRule; memberships are allocated on the
 * first segment whose rules are tried. The convenience matchers (no segments, linear work) run
 * without a budget.
 */
let workLeft = RULE_WORK_BUDGET;
let memberships: Map<CompiledSegment, Map<string | null, boolean>> | null = null;

function spend(units: number): void {
  workLeft -= units;
  if (workLeft < 0) throw BUDGET_EXCEEDED;
}

/** Whether the context, whose attribute value is `id` (null when it has none), is in `s`. */
function inSegment(s: CompiledSegment, id: string | null, ctx: EvaluationContext): boolean {
  if (id !== null) {
    if (s.included.has(id)) return true;
    if (s.excluded.has(id)) return false;
  }
  const rules = s.rules;
  if (rules.length === 0) return false;
  memberships ??= new Map();
  let byId = memberships.get(s);
  if (byId === undefined) memberships.set(s, (byId = new Map<string | null, boolean>()));
  const known = byId.get(id);
  if (known !== undefined) return known;
  let member = false;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i] as CompiledRule;
    if (matchesCompiledRule(rule, ctx)) {
      member = true;
      break;
    }
  }
  byId.set(id, member);
  return member;
}

/** A segment condition (rule 9): in any of the named segments, or in none. */
function matchesSegmentCondition(c: CompiledCondition, ctx: EvaluationContext): boolean {
  const raw = ctx[c.attribute];
  const id = typeof raw === 'string' ? raw : canonicalString(raw);
  const named = c.segments;
  let inAny = false;
  for (let i = 0; i < named.length; i++) {
    spend(1);
    if (inSegment(named[i] as CompiledSegment, id, ctx)) {
      inAny = true;
      break;
    }
  }
  return c.op === OP_IN_SEGMENT ? inAny : !inAny;
}

/** Whether one scalar (or non-scalar, which never matches) satisfies a positive operator. */
function matchesScalar(c: CompiledCondition, v: unknown): boolean {
  switch (c.op) {
    case OP_IN:
    case OP_NOT_IN: {
      const s = canonicalString(v);
      return s !== null && c.set.has(s);
    }
    case OP_STARTS_WITH:
    case OP_ENDS_WITH:
    case OP_CONTAINS: {
      const s = canonicalString(v);
      if (s === null) return false;
      const strs = c.strings;
      const units = 1 + (s.length >>> 7);
      for (let i = 0; i < strs.length; i++) {
        spend(units);
        const needle = strs[i] as string;
        if (c.op === OP_STARTS_WITH ? s.startsWith(needle) : c.op === OP_ENDS_WITH ? s.endsWith(needle) : s.includes(needle)) {
          return true;
        }
      }
      return false;
    }
    case OP_GT:
      return numericValue(v) > c.threshold;
    case OP_GTE:
      return numericValue(v) >= c.threshold;
    case OP_LT:
      return numericValue(v) < c.threshold;
    case OP_LTE:
      return numericValue(v) <= c.threshold;
    default:
      return false;
  }
}

export function matchesCompiledCondition(c: CompiledCondition, ctx: EvaluationContext): boolean {
  if (--workLeft < 0) throw BUDGET_EXCEEDED;
  if (c.op >= OP_UNKNOWN) return c.op === OP_UNKNOWN ? false : matchesSegmentCondition(c, ctx);
  const v = ctx[c.attribute];
  if (v === undefined || v === null) return false;
  if (Array.isArray(v)) {
    spend(v.length);
    if (c.op === OP_NOT_IN) {
      for (let i = 0; i < v.length; i++) if (matchesScalar(c, v[i])) return false;
      return true;
    }
    for (let i = 0; i < v.length; i++) if (matchesScalar(c, v[i])) return true;
    return false;
  }
  if (canonicalString(v) === null) return false; // object, function, symbol: missing
  return c.op === OP_NOT_IN ? !matchesScalar(c, v) : matchesScalar(c, v);
}

export function matchesCompiledRule(r: CompiledRule, ctx: EvaluationContext): boolean {
  const cs = r.conditions;
  for (let i = 0; i < cs.length; i++) {
    if (!matchesCompiledCondition(cs[i] as CompiledCondition, ctx)) return false;
  }
  return true;
}

/**
 * Index of the first matching rule, -1 when none matches, or RULES_UNDECIDED when the rules
 * ran out of the work budget (rule 10). Each call is one evaluation: a fresh budget
 * and no memberships carried over from another context.
 */
export function firstMatchingRule(rules: readonly CompiledRule[], ctx: EvaluationContext): number {
  workLeft = RULE_WORK_BUDGET;
  try {
    for (let i = 0; i < rules.length; i++) {
      if (matchesCompiledRule(rules[i] as CompiledRule, ctx)) return i;
    }
    return -1;
  } catch (e) {
    if (e === BUDGET_EXCEEDED) return RULES_UNDECIDED;
    throw e;
  } finally {
    memberships = null;
  }
}

/** Convenience (compiles on every call): does `condition` match `ctx`? */
export function matchCondition(condition: Condition, ctx: EvaluationContext): boolean {
  workLeft = Number.POSITIVE_INFINITY;
  return matchesCompiledCondition(compileCondition(condition), ctx);
}

/** Convenience (compiles on every call): do all of `rule`'s conditions match `ctx`? */
export function matchRule(rule: Rule, ctx: EvaluationContext): boolean {
  workLeft = Number.POSITIVE_INFINITY;
  return matchesCompiledRule(compileRule(rule), ctx);
}
