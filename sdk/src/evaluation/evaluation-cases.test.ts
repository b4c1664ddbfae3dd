import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileRuleset, evaluatePrimitive } from './evaluate.js';
import type { ConditionOperator, EvaluationContext, EvaluationReason, Ruleset } from './types.js';

/** One entry of sdk/fixtures/evaluation-cases.json (described in sdk/fixtures/README.md). */
interface EvaluationCase {
  name: string;
  ruleset: Ruleset;
  context: EvaluationContext;
  key: string;
  /** `branch` is given where it differs from `variant` or matters: the cases with declared variants. */
  expected: { value: unknown; reason: EvaluationReason; variant: string; branch?: string };
  /** false: the ruleset is one the server never serves (unknown or cyclic segments, paused or completed rollouts). */
  api?: false;
}

const cases = JSON.parse(readFileSync(new URL('../../fixtures/evaluation-cases.json', import.meta.url), 'utf8')) as EvaluationCase[];

describe('shared evaluation vectors (sdk/fixtures/evaluation-cases.json)', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const seen = (r: { value: unknown; reason: string; variant: string; branch: string }) => ({
      value: r.value,
      reason: r.reason,
      variant: r.variant,
      ...(c.expected.branch !== undefined ? { branch: r.branch } : {}),
    });
    const result = compileRuleset(c.ruleset).evaluate(c.key, c.context);
    expect(result && seen(result)).toEqual(c.expected);
    if (result && c.expected.branch === undefined) expect(result.branch).toBe(result.variant); // no variants declared
    const primitive = c.ruleset.primitives.find((p) => p.key === c.key);
    expect(primitive).toBeDefined();
    if (primitive !== undefined) {
      expect(seen(evaluatePrimitive(primitive, c.context, c.ruleset.segments))).toEqual(c.expected);
    }
  });

  it('names are unique, and a key or segment key means one definition throughout the file', () => {
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    const definitions = new Map<string, string>();
    for (const c of cases) {
      for (const thing of [...c.ruleset.primitives.map((p) => ['primitive', p.key, p] as const), ...(c.ruleset.segments ?? []).map((s) => ['segment', s.key, s] as const)]) {
        const id = `${thing[0]}:${thing[1]}`;
        const text = JSON.stringify(thing[2]);
        expect(definitions.get(id) ?? text, `${c.name}: ${id}`).toBe(text);
        definitions.set(id, text);
      }
    }
  });

  it('cover every operator, every reason and every variant kind', () => {
    const operators = new Set<string>();
    for (const c of cases) {
      const rules = [...c.ruleset.primitives.flatMap((p) => p.rules), ...(c.ruleset.segments ?? []).flatMap((s) => s.rules)];
      for (const rule of rules) for (const condition of rule.conditions) operators.add(condition.operator);
    }
    const all: Record<ConditionOperator, true> = {
      in: true,
      not_in: true,
      starts_with: true,
      ends_with: true,
      contains: true,
      gt: true,
      gte: true,
      lt: true,
      lte: true,
      in_segment: true,
      not_in_segment: true,
    };
    expect([...operators].sort()).toEqual(Object.keys(all).sort());
    expect(new Set(cases.map((c) => c.expected.reason))).toEqual(new Set(['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DISABLED', 'DEFAULT']));
    const branches = cases.map((c) => c.expected.branch ?? c.expected.variant);
    expect(new Set(branches.map((b) => b.replace(/^rule-\d+$/, 'rule-n')))).toEqual(new Set(['default', 'rule-n', 'target-id', 'rollout-new', 'rollout-base']));
    // Declared variants name the value every branch serves, and a value none declares keeps its branch name.
    const named = cases.filter((c) => c.ruleset.primitives.some((p) => p.key === c.key && p.variants !== undefined));
    expect(new Set(named.map((c) => c.expected.branch?.replace(/^rule-\d+$/, 'rule-n')))).toEqual(new Set(['default', 'rule-n', 'target-id', 'rollout-new', 'rollout-base']));
    expect(named.some((c) => c.expected.variant === c.expected.branch)).toBe(true);
  });
});
