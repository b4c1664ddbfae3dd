import type { Rule } from '@gradual/sdk';
import { describe, expect, it } from 'vitest';
import { emptyCondition, emptyRule, fromDrafts, segmentKeysOf, toDraft, withOperator } from './rule-drafts';

const RULES: Rule[] = [
  {
    description: 'Beta testers in the Netherlands',
    conditions: [
      { attribute: 'userId', operator: 'in_segment', values: ['beta-testers', 'staff'] },
      { attribute: 'country', operator: 'in', values: ['NL', 'BE'] },
      { attribute: 'age', operator: 'gte', values: [18] },
    ],
    value: { theme: 'dark' },
  },
  { conditions: [], value: false },
];

describe('rule drafts', () => {
  it('round-trips rules through drafts, segment keys and numbers included', () => {
    const drafts = RULES.map(toDraft);
    expect(drafts[0]!.conditions[0]).toEqual({ attribute: 'userId', operator: 'in_segment', values: '', segments: ['beta-testers', 'staff'] });
    expect(drafts[0]!.conditions[1]!.values).toBe('NL, BE');
    expect(fromDrafts(drafts, true)).toEqual({ ok: true, rules: RULES });
  });

  it('keys each problem by the dotted path the server uses for the same field', () => {
    const bad = [
      {
        description: '',
        conditions: [
          { ...emptyCondition() },
          { attribute: 'age', operator: 'gt' as const, values: '18, many', segments: [] },
          { attribute: 'userId', operator: 'not_in_segment' as const, values: '', segments: [] },
        ],
        value: '{not json',
      },
    ];
    const result = fromDrafts(bad, true);
    expect(result).toEqual({
      ok: false,
      errors: {
        'rules.0.conditions.0.attribute': 'Enter the context attribute to test.',
        'rules.0.conditions.0.values': 'Enter at least one value.',
        'rules.0.conditions.1.values': 'Comparisons take numbers.',
        'rules.0.conditions.2.values': 'Pick at least one segment.',
        'rules.0.value': 'Not valid JSON.',
      },
    });
  });

  it('segment rules carry no value and need a condition; flag rules may match everyone', () => {
    expect(fromDrafts([emptyRule(false, false)], false)).toEqual({ ok: false, errors: { 'rules.0.conditions': 'A segment rule needs at least one condition.' } });
    const segmentRule = { ...emptyRule(false, true), conditions: [{ attribute: 'plan', operator: 'in' as const, values: 'pro', segments: [] }] };
    expect(fromDrafts([segmentRule], false)).toEqual({ ok: true, rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }] }] });
    expect(fromDrafts([emptyRule(true, false)], true)).toEqual({ ok: true, rules: [{ conditions: [], value: true }] });
  });

  it('a segment operator defaults an empty attribute to the target-ID field and keeps a typed one', () => {
    expect(withOperator(emptyCondition(), 'in_segment', 'accountId').attribute).toBe('accountId');
    expect(withOperator({ ...emptyCondition(), attribute: 'email' }, 'in_segment', 'accountId').attribute).toBe('email');
    expect(withOperator(emptyCondition(), 'contains', 'accountId').attribute).toBe('');
  });

  it('lists the segments rules name, each once', () => {
    expect(segmentKeysOf([...RULES, { conditions: [{ attribute: 'userId', operator: 'not_in_segment', values: ['staff'] }], value: 1 }])).toEqual(['beta-testers', 'staff']);
  });
});
