import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalString, matchCondition, matchRule, numericValue } from './rules.js';
import type { Condition, ConditionOperator, EvaluationContext } from './types.js';

type Row = [attr: unknown, operator: ConditionOperator, values: (string | number)[], expected: boolean];

const cond = (operator: ConditionOperator, values: (string | number)[], attribute = 'a'): Condition => ({ attribute, operator, values });

// Each row: context { a: attr } (attr undefined → key absent).
const table: Row[] = [
  // in: canonical-string equality, OR over values
  ['US', 'in', ['US', 'CA'], true],
  ['CA', 'in', ['US', 'CA'], true],
  ['MX', 'in', ['US', 'CA'], false],
  ['us', 'in', ['US'], false], // case-sensitive
  [' US', 'in', ['US'], false], // no trimming
  [1, 'in', [1], true],
  [1, 'in', ['1'], true],
  ['1', 'in', [1], true],
  ['1.0', 'in', [1], false], // canonical form of 1 is "1"
  [1.5, 'in', ['1.5'], true],
  [true, 'in', ['true'], true],
  [false, 'in', ['true'], false],
  [10n, 'in', [10], true],
  ['US', 'in', [], false],
  [['a', 'US'], 'in', ['US'], true], // array: any element
  [['a', 'b'], 'in', ['US'], false],
  [[], 'in', ['US'], false],
  [[{}, ['US']], 'in', ['US'], false], // non-scalar and nested elements ignored
  [{ US: 1 }, 'in', ['US'], false], // object attribute: missing
  [undefined, 'in', ['US'], false],
  [null, 'in', ['US'], false],

  // not_in: none of the values; missing attribute never matches
  ['MX', 'not_in', ['US', 'CA'], true],
  ['US', 'not_in', ['US', 'CA'], false],
  [1, 'not_in', ['1'], false],
  ['US', 'not_in', [], true],
  [undefined, 'not_in', ['US'], false],
  [null, 'not_in', ['US'], false],
  [{}, 'not_in', ['US'], false],
  [['a', 'b'], 'not_in', ['US'], true],
  [['a', 'US'], 'not_in', ['US'], false],
  [[], 'not_in', ['US'], true], // empty array: present, no element is in values

  // starts_with / ends_with / contains: on String(attribute)
  ['alice@example.com', 'starts_with', ['bob', 'alice'], true],
  ['alice@example.com', 'starts_with', ['example'], false],
  ['alice@example.com', 'starts_with', [''], true],
  ['Alice', 'starts_with', ['alice'], false],
  [94107, 'starts_with', ['94'], true], // numbers stringified
  [94107, 'starts_with', [94], true],
  ['alice@example.com', 'ends_with', ['@example.com'], true],
  ['alice@example.com', 'ends_with', ['@example.org', '.com'], true],
  ['alice@example.com', 'ends_with', ['alice'], false],
  ['alice@example.com', 'contains', ['@'], true],
  ['alice@example.com', 'contains', ['zzz'], false],
  ['ÅngströmÜser', 'contains', ['ström'], true],
  [['x-beta', 'y'], 'starts_with', ['x-'], true],
  [['y'], 'contains', ['x'], false],
  [undefined, 'contains', [''], false],
  [{ toString: () => 'abc' }, 'contains', ['abc'], false],

  // numeric operators
  [21, 'gt', [18], true],
  [18, 'gt', [18], false],
  [18, 'gte', [18], true],
  [17, 'gte', [18], false],
  [17, 'lt', [18], true],
  [18, 'lt', [18], false],
  [18, 'lte', [18], true],
  [19, 'lte', [18], false],
  [20, 'gt', [18, 25], true], // OR: > any value, i.e. > min
  [20, 'lt', [18, 25], true], // OR: < any value, i.e. < max
  [30, 'lt', [18, 25], false],
  ['42', 'gt', [40], true], // decimal numeric string attribute
  ['-3.5', 'lt', [0], true],
  ['1e3', 'gte', [1000], true],
  [42, 'gt', ['40'], true], // numeric string condition value
  [42, 'gt', ['abc'], false], // non-numeric condition values ignored
  [42, 'gt', ['abc', 41], true],
  [42, 'gt', [], false],
  ['', 'lt', [1], false], // empty string is not 0
  [' 5', 'lt', [10], false], // no whitespace
  ['0x10', 'gt', [1], false], // no hex
  ['abc', 'gt', [1], false],
  [true, 'gt', [0], false], // booleans are not numbers
  [Number.NaN, 'lt', [1], false],
  [Number.POSITIVE_INFINITY, 'gt', [1], false],
  [5n, 'gt', [4], true],
  [[1, 30], 'gt', [18], true], // array: any element
  [[1, 2], 'gt', [18], false],
  [undefined, 'lt', [18], false],
  [null, 'lt', [18], false],
];

