/**
 * What evaluation costs (rules.ts, rule 10): segment membership memoized per evaluation, and a work
 * budget with a defined outcome. Work is counted through the context: every condition reads its
 * attribute once, so the reads of one evaluation bound the conditions it tried.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRuleset } from './evaluate.js';
import { canonicalString, matchRule, RULE_WORK_BUDGET } from './rules.js';
import type { Condition, EvaluationContext, Rule, Ruleset, RulesetSegment } from './types.js';

/** A context that counts the attribute reads made of it. */
function counting(values: EvaluationContext): { ctx: EvaluationContext; reads: () => number } {
  let reads = 0;
  const ctx = new Proxy(values, {
    get(target, key) {
      reads++;
      return Reflect.get(target, key) as unknown;
    },
  });
  return { ctx, reads: () => reads };
}

const flagWith = (rules: Rule[], segments: RulesetSegment[]): Ruleset => ({
  envId: 'e',
  version: 1,
  primitives: [{ kind: 'flag', key: 'f', value: 'base', rules, rollout: null }],
  segments,
});

/**
 * Rule 9 straight from its words, without memo or budget: exponential on nested graphs, so only
 * for small ones. A key the ruleset lacks names a segment nobody is in.
 */
function naiveIn(segments: ReadonlyMap<string, RulesetSegment>, key: string, id: string | null, ctx: EvaluationContext): boolean {
  const s = segments.get(key);
  if (!s) return false;
  if (id !== null && s.included.includes(id)) return true;
  if (id !== null && s.excluded.includes(id)) return false;
  return s.rules.some((r) => r.conditions.every((c) => naiveCondition(segments, c, ctx)));
}
function naiveCondition(segments: ReadonlyMap<string, RulesetSegment>, c: Condition, ctx: EvaluationContext): boolean {
  if (c.operator !== 'in_segment' && c.operator !== 'not_in_segment') return matchRule({ conditions: [c], value: null }, ctx);
  const id = canonicalString(ctx[c.attribute]);
  const inAny = c.values.some((k) => naiveIn(segments, String(k), id, ctx));
  return c.operator === 'in_segment' ? inAny : !inAny;
}

/** Levels of segments, each naming segments of deeper levels only (so never a cycle), as the server stores them. */
const segmentGraph = (depth: number, width: number, rulesPer: number) =>
  fc.array(
    fc.record({
      plan: fc.constantFrom('pro', 'free'),
      included: fc.boolean(),
      refs: fc.array(fc.nat({ max: width * depth }), { maxLength: 3 }),
      negate: fc.boolean(),
    }),
    { minLength: depth * width * rulesPer, maxLength: depth * width * rulesPer },
  ).map((cells) => {
    const key = (level: number, i: number) => `s${level}-${i}`;
    const segments: RulesetSegment[] = [];
    for (let level = 0; level < depth; level++) {
      for (let i = 0; i < width; i++) {
        const rules: Rule[] = [];
        for (let r = 0; r < rulesPer; r++) {
          const cell = cells[(level * width + i) * rulesPer + r]!;
          const conditions: Condition[] = [{ attribute: 'plan', operator: 'in', values: [cell.plan] }];
          const deeper = cell.refs.map((n) => n % (width * depth)).filter((n) => Math.floor(n / width) > level);
          if (deeper.length) conditions.push({ attribute: 'userId', operator: cell.negate ? 'not_in_segment' : 'in_segment', values: deeper.map((n) => key(Math.floor(n / width), n % width)) });
          rules.push({ conditions, value: null });
        }
        segments.push({ key: key(level, i), rules, included: cells[level * width + i]!.included ? ['u1'] : [], excluded: [] });
      }
    }
    return { segments, top: Array.from({ length: width }, (_, i) => key(0, i)) };
  });

