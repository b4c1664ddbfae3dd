import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { validateBlackout, validatePlan, validateRampSteps } from './plan-validation.js';
import type { RampStep } from './types.js';

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

const good: RampStep[] = [
  { percent: 1, holdForSeconds: 60 },
  { percent: 10.5, holdForSeconds: 3600, requiresApproval: true },
  { percent: 100, holdForSeconds: 0 },
];

describe('validatePlan', () => {
  it('applies the defaults', () => {
    const plan = validatePlan({ key: 'p', name: 'P', rampSteps: [{ percent: 100, holdForSeconds: 0 }] });
    expect(plan).toEqual({
      key: 'p',
      name: 'P',
      rampSteps: [{ percent: 100, holdForSeconds: 0 }],
      cadence: 'manual',
      blackoutDaysOfWeek: [],
      blackoutTimezone: 'UTC',
    });
    expect('description' in plan).toBe(false);
  });

  it('keeps a given description, cadence, zone; sorts and dedupes days', () => {
    const plan = validatePlan({
      key: 'p',
      name: 'P',
      description: 'd',
      rampSteps: good,
      cadence: 'auto',
      blackoutDaysOfWeek: [6, 0, 6, 3],
      blackoutTimezone: 'America/New_York',
    });
    expect(plan.description).toBe('d');
    expect(plan.cadence).toBe('auto');
    expect(plan.blackoutDaysOfWeek).toEqual([0, 3, 6]);
    expect(plan.blackoutTimezone).toBe('America/New_York');
    expect(plan.rampSteps).toEqual(good);
    expect(plan.rampSteps).not.toBe(good);
  });

  it('accepts a final step below 100 and a single-step plan', () => {
    expect(validateRampSteps([{ percent: 50, holdForSeconds: 0 }], 'manual')).toEqual([{ percent: 50, holdForSeconds: 0 }]);
    expect(validateRampSteps([{ percent: 0.0001, holdForSeconds: 2_592_000 }, { percent: 50, holdForSeconds: 0 }], 'manual')).toHaveLength(2);
  });

  it('refuses an empty ramp and more than 32 steps', () => {
    expect(errorOf(() => validateRampSteps([], 'auto')).fields).toEqual({ rampSteps: expect.any(String) });
    const steps: RampStep[] = Array.from({ length: 33 }, (_, i) => ({ percent: i + 1, holdForSeconds: i === 32 ? 0 : 60 }));
    const e = errorOf(() => validateRampSteps(steps, 'auto'));
    expect(e.code).toBe('rollout_plan_invalid_ramp');
    expect(e.fields).toEqual({ rampSteps: expect.any(String) });
    expect(validateRampSteps(steps.slice(1), 'auto')).toHaveLength(32);
  });

  it('reports every ramp problem at once, keyed by dotted path', () => {
    const e = errorOf(() =>
      validatePlan({
        key: 'p',
        name: 'P',
        rampSteps: [
          { percent: 0, holdForSeconds: 59 },
          { percent: 20, holdForSeconds: 2_592_001, requiresApproval: true },
          { percent: 20, holdForSeconds: 60 },
          { percent: 10, holdForSeconds: 60 },
          { percent: 100, holdForSeconds: 60 },
        ],
      }),
    );
    expect(e.code).toBe('rollout_plan_invalid_ramp');
    expect(Object.keys(e.fields ?? {}).sort()).toEqual(
      [
        'rampSteps.0.percent',
        'rampSteps.0.holdForSeconds',
        'rampSteps.1.holdForSeconds',
        'rampSteps.1.requiresApproval',
        'rampSteps.2.percent',
        'rampSteps.3.percent',
        'rampSteps.4.holdForSeconds',
      ].sort(),
    );
  });

  it('allows approval gates only with cadence auto (requiresApproval false is fine on manual)', () => {
    expect(errorOf(() => validateRampSteps(good, 'manual')).fields).toEqual({ 'rampSteps.1.requiresApproval': expect.any(String) });
    expect(validateRampSteps([{ percent: 5, holdForSeconds: 60, requiresApproval: false }, { percent: 100, holdForSeconds: 0 }], 'manual')[0]).toEqual({
      percent: 5,
      holdForSeconds: 60,
      requiresApproval: false,
    });
  });

  it('checks the time zone even without blackout days, and refuses offsets and unknown names', () => {
    for (const tz of ['Mars/Olympus', '+01:00', '', 'GMT+1']) {
      const e = errorOf(() => validatePlan({ key: 'p', name: 'P', rampSteps: good, cadence: 'auto', blackoutTimezone: tz }));
      expect(e.code).toBe('invalid_request');
      expect(e.fields).toEqual({ blackoutTimezone: expect.any(String) });
    }
    for (const tz of ['UTC', 'Etc/UTC', 'Europe/Berlin', 'Australia/Lord_Howe', 'Etc/GMT+5']) {
      expect(validateBlackout([1], tz).blackoutTimezone).toBe(tz);
    }
  });

  it('refuses blacking out all seven days', () => {
    const e = errorOf(() =>
      validatePlan({ key: 'p', name: 'P', rampSteps: good, cadence: 'auto', blackoutDaysOfWeek: [0, 1, 2, 3, 4, 5, 6, 6] }),
    );
    expect(e.code).toBe('invalid_request');
    expect(e.fields).toEqual({ blackoutDaysOfWeek: expect.any(String) });
    expect(validateBlackout([0, 1, 2, 3, 4, 5], 'UTC').blackoutDaysOfWeek).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('reports blackout problems (invalid_request) before ramp problems', () => {
    const e = errorOf(() => validatePlan({ key: 'p', name: 'P', rampSteps: [], blackoutTimezone: 'Nope/Nope' }));
    expect(e.code).toBe('invalid_request');
  });

  it('property: a generated valid ramp passes and round-trips', () => {
    const ramp = fc
      .uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 32 })
      .chain((ps) =>
        fc.tuple(
          fc.constant([...ps].sort((a, b) => a - b).map((p) => p / 10_000)),
          fc.array(fc.integer({ min: 60, max: 2_592_000 }), { minLength: ps.length, maxLength: ps.length }),
          fc.array(fc.option(fc.boolean(), { nil: undefined }), { minLength: ps.length, maxLength: ps.length }),
        ),
      )
      .map(([percents, holds, approvals]) =>
        percents.map((percent, i) => ({
          percent,
          holdForSeconds: i === percents.length - 1 ? 0 : holds[i]!,
          ...(approvals[i] !== undefined ? { requiresApproval: approvals[i] } : {}),
        })),
      );
    fc.assert(
      fc.property(ramp, (steps) => {
        expect(validateRampSteps(steps, 'auto')).toEqual(steps);
      }),
    );
  });

  it('property: swapping two steps of a valid ramp is always refused', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 100 }), { minLength: 2, maxLength: 10 }),
        fc.nat(),
        (ps, k) => {
          const percents = [...ps].sort((a, b) => a - b);
          const i = k % (percents.length - 1);
          [percents[i], percents[i + 1]] = [percents[i + 1]!, percents[i]!];
          const steps = percents.map((percent, j) => ({ percent, holdForSeconds: j === percents.length - 1 ? 0 : 60 }));
          const e = errorOf(() => validateRampSteps(steps, 'manual'));
          expect(e.fields?.[`rampSteps.${i + 1}.percent`]).toBeDefined();
        },
      ),
    );
  });
});
