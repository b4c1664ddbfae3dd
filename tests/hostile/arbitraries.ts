/**
 * fast-check arbitraries derived from the contract's zod schemas (zod 3 `_def`),
 * for the types the contract uses: object, string (min/max/regex/uuid/email),
 * number (min/max/int), boolean, enum, array, record, union, optional,
 * nullable, effects (refinements), unknown. `validish` aims inside the
 * schema; `hostile` mixes in wrong types, missing and extra members, edge
 * numbers and unicode edge cases.
 */
import fc from 'fast-check';
import type { ZodTypeAny } from 'zod';
import { RawJson } from './support.js';

/** Strings that have broken servers before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\t\n',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x10',
  'true',
  '[]',
  '{}',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'a\udfffb',
  '\uffff',
  '\ufeffbom',
  '\u202eRTL override',
  'مرحبا بالعالم',
  'e\u0301\u0301\u0301',
  'Z̴̡̛̗͉a̷̢͎l̵̡̛g̶o̵',
  '🚀👩‍👩‍👧‍👦🏳️‍🌈',
  '𝕳𝖊𝖑𝖑𝖔',
  '<script>alert(1)</script>',
  "'; drop table users; --",
  '../../etc/passwd',
  '%00',
  '%2F',
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  'x'.repeat(257),
  'y'.repeat(5000),
];

/** Numbers at the edges (RawJson: JSON text that JSON.stringify cannot produce). */
export const NASTY_NUMBERS: unknown[] = [
  0,
  -0,
  -1,
  1,
  0.1 + 0.2,
  100.00001,
  99.99999,
  1e-7,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  new RawJson('1e309'),
  new RawJson('-1e309'),
  new RawJson('-0.0'),
  new RawJson('1E2'),
  new RawJson('100.0000000000000000000001'),
  new RawJson('123456789012345678901234567890'),
];

export const nastyString = fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'binary', maxLength: 40 }));
export const nastyNumber = fc.oneof(fc.constantFrom(...NASTY_NUMBERS), fc.double(), fc.integer());

/** Any JSON value, including the edge cases above, nested a little. */
export const nastyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    nastyNumber,
    nastyString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(nastyString, fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 4 }),
  ),
})).value;

type Def = Record<string, unknown> & { typeName: string };
const defOf = (s: ZodTypeAny) => s._def as unknown as Def;
type Check = { kind: string; value?: number; regex?: RegExp; inclusive?: boolean };

function unwrap(s: ZodTypeAny): ZodTypeAny {
  let cur = s;
  for (;;) {
    const d = defOf(cur);
    if (d.typeName === 'ZodEffects') cur = d.schema as ZodTypeAny;
    else return cur;
  }
}

/** Values meant to satisfy the schema (refinements may still reject a few). */
export function validish(schema: ZodTypeAny, depth = 0): fc.Arbitrary<unknown> {
  const d = defOf(schema);
  switch (d.typeName) {
    case 'ZodEffects':
      return validish(d.schema as ZodTypeAny, depth);
    case 'ZodOptional':
      return fc.option(validish(d.innerType as ZodTypeAny, depth), { nil: undefined, freq: 3 });
    case 'ZodNullable':
      return fc.option(validish(d.innerType as ZodTypeAny, depth), { nil: null, freq: 4 });
    case 'ZodDefault':
      return validish(d.innerType as ZodTypeAny, depth);
    case 'ZodBoolean':
      return fc.boolean();
    case 'ZodUnknown':
    case 'ZodAny':
      return fc.jsonValue({ maxDepth: 2 });
    case 'ZodEnum':
      return fc.constantFrom(...(d.values as string[]));
    case 'ZodLiteral':
      return fc.constant(d.value);
    case 'ZodNumber':
      return numberArb((d.checks as Check[]) ?? []);
    case 'ZodString':
      return stringArb((d.checks as Check[]) ?? []);
    case 'ZodArray': {
      const min = (d.minLength as { value: number } | null)?.value ?? 0;
      const max = Math.min((d.maxLength as { value: number } | null)?.value ?? 4, Math.max(min, 4));
      return fc.array(validish(d.type as ZodTypeAny, depth + 1), { minLength: min, maxLength: max });
    }
    case 'ZodRecord':
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), validish(d.valueType as ZodTypeAny, depth + 1), { maxKeys: 3 });
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion':
      return fc.oneof(...(d.options as ZodTypeAny[]).map((o) => validish(o, depth + 1)));
    case 'ZodObject': {
      const shape = (d.shape as () => Record<string, ZodTypeAny>)();
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(shape)) model[k] = validish(v, depth + 1);
      return fc.record(model).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function numberArb(checks: Check[]): fc.Arbitrary<number> {
  const int = checks.some((c) => c.kind === 'int');
  let min = int ? -1000 : -1000;
  let max = 1000;
  for (const c of checks) {
    if (c.kind === 'min' && c.value !== undefined) min = c.value;
    if (c.kind === 'max' && c.value !== undefined) max = c.value;
  }
  if (int) return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  return fc.oneof(
    fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
    fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => Math.round(n * 100) / 100),
  );
}

