/**
 * Seeded simulations of guarded steps (docs/guards.md, "How often it is wrong"): the false-rollback
 * rate when nothing changed, and how fast a real regression is caught. A check runs after every
 * batch of exposures, as the scheduler's would, and a rollback is the first check whose e-value
 * reaches 1/α (α = 0.05, one metric).
 */
import { describe, expect, it } from 'vitest';
import { armOf } from '@gradual/sdk/evaluation';
import { addInterval, countLogE, countTest, meanTest, srmLogBayesFactor, type Moments } from './statistics.js';

const ALPHA = 0.05;
const THRESHOLD = Math.log(1 / ALPHA);

/** mulberry32: a seeded uniform generator in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Binomial(n, p) by inversion (the counts here have small means). */
function binomial(random: () => number, n: number, p: number): number {
  const q = 1 - p;
  let prob = Math.pow(q, n);
  let cumulative = prob;
  const u = random();
  let k = 0;
  while (u > cumulative && k < n) {
    k++;
    prob *= ((n - k + 1) / k) * (p / q);
    cumulative += prob;
  }
  return k;
}

/** Exposures per arm at which a count test over batches of `batch` first reached 1/α, or null within `max`. */
function countRun(random: () => number, treatmentRate: number, controlRate: number, batch = 500, max = 50_000): number | null {
  let test = countTest(0, 'higher');
  for (let n = batch; n <= max; n += batch) {
    test = addInterval(test, { treatmentUnits: batch, controlUnits: batch, treatmentEvents: binomial(random, batch, treatmentRate), controlEvents: binomial(random, batch, controlRate) });
    if (countLogE(test) >= THRESHOLD) return n;
  }
  return null;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

describe('guard simulation: count metrics', () => {
  it.each([0.01, 0.05])('A/A at a %s base rate: at most 5 % false rollbacks over 1,000 runs', (rate) => {
    const random = prng(rate === 0.01 ? 11 : 12);
    let falseRollbacks = 0;
    for (let run = 0; run < 1000; run++) if (countRun(random, rate, rate) !== null) falseRollbacks++;
    expect(falseRollbacks / 1000).toBeLessThanOrEqual(0.05);
  });

  it('1 % → 3 %: always caught; median ≤ 1,000 and p95 ≤ 2,000 exposures per arm', () => {
    const random = prng(13);
    const caughtAt: number[] = [];
    for (let run = 0; run < 1000; run++) caughtAt.push(countRun(random, 0.03, 0.01) ?? Infinity);
    caughtAt.sort((a, b) => a - b);
    expect(caughtAt.at(-1)).toBeLessThan(Infinity);
    expect(quantile(caughtAt, 0.5)).toBeLessThanOrEqual(1000);
    expect(quantile(caughtAt, 0.95)).toBeLessThanOrEqual(2000);
  });

  it('+0.5 points (1 % → 1.5 %): caught in at least 95 % of runs within 50,000 exposures per arm', () => {
    const random = prng(14);
    let caught = 0;
    for (let run = 0; run < 1000; run++) if (countRun(random, 0.015, 0.01) !== null) caught++;
    expect(caught / 1000).toBeGreaterThanOrEqual(0.95);
  });

  it('A/A over a 1 → 50 % ramp while the base rate drifts from 0.5 % to 2 %: at most 5 % false rollbacks', () => {
    // 20,000 users a minute; the arms are the admitted band and its mirror, so each arm gets the same
    // share of every minute's traffic; one interval a minute, twelve minutes a step.
    const random = prng(15);
    const steps = [1, 5, 10, 25, 50];
    const minutes = steps.length * 12;
    let falseRollbacks = 0;
    for (let run = 0; run < 1000; run++) {
      let test = countTest(0, 'higher');
      for (let minute = 0; minute < minutes; minute++) {
        const percent = steps[Math.floor(minute / 12)]!;
        const rate = 0.005 + (0.015 * minute) / (minutes - 1);
        const perArm = Math.round((20_000 * percent) / 100);
        test = addInterval(test, { treatmentUnits: perArm, controlUnits: perArm, treatmentEvents: binomial(random, perArm, rate), controlEvents: binomial(random, perArm, rate) });
        if (countLogE(test) >= THRESHOLD) {
          falseRollbacks++;
          break;
        }
      }
    }
    expect(falseRollbacks / 1000).toBeLessThanOrEqual(0.05);
  });
});

describe('guard simulation: mean metrics and the split', () => {
  /** Normal draws (Box–Muller). */
  const normal = (random: () => number, mean: number, sd: number) => mean + sd * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const add = (m: Moments, x: number) => {
    m.n++;
    m.sum += x;
    m.sumSq += x * x;
  };
  function meanRun(random: () => number, treatmentMean: number): number | null {
    const t: Moments = { n: 0, sum: 0, sumSq: 0 };
    const c: Moments = { n: 0, sum: 0, sumSq: 0 };
    for (let batch = 0; batch < 40; batch++) {
      for (let i = 0; i < 250; i++) {
        add(t, normal(random, treatmentMean, 40));
        add(c, normal(random, 200, 40));
      }
      if (meanTest(t, c, 0, 'higher', ALPHA, 2000).logE >= THRESHOLD) return t.n;
    }
    return null;
  }

  it('A/A latency (200 ms ± 40): at most 5 % false rollbacks over 300 runs', () => {
    const random = prng(21);
    let falseRollbacks = 0;
    for (let run = 0; run < 300; run++) if (meanRun(random, 200) !== null) falseRollbacks++;
    expect(falseRollbacks / 300).toBeLessThanOrEqual(0.05);
  });

  it('+10 ms on 200 ms ± 40: caught in at least 95 % of 300 runs within 10,000 units per arm', () => {
    const random = prng(22);
    let caught = 0;
    for (let run = 0; run < 300; run++) if (meanRun(random, 210) !== null) caught++;
    expect(caught / 300).toBeGreaterThanOrEqual(0.95);
  });

  it('the split: a fair one almost never looks mismatched, a 52:48 one is found within 20,000 units', () => {
    const random = prng(23);
    const mismatchP = (t: number, c: number) => Math.exp(-srmLogBayesFactor(t, c));
    let falseAlarms = 0;
    let found = 0;
    for (let run = 0; run < 300; run++) {
      let fair = [0, 0];
      let skewed = [0, 0];
      let alarmed = false;
      let caught = false;
      for (let batch = 0; batch < 40; batch++) {
        const f = binomial(random, 500, 0.5);
        fair = [fair[0]! + f, fair[1]! + 500 - f];
        const s = binomial(random, 500, 0.52);
        skewed = [skewed[0]! + s, skewed[1]! + 500 - s];
        alarmed ||= mismatchP(fair[0]!, fair[1]!) < 0.001;
        caught ||= mismatchP(skewed[0]!, skewed[1]!) < 0.001;
      }
      if (alarmed) falseAlarms++;
      if (caught) found++;
    }
    expect(falseAlarms / 300).toBeLessThanOrEqual(0.01);
    expect(found / 300).toBeGreaterThanOrEqual(0.8);
  });

  it('arms from buckets: the admitted band against its mirror, 1:1 up to 50 %, nobody ever moving to the other arm', () => {
    const random = prng(24);
    const buckets = Array.from({ length: 20_000 }, () => random() * 100);
    let previous: Array<'treatment' | 'control' | null> = buckets.map(() => null);
    for (const percent of [1, 5, 10, 25, 50, 75, 90]) {
      const arms = buckets.map((b) => armOf(b, percent));
      const treatment = arms.filter((a) => a === 'treatment').length;
      const control = arms.filter((a) => a === 'control').length;
      if (percent <= 50) expect(Math.abs(treatment - control) / (treatment + control)).toBeLessThan(0.1);
      arms.forEach((arm, i) => {
        const before = previous[i];
        // Up to 50 % the arms only grow; above, the control band shrinks to [p, 100): a context
        // may leave it (admitted, in no arm), never join the treatment.
        if (before === 'treatment') expect(arm).toBe('treatment');
        if (before === 'control') expect(arm === 'treatment').toBe(false);
        if (before === 'control' && percent <= 50) expect(arm).toBe('control');
      });
      previous = arms;
    }
  });
});
