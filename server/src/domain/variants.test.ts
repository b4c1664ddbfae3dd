import { describe, expect, it } from 'vitest';
import { resolveVariant, variantProblems, variantsInUseChanged } from './variants.js';

const boolean = (v: unknown, field: string): Record<string, string> => (typeof v === 'boolean' ? {} : { [field]: 'must be a boolean' });
const fields = { value: 'value', variant: 'variant' };

describe('variantProblems', () => {
  it.each([
    ['none', {}, {}],
    ['a value of the wrong type', { on: true, off: 'no' }, { 'variants.off': 'must be a boolean' }],
    ['two variants with one value', { on: true, yes: true }, { 'variants.yes': 'the same value as "on": each variant has its own value' }],
  ])('%s', (_name, variants, expected) => {
    expect(variantProblems(variants, boolean)).toEqual(expected);
  });

  it('compares values as JSON: object members in any order are one value', () => {
    expect(variantProblems({ a: { x: 1, y: 2 }, b: { y: 2, x: 1 } }, () => ({}))).toEqual({ 'variants.b': 'the same value as "a": each variant has its own value' });
  });
});

describe('resolveVariant', () => {
  const variants = { on: true, off: false };
  it.each([
    ['a value', { value: false }, { value: false }],
    ['null is a value', { value: null }, { value: null }],
    ['a declared name', { variant: 'on' }, { value: true }],
    ['neither', {}, { field: 'value', problem: 'Required' }],
    ['both', { value: true, variant: 'on' }, { field: 'variant', problem: 'send value or variant, not both' }],
    ['an undeclared name', { variant: 'maybe' }, { field: 'variant', problem: 'no variant "maybe" (declared: on, off)' }],
    ['an inherited name', { variant: 'toString' }, { field: 'variant', problem: 'no variant "toString" (declared: on, off)' }],
  ])('%s', (_name, given, expected) => {
    expect(resolveVariant(variants, given, fields)).toEqual(expected);
  });

  it('a name when none are declared', () => {
    expect(resolveVariant({}, { variant: 'on' }, fields)).toEqual({ field: 'variant', problem: 'no variant "on": this flag declares none' });
  });
});

describe('variantsInUseChanged', () => {
  const before = { control: 'classic', a: 'compact', b: 'wide' };
  it.each([
    ['adding a variant', { ...before, c: 'tall' }, ['classic'], []],
    ['removing an unused one', { control: 'classic', a: 'compact' }, ['classic'], []],
    ['removing a used one', { control: 'classic', a: 'compact' }, ['wide'], ['b']],
    ['renaming a used one', { control: 'classic', a: 'compact', beta: 'wide' }, ['wide'], ['b']],
    ['changing a used one\'s value', { ...before, control: 'retro' }, ['classic', 'other'], ['control']],
    ['clearing all, two in use', {}, ['classic', 'compact'], ['control', 'a']],
  ])('%s', (_name, after, inUse, expected) => {
    expect(variantsInUseChanged(before, after, inUse)).toEqual(expected);
  });
});