describe('segment membership is decided once per evaluation (rules.ts rule 10)', () => {
  it('agrees with rule 9 taken literally on random nested segment graphs', () => {
    fc.assert(
      fc.property(segmentGraph(4, 3, 2), fc.constantFrom('u1', 'u2'), fc.constantFrom('pro', 'free'), ({ segments, top }, userId, plan) => {
        const rules: Rule[] = top.map((k, i) => ({ conditions: [{ attribute: 'userId', operator: 'in_segment', values: [k] }], value: `rule-${i}` }));
        const ctx = { userId, plan };
        const byKey = new Map(segments.map((s) => [s.key, s]));
        const expected = rules.find((r) => r.conditions.every((c) => naiveCondition(byKey, c, ctx)))?.value ?? 'base';
        const got = compileRuleset(flagWith(rules, segments)).evaluate('f', ctx)!;
        expect(got.reason).not.toBe('ERROR');
        expect(got.value).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a graph whose paths multiply costs its conditions, not its paths', () => {
    // 5 levels of 10 segments, every rule of a level naming all 10 segments of the next one, and no
    // rule matching at the deepest level: 10^5 paths, 5 × 10 × 3 rules × 2 conditions.
    const levels = 5;
    const key = (l: number, i: number) => `l${l}-${i}`;
    const segments: RulesetSegment[] = [];
    for (let l = 0; l < levels; l++) {
      for (let i = 0; i < 10; i++) {
        const last: Condition =
          l + 1 < levels
            ? { attribute: 'userId', operator: 'in_segment', values: Array.from({ length: 10 }, (_, j) => key(l + 1, j)) }
            : { attribute: 'country', operator: 'in', values: ['nowhere'] };
        segments.push({ key: key(l, i), included: [], excluded: [], rules: Array.from({ length: 3 }, () => ({ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }, last], value: null })) });
      }
    }
    const rules: Rule[] = [{ conditions: [{ attribute: 'userId', operator: 'in_segment', values: Array.from({ length: 10 }, (_, j) => key(0, j)) }], value: 'in' }];
    const { ctx, reads } = counting({ userId: 'u1', plan: 'pro', country: 'NZ' });
    const r = compileRuleset(flagWith(rules, segments)).evaluate('f', ctx)!;
    expect(r).toMatchObject({ value: 'base', reason: 'DEFAULT' });
    expect(reads()).toBeLessThanOrEqual(1 + 2 * 50 * 3 * 2);
  });
});

describe('the work budget (rules.ts rule 10)', () => {
  /** The contract's maxima where they cost: 100 rules × 50 conditions per segment, 5 levels. */
  const maximal = (width: number): Ruleset => {
    const key = (l: number, i: number) => `l${l}-${i}`;
    const pro: Condition = { attribute: 'plan', operator: 'in', values: ['pro'] };
    const segments: RulesetSegment[] = [];
    for (let l = 0; l < 5; l++) {
      for (let i = 0; i < width; i++) {
        const last: Condition =
          l < 4 ? { attribute: 'userId', operator: 'in_segment', values: Array.from({ length: width }, (_, j) => key(l + 1, j)) } : { attribute: 'country', operator: 'in', values: ['nowhere'] };
        segments.push({ key: key(l, i), included: [], excluded: [], rules: Array.from({ length: 100 }, () => ({ conditions: [...Array<Condition>(49).fill(pro), last], value: null })) });
      }
    }
    const rules: Rule[] = Array.from({ length: 200 }, (_, r) => ({
      conditions: [...Array<Condition>(49).fill(pro), { attribute: 'userId', operator: 'in_segment', values: Array.from({ length: width }, (_, j) => key(0, j)) }],
      value: r,
    }));
    return flagWith(rules, segments);
  };

  it('ends an evaluation that would exceed it: the base value, reason ERROR, within the budget', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.string({ maxLength: 8 }), (width, userId) => {
        const { ctx, reads } = counting({ userId, plan: 'pro', country: 'NZ' });
        const r = compileRuleset(maximal(width)).evaluate('f', ctx)!;
        expect(r).toMatchObject({ value: 'base', reason: 'ERROR', variant: 'default' });
        expect(reads()).toBeLessThanOrEqual(RULE_WORK_BUDGET + 1);
      }),
      { numRuns: 4 },
    );
  });

  it('leaves the flag\'s own legal maximum of plain conditions decided', () => {
    const pro: Condition = { attribute: 'plan', operator: 'in', values: ['pro'] };
    const rules: Rule[] = Array.from({ length: 200 }, (_, r) => ({ conditions: [...Array<Condition>(49).fill(pro), { attribute: 'country', operator: 'in', values: ['nowhere'] }], value: r }));
    expect(compileRuleset(flagWith(rules, [])).evaluate('f', { plan: 'pro', country: 'NZ' })).toMatchObject({ value: 'base', reason: 'DEFAULT' });
  });

  it('charges string operators by the attribute\'s length, so a long attribute cannot multiply their cost', () => {
    const needles = Array.from({ length: 1000 }, (_, i) => `b${'a'.repeat(1019)}${String(i).padStart(4, '0')}`);
    const rules: Rule[] = Array.from({ length: 5 }, (_, r) => ({ conditions: Array.from({ length: 50 }, () => ({ attribute: 'bio', operator: 'contains', values: needles })), value: r }));
    const compiled = compileRuleset(flagWith(rules, []));
    expect(compiled.evaluate('f', { bio: 'a'.repeat(65_536) })).toMatchObject({ value: 'base', reason: 'ERROR' });
    expect(compiled.evaluate('f', { bio: needles[7]! })).toMatchObject({ value: 0, reason: 'TARGETING_MATCH' });
  });

  it('starts afresh for every evaluation: one that ran out does not shorten the next', () => {
    const compiled = compileRuleset(maximal(2));
    const plain = compileRuleset(flagWith([{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: 'pro' }], []));
    expect(compiled.evaluate('f', { userId: 'u', plan: 'pro', country: 'NZ' })!.reason).toBe('ERROR');
    expect(plain.evaluate('f', { plan: 'pro' })).toMatchObject({ value: 'pro', reason: 'TARGETING_MATCH' });
    expect(matchRule({ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: 1 }, { plan: 'pro' })).toBe(true);
  });
});
