import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucket } from './bucket.js';
import { compilePrimitive, compileRuleset, evaluatePrimitive } from './evaluate.js';
import type { EvaluationContext, EvaluationResult, Rule, RulesetPrimitive, RulesetRollout } from './types.js';

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

const res = (value: unknown, reason: EvaluationResult['reason'], b: number | null): EvaluationResult => ({
  kind: 'flag',
  value,
  reason,
  bucket: b,
});

type Case = [name: string, ctx: EvaluationContext, expected: EvaluationResult];

function check(p: RulesetPrimitive, cases: Case[]): void {
  const compiled = compilePrimitive(p);
  for (const [name, ctx, expected] of cases) {
    expect(evaluatePrimitive(p, ctx), name).toEqual(expected);
    expect(compiled.evaluate(ctx), name).toEqual(expected);
  }
}

describe('evaluation order (rollout carries newValue)', () => {
  it('target id → rollout → rule → default', () => {
    check(flag(rollout()), [
      ['targeted, not admitted', { userId: 'user-1' }, res('new', 'target_id', B['user-1'])],
      ['targeted beats rule', { userId: 'user-1', country: 'US' }, res('new', 'target_id', B['user-1'])],
      ['admitted', { userId: '42' }, res('new', 'rollout', B['42'])],
      ['admitted beats rule', { userId: '42', country: 'US' }, res('new', 'rollout', B['42'])],
      ['not admitted, rule', { userId: 'user-2', country: 'US' }, res('us-rule', 'rule', B['user-2'])],
      ['not admitted, no rule', { userId: 'user-2', country: 'MX' }, res('old', 'default', B['user-2'])],
      ['no bucket field, rule', { country: 'US' }, res('us-rule', 'rule', null)],
      ['no bucket field', {}, res('old', 'default', null)],
      ['numeric bucket field = String(n)', { userId: 42 }, res('new', 'rollout', B['42'])],
      ['negative number', { userId: -1 }, res('old', 'default', B['-1'])],
      ['null bucket field', { userId: null }, res('old', 'default', null)],
      ['object bucket field', { userId: { id: '42' } }, res('old', 'default', null)],
      ['array bucket field', { userId: ['42'], country: 'US' }, res('us-rule', 'rule', null)],
      ['other field name', { user_id: '42' }, res('old', 'default', null)],
    ]);
  });

  it('bucket is computed with the rollout seed and String(value)', () => {
    const r = evaluatePrimitive(flag(rollout({ seed: 'my-seed' })), { userId: 12345 });
    expect(r.bucket).toBe(bucket('my-seed', '12345'));
  });

  it('a target ID matches only the exact string form; numbers via String(n)', () => {
    const p = flag(rollout({ percent: 0, targetIds: ['42', 'alice@example.com'] }));
    check(p, [
      ['string', { userId: '42' }, res('new', 'target_id', B['42'])],
      ['number', { userId: 42 }, res('new', 'target_id', B['42'])],
      ['case-sensitive', { userId: 'ALICE@example.com' }, res('old', 'default', bucket('flag:env', 'ALICE@example.com'))],
      ['missing field', { id: '42' }, res('old', 'default', null)],
    ]);
  });

  it('large allow-lists: every listed id hits, unlisted ids miss (duplicates tolerated)', () => {
    const listed = Array.from({ length: 5000 }, (_, i) => `t-${i}`);
    const p = flag(rollout({ percent: 0, targetIds: [...listed, ...listed.slice(0, 100)] }), []);
    const c = compilePrimitive(p);
    for (const id of listed) expect(c.evaluate({ userId: id }).reason).toBe('target_id');
    for (let i = 5000; i < 25_000; i++) expect(c.evaluate({ userId: `t-${i}` }).reason).toBe('default');
    expect(c.evaluate({ userId: 't-0 ' }).reason).toBe('default');
  });

  it('percent boundaries: 0 admits nobody, 100 everybody; admission is bucket < percent', () => {
    check(flag(rollout({ percent: 0, targetIds: [] }), []), [
      ['0%', { userId: 'alice@example.com' }, res('old', 'default', B['alice@example.com'])],
    ]);
    check(flag(rollout({ percent: 100, targetIds: [] }), []), [
      ['100%', { userId: 'user-1' }, res('new', 'rollout', B['user-1'])],
    ]);
    check(flag(rollout({ percent: B['42'], targetIds: [] }), []), [['equal', { userId: '42' }, res('old', 'default', B['42'])]]);
    check(flag(rollout({ percent: 16.4284, targetIds: [] }), []), [['just above', { userId: '42' }, res('new', 'rollout', B['42'])]]);
  });

  it('null is a real candidate value', () => {
    check(flag(rollout({ newValue: null }), []), [['admitted', { userId: '42' }, res(null, 'rollout', B['42'])]]);
  });

  it('first matching rule wins; a rule without conditions is a catch-all', () => {
    const rules: Rule[] = [
      { conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: 'pro' },
      usRule,
      { conditions: [], value: 'everyone' },
    ];
    check(flag(null, rules), [
      ['first', { plan: 'pro', country: 'US' }, res('pro', 'rule', null)],
      ['second', { plan: 'free', country: 'US' }, res('us-rule', 'rule', null)],
      ['catch-all', {}, res('everyone', 'rule', null)],
    ]);
  });

  it('no rollout, no rules: base value', () => {
    check(flag(null, []), [['base', { userId: '42' }, res('old', 'default', null)]]);
  });
});