describe('matchCondition: every operator', () => {
  it.each(table.map((r, i) => [i, ...r] as const))('#%i %o %s %o → %s', (_i, attr, operator, values, expected) => {
    const ctx: EvaluationContext = attr === undefined ? {} : { a: attr };
    expect(matchCondition(cond(operator, values), ctx)).toBe(expected);
  });

  it('inherited Object.prototype names are missing', () => {
    expect(matchCondition(cond('not_in', ['x'], 'constructor'), {})).toBe(false);
    expect(matchCondition(cond('not_in', ['x'], 'toString'), {})).toBe(false);
    expect(matchCondition(cond('not_in', ['x'], '__proto__'), {})).toBe(false);
  });

  it('an unknown operator never matches (forward compatibility)', () => {
    const c = { attribute: 'a', operator: 'matches_regex', values: ['.*'] } as unknown as Condition;
    expect(matchCondition(c, { a: 'x' })).toBe(false);
    expect(matchRule({ conditions: [c], value: 1 }, { a: 'x' })).toBe(false);
  });

  it('not_in is the negation of in for every present scalar', () => {
    const scalar = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -5, max: 5 }), fc.boolean());
    fc.assert(
      fc.property(scalar, fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -5, max: 5 }))), (a, values) => {
        const ctx = { a };
        return matchCondition(cond('not_in', values), ctx) === !matchCondition(cond('in', values), ctx);
      }),
    );
  });
});

describe('matchRule', () => {
  const rule = {
    conditions: [cond('in', ['US', 'CA'], 'country'), cond('gte', [18], 'age')],
    value: 'x',
  };
  it('AND across conditions', () => {
    expect(matchRule(rule, { country: 'US', age: 30 })).toBe(true);
    expect(matchRule(rule, { country: 'US', age: 10 })).toBe(false);
    expect(matchRule(rule, { country: 'MX', age: 30 })).toBe(false);
    expect(matchRule(rule, { country: 'US' })).toBe(false);
  });
  it('no conditions matches everything', () => {
    expect(matchRule({ conditions: [], value: 1 }, {})).toBe(true);
  });
});

describe('helpers', () => {
  it('canonicalString', () => {
    expect(canonicalString('a')).toBe('a');
    expect(canonicalString(42)).toBe('42');
    expect(canonicalString(-0)).toBe('0');
    expect(canonicalString(1e21)).toBe('1e+21');
    expect(canonicalString(true)).toBe('true');
    expect(canonicalString(null)).toBeNull();
    expect(canonicalString(undefined)).toBeNull();
    expect(canonicalString({})).toBeNull();
    expect(canonicalString([1])).toBeNull();
  });
  it('numericValue', () => {
    expect(numericValue(3)).toBe(3);
    expect(numericValue('3')).toBe(3);
    expect(numericValue('+3.')).toBe(3);
    expect(numericValue('.5')).toBe(0.5);
    expect(numericValue('1e400')).toBeNaN();
    expect(numericValue('')).toBeNaN();
    expect(numericValue('1_000')).toBeNaN();
    expect(numericValue(true)).toBeNaN();
  });
});
