import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucket } from './bucket.js';
import { compilePrimitive, compileRuleset, evaluatePrimitive } from './evaluate.js';
import type { EvaluationBranch, EvaluationContext, EvaluationReason, EvaluationResult, Rule, RulesetPrimitive, RulesetRollout } from './types.js';

// Buckets under seed "flag:env" (from sdk/fixtures/bucketing.json):
const B = {
  'user-1': 99.97520176693797,
  'user-2': 64.49712095782161,
  '42': 16.428313218057156,
  '-1': 50.714910216629505,
  'alice@example.com': 1.7312068026512861,
} as const;

const usRule: Rule = { description: 'US', conditions: [{ attribute: 'country', operator: 'in', values: ['US'] }], value: 'us-rule' };

function rollout(over: Partial<RulesetRollout> = {}): RulesetRollout {
  return {
    id: 'r1',
    status: 'active',
    percent: 50,
    seed: 'flag:env',
    bucketField: 'userId',
    newValue: 'new',
    targetIds: ['user-1'],
    ...over,
  };
}

function flag(r: RulesetRollout | null, rules: Rule[] = [usRule]): RulesetPrimitive {
  return { kind: 'flag', key: 'f', value: 'old', rules, rollout: r };
}

/** A flag's result: value, reason, variant, bucket and the live rollout's percent. */
const res = (
  value: unknown,
  reason: EvaluationReason,
  branch: EvaluationBranch,
  b: number | null,
  rolloutPercent: number | null,
): EvaluationResult => ({ kind: 'flag', value, reason, variant: branch, branch, bucket: b, rolloutPercent });

type Case = [name: string, ctx: EvaluationContext, expected: EvaluationResult];

function check(p: RulesetPrimitive, cases: Case[]): void {
  const compiled = compilePrimitive(p);
  for (const [name, ctx, expected] of cases) {
    expect(evaluatePrimitive(p, ctx), name).toEqual(expected);
    expect(compiled.evaluate(ctx), name).toEqual(expected);
  }
}