function stringArb(checks: Check[]): fc.Arbitrary<string> {
  let min = 0;
  let max = 24;
  let regex: RegExp | undefined;
  let special: fc.Arbitrary<string> | undefined;
  for (const c of checks) {
    if (c.kind === 'min' && c.value !== undefined) min = c.value;
    if (c.kind === 'max' && c.value !== undefined) max = Math.min(c.value, Math.max(min, 24));
    if (c.kind === 'regex') regex = c.regex;
    if (c.kind === 'uuid') special = fc.uuid();
    if (c.kind === 'url') special = fc.webUrl({ validSchemes: ['https', 'http'] });
    if (c.kind === 'email') special = fc.emailAddress().filter((e) => e.length <= 200);
    if (c.kind === 'datetime') special = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  }
  if (special) return special;
  if (regex) {
    // fast-check cannot generate for a case-insensitive pattern: its lower-case matches are matches too.
    const re = regex.flags.includes('i') ? new RegExp(regex.source, regex.flags.replace('i', '')) : regex;
    return fc.stringMatching(re, { size: 'small' }).filter((s) => s.length >= Math.max(min, 1) && s.length <= max);
  }
  return fc.string({ minLength: min, maxLength: Math.max(min, max), unit: 'grapheme' });
}

/** A hostile replacement for one value: another type, an edge case, or a neighbour of the schema. */
const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: nastyString, weight: 3 },
  { arbitrary: nastyNumber, weight: 3 },
  { arbitrary: fc.constantFrom(null, true, false, [], {}, [[[[]]]], { __proto__: null, a: 1 }), weight: 2 },
  { arbitrary: nastyJson, weight: 2 },
);

/**
 * Bodies (or query objects) that are mostly wrong: a valid-looking object
 * with one to three members broken (wrong type, edge value, removed) and
 * sometimes extra members (`__proto__`, `constructor`, junk); or something
 * that is not the right shape at all.
 */
export function hostile(schema: ZodTypeAny): fc.Arbitrary<unknown> {
  const base = unwrap(schema);
  const d = defOf(base);
  const whole = fc.oneof(hostileScalar, fc.array(nastyJson, { maxLength: 3 }));
  if (d.typeName !== 'ZodObject') return fc.oneof(whole, validish(schema));
  const keys = Object.keys((d.shape as () => Record<string, ZodTypeAny>)());
  const protoKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', '\u0000', 'a.b', '$where');
  const mutated = fc
    .tuple(
      validish(schema),
      fc.array(fc.tuple(keys.length ? fc.constantFrom(...keys) : fc.constant('x'), fc.option(hostileScalar, { nil: undefined, freq: 5 })), { minLength: 1, maxLength: 3 }),
      fc.array(fc.tuple(fc.oneof(protoKey, fc.string({ maxLength: 8 })), fc.oneof(hostileScalar, fc.constant({ polluted: true, isAdmin: true }))), { maxLength: 2 }),
    )
    .map(([valid, breaks, extras]) => {
      const obj: Record<string, unknown> = { ...(valid as Record<string, unknown>) };
      for (const [k, v] of breaks) {
        if (v === undefined) delete obj[k];
        else obj[k] = v;
      }
      for (const [k, v] of extras) Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
      return obj;
    });
  return fc.oneof({ arbitrary: mutated, weight: 6 }, { arbitrary: whole, weight: 2 }, { arbitrary: validish(schema), weight: 2 });
}

function encodable(s: string): boolean {
  try {
    encodeURIComponent(s);
    return s.length > 0;
  } catch {
    return false;
  }
}

/** A path segment, already encoded for the URL: hostile or random. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%2F',
    '..',
    '%2e%2e',
    '.',
    '%00',
    '%ZZ',
    '%',
    '%E0%A4%A',
    '%ED%A0%80',
    '%C0%AF',
    '%F0%9F%9A%80',
    'a%0D%0AX-Injected:%201',
    '00000000-0000-0000-0000-000000000000',
    'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    '3f1c1f0e-8a43-4f6e-9b1a-2c8a5d8f4b10',
    "'%20OR%201=1--",
    '*',
    '%2A',
    'x'.repeat(2000),
    encodeURIComponent('é'.repeat(300)),
  ),
  fc.uuid(),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
  fc.constantFrom(...NASTY_STRINGS.filter(encodable)).map(encodeURIComponent),
);

/** A query string (without `?`) built from a query schema: mostly hostile, sometimes valid. */
export function queryArb(schema: ZodTypeAny | undefined): fc.Arbitrary<string> {
  const keys = schema && defOf(unwrap(schema)).typeName === 'ZodObject' ? Object.keys((defOf(unwrap(schema)).shape as () => object)()) : [];
  const key = fc.oneof(keys.length ? fc.constantFrom(...keys) : fc.constant('q'), fc.constantFrom('__proto__', 'constructor', 'a[b]', 'limit[$gt]'), fc.string({ maxLength: 6 }));
  const value = fc.oneof(
    fc.constantFrom('', '0', '-1', '1e309', 'NaN', '1.5', '201', '10001', '999999999999999999999', 'null', 'true', '%00', '%ZZ', '%ED%A0%80', 'x'.repeat(600)),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
    fc.uuid(),
    fc.integer({ min: 1, max: 200 }).map(String),
  );
  const pairs = fc.array(fc.tuple(key, value), { maxLength: 4 }).map((ps) => ps.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${v}`));
  const valid = schema
    ? validish(schema).map((q) =>
        Object.entries((q ?? {}) as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`),
      )
    : fc.constant([] as string[]);
  return fc.oneof(pairs, valid).map((parts) => parts.join('&'));
}
