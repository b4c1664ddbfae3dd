import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globMatches } from './resource-glob.js';

/** The textbook definition, as a regular expression (exponential on some patterns: small inputs only). */
const byRegExp = (glob: string, key: string) =>
  new RegExp(`^${glob.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(key);

describe('globMatches', () => {
  it.each([
    ['checkout', 'checkout', true],
    ['checkout', 'checkout-v2', false],
    ['check*', 'checkout', true],
    ['check*', 'check', true],
    ['*out', 'checkout', true],
    ['*', '', true],
    ['', '', true],
    ['', 'a', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'acb', false],
    ['a*a', 'a', false],
    ['*a*a*', 'aa', true],
    ['a.b', 'aXb', false],
    ['(x)+', '(x)+', true],
    ['ab*ab', 'abab', true],
    ['ab*ab', 'aba', false],
  ])('%s against %s: %s', (glob, key, expected) => {
    expect(globMatches(glob, key)).toBe(expected);
  });

  it('agrees with the regular expression it replaces', () => {
    const text = (max: number) => fc.string({ unit: fc.constantFrom('a', 'b', '*', '.'), maxLength: max });
    fc.assert(fc.property(text(8), text(10), (glob, key) => globMatches(glob, key.replaceAll('*', 'a')) === byRegExp(glob, key.replaceAll('*', 'a'))), { numRuns: 5000 });
  });

  it('decides the patterns that made the regular expression backtrack (20 × "*a" then "*b" against a 31-character key)', () => {
    expect(globMatches(`${'*a'.repeat(20)}*b`, 'a'.repeat(31))).toBe(false);
    expect(globMatches(`${'*a'.repeat(64)}*b`, `${'a'.repeat(127)}b`)).toBe(true);
  });
});