describe('reasons and variants: one row per branch', () => {
  const gated = (over: Partial<RulesetRollout> = {}): RulesetRollout => {
    const r = rollout(over);
    delete r.newValue;
    return r;
  };
  const twoRules: Rule[] = [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: 'pro' }, usRule];

  type Row = [branch: string, p: RulesetPrimitive, ctx: EvaluationContext, expected: EvaluationResult];
  const rows: Row[] = [
    ['no rules, no rollout', flag(null, []), { userId: '42' }, res('old', 'STATIC', 'default', null, null)],
    ['rules, none matches', flag(null), { country: 'MX' }, res('old', 'DEFAULT', 'default', null, null)],
    ['rule 1 matches', flag(null, twoRules), { plan: 'pro', country: 'US' }, res('pro', 'TARGETING_MATCH', 'rule-1', null, null)],
    ['rule 2 matches', flag(null, twoRules), { plan: 'free', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-2', null, null)],
    ['target ID', flag(rollout()), { userId: 'user-1' }, res('new', 'TARGETING_MATCH', 'target-id', B['user-1'], 50)],
    ['admitted', flag(rollout()), { userId: '42' }, res('new', 'SPLIT', 'rollout-new', B['42'], 50)],
    ['not admitted, no rule', flag(rollout()), { userId: 'user-2' }, res('old', 'SPLIT', 'rollout-base', B['user-2'], 50)],
    ['not admitted, no rules at all', flag(rollout(), []), { userId: 'user-2' }, res('old', 'SPLIT', 'rollout-base', B['user-2'], 50)],
    ['not admitted, rule 2 matches', flag(rollout(), twoRules), { userId: 'user-2', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-2', B['user-2'], 50)],
    ['live rollout, no bucket field', flag(rollout()), { country: 'MX' }, res('old', 'DEFAULT', 'default', null, 50)],
    ['live rollout, no bucket field, no rules', flag(rollout(), []), {}, res('old', 'DEFAULT', 'default', null, 50)],
    ['live rollout, no bucket field, rule matches', flag(rollout()), { country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', null, 50)],
    ['paused rollout, admitted', flag(rollout({ status: 'paused', percent: 20 })), { userId: '42' }, res('new', 'SPLIT', 'rollout-new', B['42'], 20)],
    ['gated, admitted, rule matches', flag(gated()), { userId: '42', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', B['42'], 50)],
    ['gated, admitted, no rule', flag(gated()), { userId: '42' }, res('old', 'DEFAULT', 'default', B['42'], 50)],
    ['gated, target ID, no rule', flag(gated()), { userId: 'user-1' }, res('old', 'DEFAULT', 'default', B['user-1'], 50)],
    ['gated, not admitted (rule would match)', flag(gated()), { userId: 'user-2', country: 'US' }, res('old', 'SPLIT', 'rollout-base', B['user-2'], 50)],
    ['gated, no bucket field (rule would match)', flag(gated()), { country: 'US' }, res('old', 'DEFAULT', 'default', null, 50)],
    ['completed rollout, no rules', flag(rollout({ status: 'completed', percent: 100 }), []), { userId: '42' }, res('old', 'STATIC', 'default', null, null)],
    ['cancelled rollout, no rules', flag(rollout({ status: 'cancelled' }), []), { userId: 'user-1' }, res('old', 'STATIC', 'default', null, null)],
    ['completed rollout, rule matches', flag(rollout({ status: 'completed' })), { userId: '42', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', null, null)],
    ['cancelled gated rollout, no rule', flag(gated({ status: 'cancelled' })), { userId: '42' }, res('old', 'DEFAULT', 'default', null, null)],
  ];

  it.each(rows)('%s', (_branch, p, ctx, expected) => {
    expect(evaluatePrimitive(p, ctx)).toEqual(expected);
    expect(compilePrimitive(p).evaluate(ctx)).toEqual(expected);
  });

  it('a config carries its kind; rolloutPercent is the live percent even at 0', () => {
    const config: RulesetPrimitive = { kind: 'config', key: 'c', value: 1, rules: [], rollout: rollout({ status: 'paused', percent: 0, targetIds: [] }) };
    expect(evaluatePrimitive(config, { userId: '42' })).toEqual({
      kind: 'config',
      value: 1,
      reason: 'SPLIT',
      variant: 'rollout-base',
      branch: 'rollout-base',
      bucket: B['42'],
      rolloutPercent: 0,
    });
  });

  // Declared variants rename what each branch serves, and nothing else: the same rows, with names.
  const names: Record<string, string> = { old: 'was', new: 'next', pro: 'pro-plan', 'us-rule': 'american' };
  it.each(rows)('declared variants: %s reports the served value\'s name, the same branch', (_branch, p, ctx, expected) => {
    const named: RulesetPrimitive = { ...p, variants: Object.fromEntries(Object.entries(names).map(([value, name]) => [name, value])) };
    const want = { ...expected, variant: names[String(expected.value)] ?? expected.branch };
    expect(evaluatePrimitive(named, ctx)).toEqual(want);
    expect(compilePrimitive(named).evaluate(ctx)).toEqual(want);
  });

  it('declared variants: values compare as JSON (members in any order); an undeclared value keeps its branch name', () => {
    const config: RulesetPrimitive = {
      kind: 'config',
      key: 'layout',
      value: { columns: 2, theme: 'light' },
      rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: { columns: 4 } }],
      rollout: null,
      variants: { classic: { theme: 'light', columns: 2 }, wide: { columns: 3 } },
    };
    expect(evaluatePrimitive(config, {})).toMatchObject({ variant: 'classic', branch: 'default', reason: 'DEFAULT' });
    expect(evaluatePrimitive(config, { plan: 'pro' })).toMatchObject({ value: { columns: 4 }, variant: 'rule-1', branch: 'rule-1' });
    expect(evaluatePrimitive({ ...config, archived: true }, {})).toMatchObject({ variant: 'classic', branch: 'default', reason: 'DISABLED' });
  });
});

describe('evaluation order (rollout carries newValue)', () => {
  it('target id → rollout → rule → default', () => {
    check(flag(rollout()), [
      ['targeted, not admitted', { userId: 'user-1' }, res('new', 'TARGETING_MATCH', 'target-id', B['user-1'], 50)],
      ['targeted beats rule', { userId: 'user-1', country: 'US' }, res('new', 'TARGETING_MATCH', 'target-id', B['user-1'], 50)],
      ['admitted', { userId: '42' }, res('new', 'SPLIT', 'rollout-new', B['42'], 50)],
      ['admitted beats rule', { userId: '42', country: 'US' }, res('new', 'SPLIT', 'rollout-new', B['42'], 50)],
      ['not admitted, rule', { userId: 'user-2', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', B['user-2'], 50)],
      ['not admitted, no rule', { userId: 'user-2', country: 'MX' }, res('old', 'SPLIT', 'rollout-base', B['user-2'], 50)],
      ['no bucket field, rule', { country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', null, 50)],
      ['no bucket field', {}, res('old', 'DEFAULT', 'default', null, 50)],
      ['numeric bucket field = String(n)', { userId: 42 }, res('new', 'SPLIT', 'rollout-new', B['42'], 50)],
      ['negative number', { userId: -1 }, res('old', 'SPLIT', 'rollout-base', B['-1'], 50)],
      ['null bucket field', { userId: null }, res('old', 'DEFAULT', 'default', null, 50)],
      ['object bucket field', { userId: { id: '42' } }, res('old', 'DEFAULT', 'default', null, 50)],
      ['array bucket field', { userId: ['42'], country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', null, 50)],
      ['other field name', { user_id: '42' }, res('old', 'DEFAULT', 'default', null, 50)],
    ]);
  });

  it('bucket is computed with the rollout seed and String(value)', () => {
    const r = evaluatePrimitive(flag(rollout({ seed: 'my-seed' })), { userId: 12345 });
    expect(r.bucket).toBe(bucket('my-seed', '12345'));
  });

  it('a target ID matches only the exact string form; numbers via String(n)', () => {
    const p = flag(rollout({ percent: 0, targetIds: ['42', 'alice@example.com'] }));
    check(p, [
      ['string', { userId: '42' }, res('new', 'TARGETING_MATCH', 'target-id', B['42'], 0)],
      ['number', { userId: 42 }, res('new', 'TARGETING_MATCH', 'target-id', B['42'], 0)],
      ['case-sensitive', { userId: 'ALICE@example.com' }, res('old', 'SPLIT', 'rollout-base', bucket('flag:env', 'ALICE@example.com'), 0)],
      ['missing field', { id: '42' }, res('old', 'DEFAULT', 'default', null, 0)],
    ]);
  });

  it('large allow-lists: every listed id hits, unlisted ids miss (duplicates tolerated)', () => {
    const listed = Array.from({ length: 5000 }, (_, i) => `t-${i}`);
    const p = flag(rollout({ percent: 0, targetIds: [...listed, ...listed.slice(0, 100)] }), []);
    const c = compilePrimitive(p);
    for (const id of listed) expect(c.evaluate({ userId: id }).variant).toBe('target-id');
    for (let i = 5000; i < 25_000; i++) expect(c.evaluate({ userId: `t-${i}` }).variant).toBe('rollout-base');
    expect(c.evaluate({ userId: 't-0 ' }).variant).toBe('rollout-base');
  });

  it('percent boundaries: 0 admits nobody, 100 everybody; admission is bucket < percent', () => {
    check(flag(rollout({ percent: 0, targetIds: [] }), []), [
      ['0%', { userId: 'alice@example.com' }, res('old', 'SPLIT', 'rollout-base', B['alice@example.com'], 0)],
    ]);
    check(flag(rollout({ percent: 100, targetIds: [] }), []), [
      ['100%', { userId: 'user-1' }, res('new', 'SPLIT', 'rollout-new', B['user-1'], 100)],
    ]);
    check(flag(rollout({ percent: B['42'], targetIds: [] }), []), [['equal', { userId: '42' }, res('old', 'SPLIT', 'rollout-base', B['42'], B['42'])]]);
    check(flag(rollout({ percent: 16.4284, targetIds: [] }), []), [['just above', { userId: '42' }, res('new', 'SPLIT', 'rollout-new', B['42'], 16.4284)]]);
  });

  it('null is a real candidate value', () => {
    check(flag(rollout({ newValue: null }), []), [['admitted', { userId: '42' }, res(null, 'SPLIT', 'rollout-new', B['42'], 50)]]);
  });

  it('first matching rule wins; a rule without conditions is a catch-all', () => {
    const rules: Rule[] = [
      { conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: 'pro' },
      usRule,
      { conditions: [], value: 'everyone' },
    ];
    check(flag(null, rules), [
      ['first', { plan: 'pro', country: 'US' }, res('pro', 'TARGETING_MATCH', 'rule-1', null, null)],
      ['second', { plan: 'free', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-2', null, null)],
      ['catch-all', {}, res('everyone', 'TARGETING_MATCH', 'rule-3', null, null)],
    ]);
  });

  it('no rollout, no rules: base value', () => {
    check(flag(null, []), [['base', { userId: '42' }, res('old', 'STATIC', 'default', null, null)]]);
  });
});

describe('rollout status', () => {
  it('paused (user / approval gate): admission continues at the held percent', () => {
    check(flag(rollout({ status: 'paused' })), [
      ['targeted', { userId: 'user-1' }, res('new', 'TARGETING_MATCH', 'target-id', B['user-1'], 50)],
      ['admitted', { userId: '42' }, res('new', 'SPLIT', 'rollout-new', B['42'], 50)],
      ['not admitted', { userId: 'user-2', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', B['user-2'], 50)],
    ]);
  });

  it('paused by auto-rollback (percent 0): nobody admitted by percentage, target IDs still get the candidate', () => {
    check(flag(rollout({ status: 'paused', percent: 0 })), [
      ['formerly admitted', { userId: 'alice@example.com' }, res('old', 'SPLIT', 'rollout-base', B['alice@example.com'], 0)],
      ['formerly admitted, rule', { userId: '42', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', B['42'], 0)],
      ['targeted', { userId: 'user-1' }, res('new', 'TARGETING_MATCH', 'target-id', B['user-1'], 0)],
    ]);
  });

  it.each(['completed', 'cancelled'] as const)('%s rollouts are ignored (no candidate, no bucket, no percent)', (status) => {
    check(flag(rollout({ status, percent: 100 })), [
      ['targeted', { userId: 'user-1' }, res('old', 'DEFAULT', 'default', null, null)],
      ['would be admitted', { userId: '42' }, res('old', 'DEFAULT', 'default', null, null)],
      ['rule', { userId: '42', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', null, null)],
    ]);
    check(flag(rollout({ status, percent: 100 }), []), [['no rules', { userId: '42' }, res('old', 'STATIC', 'default', null, null)]]);
  });
});

describe('rollout gating the rules (no newValue)', () => {
  const gated = (over: Partial<RulesetRollout> = {}): RulesetRollout => {
    const r = rollout(over);
    delete r.newValue;
    return r;
  };

  it('an admitted context gets its matching rule; others get the base value', () => {
    check(flag(gated()), [
      ['admitted + rule', { userId: '42', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', B['42'], 50)],
      ['admitted, no rule', { userId: '42', country: 'MX' }, res('old', 'DEFAULT', 'default', B['42'], 50)],
      ['not admitted + rule', { userId: 'user-2', country: 'US' }, res('old', 'SPLIT', 'rollout-base', B['user-2'], 50)],
      ['not admitted', { userId: 'user-2' }, res('old', 'SPLIT', 'rollout-base', B['user-2'], 50)],
      ['targeted + rule', { userId: 'user-1', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', B['user-1'], 50)],
      ['targeted, no rule', { userId: 'user-1' }, res('old', 'DEFAULT', 'default', B['user-1'], 50)],
      ['no bucket field + rule', { country: 'US' }, res('old', 'DEFAULT', 'default', null, 50)],
    ]);
  });

  it('newValue: undefined also gates', () => {
    check(flag(rollout({ newValue: undefined })), [
      ['not admitted + rule', { userId: 'user-2', country: 'US' }, res('old', 'SPLIT', 'rollout-base', B['user-2'], 50)],
    ]);
  });

  it('paused at 0 (auto-rollback): only target IDs unlock the rules', () => {
    check(flag(gated({ status: 'paused', percent: 0 })), [
      ['formerly admitted', { userId: '42', country: 'US' }, res('old', 'SPLIT', 'rollout-base', B['42'], 0)],
      ['targeted', { userId: 'user-1', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', B['user-1'], 0)],
    ]);
  });

  it('100% admits everyone with the field', () => {
    check(flag(gated({ percent: 100 })), [['any', { userId: 'user-2', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', B['user-2'], 100)]]);
  });

  it.each(['completed', 'cancelled'] as const)('%s: rules are no longer gated', (status) => {
    check(flag(gated({ status })), [
      ['rule', { userId: 'user-2', country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', null, null)],
      ['no field, rule', { country: 'US' }, res('us-rule', 'TARGETING_MATCH', 'rule-1', null, null)],
    ]);
  });
});

describe('properties', () => {
  const ids = fc.oneof(fc.string({ maxLength: 12 }), fc.integer().map(String), fc.uuid());
  const pct = fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 10_000);

  it('monotonic: a context admitted at p is admitted at every q >= p (same seed)', () => {
    fc.assert(
      fc.property(ids, pct, pct, (id, p, q) => {
        const [lo, hi] = p <= q ? [p, q] : [q, p];
        const at = (percent: number) => evaluatePrimitive(flag(rollout({ percent, targetIds: [] }), []), { userId: id });
        return at(lo).variant !== 'rollout-new' || at(hi).variant === 'rollout-new';
      }),
      { numRuns: 3000 },
    );
  });

  it('compiled and one-shot evaluation agree; the bucket is bucket(seed, String(id)) and the percent the live one', () => {
    const status = fc.constantFrom('active', 'paused', 'completed', 'cancelled' as const);
    fc.assert(
      fc.property(ids, pct, status, fc.boolean(), fc.constantFrom('US', 'MX', undefined), (id, percent, st, hasNew, country) => {
        const r = rollout({ percent, status: st, targetIds: ['user-1', 'x'] });
        if (!hasNew) delete r.newValue;
        const p = flag(r);
        const ctx: EvaluationContext = country === undefined ? { userId: id } : { userId: id, country };
        const one = evaluatePrimitive(p, ctx);
        expect(compilePrimitive(p).evaluate(ctx)).toEqual(one);
        const live = st === 'active' || st === 'paused';
        expect(one.bucket).toBe(live ? bucket('flag:env', id) : null);
        expect(one.rolloutPercent).toBe(live ? percent : null);
      }),
      { numRuns: 2000 },
    );
  });

  it('reason and variant agree: SPLIT only for rollout-new and rollout-base, TARGETING_MATCH only for target-id and rule-<n>', () => {
    const status = fc.constantFrom('active', 'paused', 'completed', 'cancelled' as const);
    const ctxs = fc.record({ userId: fc.option(ids, { nil: undefined }), country: fc.constantFrom('US', 'MX', undefined) }, { requiredKeys: [] });
    fc.assert(
      fc.property(ctxs, pct, status, fc.boolean(), fc.boolean(), (ctx, percent, st, hasNew, hasRules) => {
        const r = rollout({ percent, status: st, targetIds: ['user-1', 'x'] });
        if (!hasNew) delete r.newValue;
        const { reason, variant, value } = evaluatePrimitive(flag(r, hasRules ? [usRule] : []), ctx);
        if (variant === 'target-id' || variant.startsWith('rule-')) expect(reason).toBe('TARGETING_MATCH');
        else if (variant === 'rollout-new' || variant === 'rollout-base') expect(reason).toBe('SPLIT');
        else expect(['STATIC', 'DEFAULT']).toContain(reason);
        if (variant === 'rollout-new' || variant === 'target-id') expect(value).toBe('new');
        if (variant === 'default' || variant === 'rollout-base') expect(value).toBe('old');
        if (reason === 'STATIC') expect(hasRules || st === 'active' || st === 'paused').toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('compileRuleset', () => {
  const ruleset = {
    envId: 'env-1',
    version: 7,
    primitives: [
      flag(rollout()),
      { kind: 'config' as const, key: 'pricing', value: { tier: 1 }, rules: [], rollout: null },
      { kind: 'flag' as const, key: 'f', value: 'duplicate', rules: [], rollout: null },
    ],
  };
  const compiled = compileRuleset(ruleset);
  const pricing: EvaluationResult = { kind: 'config', value: { tier: 1 }, reason: 'STATIC', variant: 'default', branch: 'default', bucket: null, rolloutPercent: null };

  it('evaluates by key; unknown keys are undefined; the first of duplicate keys wins', () => {
    expect(compiled.envId).toBe('env-1');
    expect(compiled.version).toBe(7);
    expect(compiled.keys).toEqual(['f', 'pricing']);
    expect(compiled.has('f')).toBe(true);
    expect(compiled.has('nope')).toBe(false);
    expect(compiled.evaluate('f', { userId: '42' })).toEqual(res('new', 'SPLIT', 'rollout-new', B['42'], 50));
    expect(compiled.evaluate('pricing', {})).toEqual(pricing);
    expect(compiled.evaluate('nope', {})).toBeUndefined();
  });

  it('evaluateAll: all keys or the requested ones (unknown left out)', () => {
    expect({ ...compiled.evaluateAll({ userId: 'user-1' }) }).toEqual({
      f: res('new', 'TARGETING_MATCH', 'target-id', B['user-1'], 50),
      pricing,
    });
    expect(Object.keys(compiled.evaluateAll({}, ['pricing', 'nope', '__proto__']))).toEqual(['pricing']);
  });

  it('captures the ruleset at compile time', () => {
    const p = flag(rollout());
    const c = compileRuleset({ envId: 'e', version: 1, primitives: [p] });
    p.rollout!.percent = 0;
    p.rollout!.targetIds.length = 0;
    expect(c.evaluate('f', { userId: '42' })).toMatchObject({ variant: 'rollout-new', rolloutPercent: 50 });
    expect(c.evaluate('f', { userId: 'user-1' })?.variant).toBe('target-id');
  });
});
