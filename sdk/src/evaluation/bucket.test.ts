import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucket, createBucketer, isAdmitted } from './bucket.js';

describe('bucket', () => {
  it('is in [0, 100) and equals createBucketer', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (seed, id) => {
        const b = bucket(seed, id);
        return b >= 0 && b < 100 && createBucketer(seed)(id) === b;
      }),
      { numRuns: 5000 },
    );
  });

  it('is deterministic and depends on the seed', () => {
    expect(bucket('flag:env', 'user-1')).toBe(bucket('flag:env', 'user-1'));
    expect(bucket('flag:env', 'user-1')).toBe(99.97520176693797); // a reference vector
    expect(bucket('other:env', 'user-1')).not.toBe(bucket('flag:env', 'user-1'));
  });

  it('isAdmitted: percent 0 admits nobody, 100 everybody, strict "<" at the boundary', () => {
    fc.assert(
      fc.property(fc.string(), (id) => {
        const b = bucket('k:e', id);
        return !isAdmitted(b, 0) && isAdmitted(b, 100);
      }),
    );
    expect(isAdmitted(37.5, 37.5)).toBe(false);
    expect(isAdmitted(37.49999, 37.5)).toBe(true);
    expect(isAdmitted(0, 0)).toBe(false);
    expect(isAdmitted(0, 0.0001)).toBe(true);
  });

  it('monotonic: raising the percent only ever adds contexts', () => {
    const percent = fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 10_000); // 0..100, 4 decimals
    fc.assert(
      fc.property(fc.string(), fc.string(), percent, percent, (seed, id, p, q) => {
        const [lo, hi] = p <= q ? [p, q] : [q, p];
        const b = bucket(seed, id);
        return !isAdmitted(b, lo) || isAdmitted(b, hi);
      }),
      { numRuns: 10000 },
    );
  });

  it('monotonic over a population: the admitted set at p is a subset of the one at q >= p', () => {
    const bucketer = createBucketer('checkout-v2:production');
    const buckets = Array.from({ length: 20_000 }, (_, i) => bucketer(`user-${i}`));
    let previous = new Set<number>();
    for (const p of [0, 0.0001, 1, 5, 10, 25, 37.5, 50, 75, 99.9999, 100]) {
      const admitted = new Set<number>();
      buckets.forEach((b, i) => {
        if (isAdmitted(b, p)) admitted.add(i);
      });
      let lost = 0;
      for (const i of previous) if (!admitted.has(i)) lost++;
      expect(lost).toBe(0);
      previous = admitted;
    }
    expect(previous.size).toBe(buckets.length);
  });

  /*
   * Uniformity over 1,000,000 ids ("user-0" … "user-999999", sequential ids
   * being the realistic worst case), 100 equal-width buckets.
   * Each count is Binomial(n = 1e6, p = 0.01): mean 10,000, sd ≈ 99.5.
   * Tolerances chosen so a truly uniform hash fails with negligible probability:
   * - every bucket within ±6% (±600 ≈ 6.03 sd): P(any of 100 outside) ≈ 2.4e-7
   *   (Bonferroni). A ±3% bound would be only ≈ 3 sd and a perfect hash would
   *   fail it about 27% of the time, so it is not used.
   * - Pearson chi-square over the 100 cells (99 d.o.f.) below 180.8, its
   *   1e-6 upper quantile.
   * - the fraction admitted at 37.5% within ±0.25 points (≈ 5.2 sd).
   * The id set is fixed, so the test is deterministic; the tolerances say how
   * far from uniform the hash would have to be before it fails.
   */
  it('is uniform over 1,000,000 ids (each of 100 cells within ±6%, chi-square < 180.8)', () => {
    const n = 1_000_000;
    const counts = new Array<number>(100).fill(0);
    const bucketer = createBucketer('checkout-v2:production');
    let admitted = 0;
    for (let i = 0; i < n; i++) {
      const b = bucketer(`user-${i}`);
      counts[Math.floor(b)]!++;
      if (b < 37.5) admitted++;
    }
    const expected = n / 100;
    let chi2 = 0;
    for (const c of counts) {
      expect(Math.abs(c - expected)).toBeLessThanOrEqual(expected * 0.06);
      chi2 += (c - expected) ** 2 / expected;
    }
    expect(chi2).toBeLessThan(180.8);
    expect(Math.abs((admitted / n) * 100 - 37.5)).toBeLessThan(0.25);
  });
});
