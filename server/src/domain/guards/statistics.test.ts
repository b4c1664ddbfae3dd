import { describe, expect, it } from 'vitest';
import { checkGuard, DEFAULT_STEP_GUARD, type GuardFacts, type StepGuard } from './gate.js';
import { addInterval, countLogE, countTest, lnGamma, meanTest, mixingVariance, srmLogBayesFactor } from './statistics.js';

describe('guard statistics', () => {
  it.each([
    [1, 0],
    [2, 0],
    [5, Math.log(24)],
    [0.5, Math.log(Math.sqrt(Math.PI))],
    [100, 359.1342053695754],
  ])('lnGamma(%s)', (x, expected) => {
    expect(lnGamma(x)).toBeCloseTo(expected, 10);
  });

  it('count test: no evidence without events or with a balanced split; evidence grows with a worse treatment rate', () => {
    const none = addInterval(countTest(0, 'higher'), { treatmentUnits: 1000, controlUnits: 1000, treatmentEvents: 0, controlEvents: 0 });
    expect(countLogE(none)).toBe(0);
    const even = addInterval(countTest(0, 'higher'), { treatmentUnits: 1000, controlUnits: 1000, treatmentEvents: 10, controlEvents: 10 });
    expect(countLogE(even)).toBeLessThan(0);
    const worse = addInterval(countTest(0, 'higher'), { treatmentUnits: 1000, controlUnits: 1000, treatmentEvents: 30, controlEvents: 10 });
    expect(countLogE(worse)).toBeGreaterThan(Math.log(20));
    // The same counts are no regression when fewer is worse (conversions), nor within a 200 % margin.
    expect(countLogE(addInterval(countTest(0, 'lower'), { treatmentUnits: 1000, controlUnits: 1000, treatmentEvents: 30, controlEvents: 10 }))).toBeLessThan(0);
    expect(countLogE(addInterval(countTest(2, 'higher'), { treatmentUnits: 1000, controlUnits: 1000, treatmentEvents: 30, controlEvents: 10 }))).toBeLessThan(Math.log(20));
  });

  it('count test: judges each interval by its own allocation, so unequal arms with equal rates show nothing', () => {
    let test = countTest(0, 'higher');
    for (let i = 0; i < 50; i++) test = addInterval(test, { treatmentUnits: 100, controlUnits: 10_000, treatmentEvents: 1, controlEvents: 100 });
    expect(countLogE(test)).toBeLessThan(0);
  });

  it('mean test: E only on the worse side of the margin, and an interval around the difference', () => {
    const arm = (mean: number, n = 1000, sd = 10) => ({ n, sum: mean * n, sumSq: n * (sd * sd + mean * mean) - sd * sd });
    const worse = meanTest(arm(103), arm(100), 0, 'higher', 0.05, 2000);
    expect(worse.difference).toBeCloseTo(3, 6);
    expect(worse.logE).toBeGreaterThan(Math.log(20));
    expect(worse.lower).toBeGreaterThan(0);
    expect(worse.upper).toBeGreaterThan(3);
    expect(meanTest(arm(97), arm(100), 0, 'higher', 0.05, 2000).logE).toBe(0);
    expect(meanTest(arm(103), arm(100), 5, 'higher', 0.05, 2000).logE).toBe(0);
    expect(meanTest(arm(97), arm(100), 0, 'lower', 0.05, 2000).logE).toBeGreaterThan(Math.log(20));
    expect(mixingVariance(0.05, 2000)).toBeGreaterThan(0);
  });

  it('SRM: the expected split has a Bayes factor below 1, a skewed one far above', () => {
    expect(srmLogBayesFactor(5000, 5000)).toBeLessThan(0);
    expect(srmLogBayesFactor(5600, 4400)).toBeGreaterThan(Math.log(1000));
    // Above 50 % the arms' expected split is not 1:1: at 75 %, 50 : 25.
    expect(srmLogBayesFactor(6667, 3333, 50 / 75)).toBeLessThan(0);
  });
});

describe('the gate of a guarded step', () => {
  const guard: StepGuard = { ...DEFAULT_STEP_GUARD, metrics: [{ key: 'errors', kind: 'count', worse: 'higher', margin: 0, action: 'rollback' }] };
  const facts = (over: Partial<GuardFacts>): GuardFacts => ({
    holdSeconds: 3600,
    heldSeconds: 3600,
    expectedShare: 0.5,
    units: { treatment: 1000, control: 1000 },
    counts: { errors: addInterval(countTest(0, 'higher'), { treatmentUnits: 1000, controlUnits: 1000, treatmentEvents: 10, controlEvents: 10 }) },
    moments: {},
    ...over,
  });

  it.each([
    ['advances once the hold passed and each arm has its minimum', facts({}), 'advance'],
    ['holds for the hold', facts({ heldSeconds: 60 }), 'hold'],
    ['holds for units', facts({ units: { treatment: 999, control: 1000 } }), 'hold'],
    ['pauses at the maximum hold without enough units', facts({ heldSeconds: 3 * 3600, units: { treatment: 10, control: 10 } }), 'pause'],
    ['pauses on a sample-ratio mismatch', facts({ units: { treatment: 5600, control: 4400 } }), 'pause'],
    [
      'rolls back on a regression, even before the hold passed',
      facts({ heldSeconds: 60, counts: { errors: addInterval(countTest(0, 'higher'), { treatmentUnits: 1000, controlUnits: 1000, treatmentEvents: 30, controlEvents: 10 }) } }),
      'rollback',
    ],
  ])('%s', (_name, f, decision) => {
    expect(checkGuard(guard, f).decision).toBe(decision);
  });

  it('names the metric, its evidence and the checks of a rollback', () => {
    const verdict = checkGuard(guard, facts({ counts: { errors: addInterval(countTest(0, 'higher'), { treatmentUnits: 1000, controlUnits: 1000, treatmentEvents: 30, controlEvents: 10 }) } }));
    expect(verdict).toMatchObject({ decision: 'rollback', cause: { kind: 'metric', metric: { key: 'errors', threshold: Math.log(20) } }, checks: { holdPassed: true, units: { min: 1000 } } });
  });
});