describe('rollout status', () => {
  it('paused (user / approval gate): admission continues at the held percent', () => {
    check(flag(rollout({ status: 'paused' })), [
      ['targeted', { userId: 'user-1' }, res('new', 'target_id', B['user-1'])],
      ['admitted', { userId: '42' }, res('new', 'rollout', B['42'])],
      ['not admitted', { userId: 'user-2', country: 'US' }, res('us-rule', 'rule', B['user-2'])],
    ]);
  });

  it('paused by auto-rollback (percent 0): nobody admitted by percentage, target IDs still get the candidate', () => {
    check(flag(rollout({ status: 'paused', percent: 0 })), [
      ['formerly admitted', { userId: 'alice@example.com' }, res('old', 'default', B['alice@example.com'])],
      ['formerly admitted, rule', { userId: '42', country: 'US' }, res('us-rule', 'rule', B['42'])],
      ['targeted', { userId: 'user-1' }, res('new', 'target_id', B['user-1'])],
    ]);
  });

  it.each(['completed', 'cancelled'] as const)('%s rollouts are ignored (no candidate, no bucket)', (status) => {
    check(flag(rollout({ status, percent: 100 })), [
      ['targeted', { userId: 'user-1' }, res('old', 'default', null)],
      ['would be admitted', { userId: '42' }, res('old', 'default', null)],
      ['rule', { userId: '42', country: 'US' }, res('us-rule', 'rule', null)],
    ]);
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
      ['admitted + rule', { userId: '42', country: 'US' }, res('us-rule', 'rule', B['42'])],
      ['admitted, no rule', { userId: '42', country: 'MX' }, res('old', 'default', B['42'])],
      ['not admitted + rule', { userId: 'user-2', country: 'US' }, res('old', 'default', B['user-2'])],
      ['not admitted', { userId: 'user-2' }, res('old', 'default', B['user-2'])],
      ['targeted + rule', { userId: 'user-1', country: 'US' }, res('us-rule', 'rule', B['user-1'])],
      ['targeted, no rule', { userId: 'user-1' }, res('old', 'default', B['user-1'])],
      ['no bucket field + rule', { country: 'US' }, res('old', 'default', null)],
    ]);
  });

  it('newValue: undefined also gates', () => {
    check(flag(rollout({ newValue: undefined })), [
      ['not admitted + rule', { userId: 'user-2', country: 'US' }, res('old', 'default', B['user-2'])],
    ]);
  });

  it('paused at 0 (auto-rollback): only target IDs unlock the rules', () => {
    check(flag(gated({ status: 'paused', percent: 0 })), [
      ['formerly admitted', { userId: '42', country: 'US' }, res('old', 'default', B['42'])],
      ['targeted', { userId: 'user-1', country: 'US' }, res('us-rule', 'rule', B['user-1'])],
    ]);
  });

  it('100% admits everyone with the field', () => {
    check(flag(gated({ percent: 100 })), [['any', { userId: 'user-2', country: 'US' }, res('us-rule', 'rule', B['user-2'])]]);
  });

  it.each(['completed', 'cancelled'] as const)('%s: rules are no longer gated', (status) => {
    check(flag(gated({ status })), [
      ['rule', { userId: 'user-2', country: 'US' }, res('us-rule', 'rule', null)],
      ['no field, rule', { country: 'US' }, res('us-rule', 'rule', null)],
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
        return at(lo).reason !== 'rollout' || at(hi).reason === 'rollout';
      }),
      { numRuns: 3000 },
    );
  });

  it('compiled and one-shot evaluation agree, and the reported bucket is bucket(seed, String(id))', () => {
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

  it('evaluates by key; unknown keys are undefined; the first of duplicate keys wins', () => {
    expect(compiled.envId).toBe('env-1');
    expect(compiled.version).toBe(7);
    expect(compiled.keys).toEqual(['f', 'pricing']);
    expect(compiled.has('f')).toBe(true);
    expect(compiled.has('nope')).toBe(false);
    expect(compiled.evaluate('f', { userId: '42' })).toEqual(res('new', 'rollout', B['42']));
    expect(compiled.evaluate('pricing', {})).toEqual({ kind: 'config', value: { tier: 1 }, reason: 'default', bucket: null });
    expect(compiled.evaluate('nope', {})).toBeUndefined();
  });

  it('evaluateAll: all keys or the requested ones (unknown left out)', () => {
    expect({ ...compiled.evaluateAll({ userId: 'user-1' }) }).toEqual({
      f: res('new', 'target_id', B['user-1']),
      pricing: { kind: 'config', value: { tier: 1 }, reason: 'default', bucket: null },
    });
    expect(Object.keys(compiled.evaluateAll({}, ['pricing', 'nope', '__proto__']))).toEqual(['pricing']);
  });

  it('captures the ruleset at compile time', () => {
    const p = flag(rollout());
    const c = compileRuleset({ envId: 'e', version: 1, primitives: [p] });
    p.rollout!.percent = 0;
    p.rollout!.targetIds.length = 0;
    expect(c.evaluate('f', { userId: '42' })?.reason).toBe('rollout');
    expect(c.evaluate('f', { userId: 'user-1' })?.reason).toBe('target_id');
  });
});
