import { describe, expect, it } from 'vitest';
import { checkGuard, DEFAULT_STEP_GUARD, rateRatio, type GuardFacts, type StepGuard } from './gate.js';
import { addInterval, countTest } from './statistics.js';

describe('rateRatio', () => {
  it.each([
    [{ treatment: 30, control: 10 }, { treatment: 1000, control: 1000 }, 3],
    [{ treatment: 10, control: 10 }, { treatment: 500, control: 1000 }, 2],
    [{ treatment: 0, control: 10 }, { treatment: 1000, control: 1000 }, 0],
    [{ treatment: 5, control: 0 }, { treatment: 1000, control: 1000 }, null],
    [{ treatment: 5, control: 5 }, { treatment: 0, control: 1000 }, null],
    [undefined, { treatment: 1000, control: 1000 }, null],
  ])('events %o over units %o → %s', (events, units, ratio) => {
    expect(rateRatio(events, units)).toBe(ratio);
  });
});

describe('checkGuard', () => {
  const guard: StepGuard = { ...DEFAULT_STEP_GUARD, metrics: [{ key: 'errors', kind: 'count', worse: 'higher', margin: 0, action: 'rollback' }], minUnitsPerArm: 100 };
  const facts = (treatmentEvents: number, controlEvents: number): GuardFacts => ({
    holdSeconds: 3600,
    heldSeconds: 60,
    expectedShare: 0.5,
    units: { treatment: 1000, control: 1000 },
    counts: { errors: addInterval(countTest(0, 'higher'), { treatmentUnits: 1000, controlUnits: 1000, treatmentEvents, controlEvents }) },
    eventTotals: { errors: { treatment: treatmentEvents, control: controlEvents } },
    moments: {},
  });

  it("gives a count metric's rate ratio as its estimate (no interval), and holds while the evidence is short of 1/α", () => {
    const verdict = checkGuard(guard, facts(12, 10));
    expect(verdict.decision).toBe('hold');
    expect(verdict.checks.metrics[0]!.estimate).toEqual({ value: 1.2, lower: null, upper: null });
  });

  it('rolls back once a tripled rate is past the evidence threshold, with the ratio in the check', () => {
    const verdict = checkGuard(guard, facts(90, 30));
    expect(verdict).toMatchObject({ decision: 'rollback', cause: { kind: 'metric', metric: { key: 'errors', estimate: { value: 3 } } } });
  });
});
