import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucket, createBucketer } from './bucket.js';
import type { VectorFile } from '../../scripts/bucketing-vectors.js';
import { murmur3, murmur3Prefix, murmur3WithPrefix } from './murmur3.js';

const vectorFile = JSON.parse(
  readFileSync(new URL('../../fixtures/bucketing.json', import.meta.url), 'utf8'),
) as VectorFile;

/** Straightforward byte-array MurmurHash3_x86_32, seed 0: the reference the streaming version must equal. */
function referenceMurmur3(data: Uint8Array): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  const n = data.length;
  const blocks = n - (n % 4);
  let h = 0;
  for (let i = 0; i < blocks; i += 4) {
    let k = (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24)) >>> 0;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  switch (n & 3) {
    case 3:
      k ^= data[blocks + 2]! << 16;
    // falls through
    case 2:
      k ^= data[blocks + 1]! << 8;
    // falls through
    case 1:
      k ^= data[blocks]!;
      k = Math.imul(k, c1);
      k = (k << 15) | (k >>> 17);
      k = Math.imul(k, c2);
      h ^= k;
  }
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const encoder = new TextEncoder();
const viaTextEncoder = (s: string): number => referenceMurmur3(encoder.encode(s));

/** Any UTF-16 code unit, with surrogates over-represented so pairs and lone halves both occur. */
const codeUnit = fc
  .oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0, max: 0x7f }))
  .map((c) => String.fromCharCode(c));
const anyUtf16 = fc.string({ unit: codeUnit, maxLength: 40 });

describe('reference vectors (sdk/fixtures/bucketing.json)', () => {
  const vectors = vectorFile.vectors;

  it('file is present and non-trivial', () => {
    expect(vectorFile.algorithm).toContain('MurmurHash3_x86_32');
    expect(vectors.length).toBeGreaterThanOrEqual(400);
  });

  it('murmur3, bucket and createBucketer match every vector exactly', () => {
    let matched = 0;
    const failures: string[] = [];
    for (const v of vectors) {
      const h = murmur3(v.seed + ':' + v.id);
      const b = bucket(v.seed, v.id);
      const b2 = createBucketer(v.seed)(v.id);
      if (h === v.hash && b === v.bucket && b2 === v.bucket && viaTextEncoder(v.seed + ':' + v.id) === v.hash) {
        matched++;
      } else {
        failures.push(`${JSON.stringify(v.seed)} ${JSON.stringify(v.id)}: got ${h}/${b}/${b2}, want ${v.hash}/${v.bucket}`);
      }
    }
    expect(failures).toEqual([]);
    expect(matched).toBe(vectors.length);
  });
});

describe('murmur3', () => {
  it('known MurmurHash3_x86_32 (seed 0) values', () => {
    expect(murmur3('')).toBe(0);
    expect(murmur3('hello')).toBe(0x248bfa47);
    expect(murmur3('The quick brown fox jumps over the lazy dog')).toBe(0x2e4ff723);
  });

  it('reference implementation agrees on the known values', () => {
    expect(viaTextEncoder('hello')).toBe(0x248bfa47);
    expect(viaTextEncoder('The quick brown fox jumps over the lazy dog')).toBe(0x2e4ff723);
  });

  it('equals murmur of the TextEncoder bytes for non-ASCII and astral strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => murmur3(s) === viaTextEncoder(s)),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), (s) => murmur3(s) === viaTextEncoder(s)),
      { numRuns: 2000 },
    );
  });

  it('every length 0..40 and every UTF-8 width at every alignment', () => {
    const pieces = ['a', 'é', '€', '用', '🙂', '\u{10FFFF}', '\u0080', '\u07ff', '\u0800', '\uffff'];
    for (let pre = 0; pre < 4; pre++) {
      for (const p of pieces) {
        for (let reps = 0; reps < 10; reps++) {
          const s = 'x'.repeat(pre) + p.repeat(reps);
          expect(murmur3(s)).toBe(viaTextEncoder(s));
        }
      }
    }
  });

  it('lone surrogates hash as U+FFFD (EF BF BD), like TextEncoder, deterministically', () => {
    const cases = ['\ud800', '\udc00', '\udbff', '\udfff', 'a\ud800', '\ud800a', 'ab\udc00cd', '\udc00\ud800', '\ud800\ud800\udc00', 'x\ud83d', '\ude42x'];
    for (const s of cases) {
      const replaced = s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
      expect(Array.from(encoder.encode(s))).toEqual(Array.from(encoder.encode(replaced)));
      expect(murmur3(s)).toBe(viaTextEncoder(s));
      expect(murmur3(s)).toBe(murmur3(replaced));
      expect(murmur3(s)).toBe(murmur3(s));
    }
    expect(murmur3('\ud800')).toBe(referenceMurmur3(new Uint8Array([0xef, 0xbf, 0xbd])));
    // A valid pair is NOT two replacement characters.
    expect(murmur3('\ud83d\ude42')).toBe(murmur3('🙂'));
    expect(murmur3('\ud83d\ude42')).not.toBe(murmur3('\ufffd\ufffd'));
  });

  it('arbitrary UTF-16 (pairs and lone surrogates) equals the TextEncoder bytes', () => {
    fc.assert(fc.property(anyUtf16, (s) => murmur3(s) === viaTextEncoder(s)), { numRuns: 10000 });
  });

  it('result is an unsigned 32-bit integer', () => {
    fc.assert(
      fc.property(anyUtf16, (s) => {
        const h = murmur3(s);
        return Number.isInteger(h) && h >= 0 && h <= 0xffffffff;
      }),
    );
  });

  it('murmur3WithPrefix(prefix(a), b) === murmur3(a + b), surrogates across the boundary included', () => {
    fc.assert(
      fc.property(anyUtf16, anyUtf16, (a, b) => murmur3WithPrefix(murmur3Prefix(a), b) === murmur3(a + b)),
      { numRuns: 10000 },
    );
    expect(murmur3WithPrefix(murmur3Prefix('x\ud83d'), '\ude42')).toBe(murmur3('x🙂'));
  });
});
