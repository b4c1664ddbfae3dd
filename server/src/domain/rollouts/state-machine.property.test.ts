import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { validateRampSteps } from './plan-validation.js';
import { isLiveStatus as isLive } from '@gradual/contract';
import { effectivePercent } from './ramp-position.js';
import { applyCommand, createRollout } from './state-machine.js';
import type { Cadence, JsonValue, PlanSnapshot, PutRollout, RampStep, RolloutCommand, RolloutState, Transition } from './types.js';

// ---------------------------------------------------------------------------
// Generators

const percentArb = fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 10_000);

const rampArb = (cadence: Cadence): fc.Arbitrary<RampStep[]> =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 6 })
    .chain((ps) =>
      fc.tuple(
        fc.constant([...ps].sort((a, b) => a - b).map((p) => p / 10_000)),
        fc.array(fc.integer({ min: 60, max: 3 * 86_400 }), { minLength: ps.length, maxLength: ps.length }),
        fc.array(fc.boolean(), { minLength: ps.length, maxLength: ps.length }),
        fc.boolean(),
        fc.array(fc.boolean(), { minLength: ps.length, maxLength: ps.length }),
      ),
    )
    .map(([percents, holds, gates, endsAt100, convergent]) => {
      const ps = endsAt100 && percents[percents.length - 1] !== 100 ? [...percents.slice(0, 5), 100] : percents;
      return ps.map((percent, i) => ({
        percent,
        holdForSeconds: i === ps.length - 1 ? 0 : holds[i]!,
        ...(cadence === 'auto' && gates[i] ? { requiresApproval: true } : {}),
        ...(cadence === 'auto' && convergent[i] && i < ps.length - 1 ? { holdFromConvergence: { instancesPercent: 99, timeoutSeconds: 600 } } : {}),
      }));
    })
    .filter((steps) => {
      try {
        validateRampSteps(steps, cadence);
        return true;
      } catch {
        return false;
      }
    });

const planArb = (key: string): fc.Arbitrary<PlanSnapshot> =>
  fc.constantFrom<Cadence>('auto', 'auto', 'manual').chain((cadence) =>
    fc.record({
      key: fc.constant(key),
      rampSteps: rampArb(cadence),
      cadence: fc.constant(cadence),
      blackoutDaysOfWeek: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { maxLength: 3 }).map((d) => d.sort((a, b) => a - b)),
      blackoutTimezone: fc.constantFrom('UTC', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago'),
    }),
  );

const valueArb: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.boolean(),
  fc.constantFrom<JsonValue>(null, 'a', 1, { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }),
);

interface World {
  plans: PlanSnapshot[];
}

const putArb = (world: World): fc.Arbitrary<PutRollout> =>
  fc
    .record({
      percent: fc.oneof(percentArb, fc.constantFrom(0, 100), fc.constantFrom(...world.plans.flatMap((p) => p.rampSteps.map((s) => s.percent)))),
      plan: fc.option(fc.oneof(fc.constant(null), fc.constantFrom(...world.plans)), { nil: undefined }),
      seed: fc.option(fc.constantFrom('s1', 's2'), { nil: undefined }),
      bucketField: fc.option(fc.constantFrom('userId', 'accountId'), { nil: undefined }),
      newValue: fc.option(valueArb, { nil: undefined }),
      hasNewValue: fc.boolean(),
    })
    .map(({ percent, plan, seed, bucketField, newValue, hasNewValue }) => ({
      type: 'put' as const,
      percent,
      ...(plan === null ? { planKey: null } : plan ? { planKey: plan.key, plan } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(bucketField !== undefined ? { bucketField } : {}),
      ...(hasNewValue ? { newValue: newValue ?? null } : {}),
      hasNewValue,
    }));

const commandArb = (world: World): fc.Arbitrary<RolloutCommand> =>
  fc.oneof(
    { weight: 4, arbitrary: putArb(world) },
    { weight: 2, arbitrary: fc.constant({ type: 'pause' as const }) },
    { weight: 4, arbitrary: fc.constant({ type: 'resume' as const }) },
    { weight: 1, arbitrary: fc.constant({ type: 'cancel' as const }) },
    { weight: 3, arbitrary: fc.constant({ type: 'advance' as const }) },
    { weight: 14, arbitrary: fc.constant({ type: 'tick' as const }) },
    { weight: 4, arbitrary: fc.constant({ type: 'tick' as const, converged: true }) },
    { weight: 1, arbitrary: fc.constant({ type: 'convergence_pause' as const }) },
    { weight: 2, arbitrary: fc.constant({ type: 'fire' as const }) },
  );

/** Seconds between commands: often 0 (same instant), often a scheduler-ish minute, sometimes days. */
const gapArb = fc.oneof(fc.constant(0), fc.constant(60), fc.integer({ min: 1, max: 3600 }), fc.integer({ min: 1, max: 4 * 86_400 }));

/** The first PUT usually attaches plan a, at 0, at one of its step percents or anywhere below its final step. */
const firstPutArb = (world: World): fc.Arbitrary<PutRollout> => {
  const a = world.plans[0]!;
  const final = a.rampSteps[a.rampSteps.length - 1]!.percent;
  const attached = fc
    .oneof(fc.constant(0), fc.constantFrom(...a.rampSteps.map((s) => s.percent)), fc.integer({ min: 0, max: Math.round(final * 10_000) }).map((n) => n / 10_000))
    .map((percent): PutRollout => ({ type: 'put', percent, planKey: a.key, plan: a, hasNewValue: false }));
  return fc.oneof({ weight: 4, arbitrary: attached }, { weight: 1, arbitrary: putArb(world) });
};

const scenarioArb = fc
  .tuple(planArb('a'), planArb('b'))
  .chain(([a, b]) => {
    const world: World = { plans: [a, b] };
    return fc.record({
      world: fc.constant(world),
      start: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
      first: firstPutArb(world),
      steps: fc.array(fc.tuple(commandArb(world), gapArb), { minLength: 5, maxLength: 60, size: 'large' }),
    });
  });

// ---------------------------------------------------------------------------
// The simulated service: a PUT on a terminal rollout starts a new one; domain errors leave the row as it was.

function create(put: PutRollout, now: Date): Transition {
  const { type: _type, ...rest } = put;
  return createRollout({ ...rest, defaultSeed: 'flag:env', defaultBucketField: 'userId' }, now);
}

function step(r: RolloutState | null, c: RolloutCommand, now: Date): Transition | DomainError | null {
  try {
    if (r === null || (!isLive(r.status) && c.type === 'put')) return c.type === 'put' ? create(c, now) : null;
    return applyCommand(r, c, now);
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
}

function checkInvariants(r: RolloutState): void {
  const inRange = (p: number | null) => p === null || (p >= 0 && p <= 100);
  expect(r.percent >= 0 && r.percent <= 100).toBe(true);
  expect(inRange(r.pausedAtPercent)).toBe(true);
  expect(inRange(r.rolledBackFromPercent)).toBe(true);
  expect(r.status === 'paused').toBe(r.pausedReason !== null);
  expect(r.status === 'paused').toBe(r.pausedAtPercent !== null);
  if (r.status === 'paused') expect(r.pausedAtPercent).toBe(r.percent);
  expect(r.pausedReason === 'auto_rollback').toBe(r.rolledBackFromPercent !== null);
  if (r.pausedReason === 'auto_rollback') expect(r.percent).toBe(0);
  if (r.status === 'completed') expect(r.percent).toBe(100);
  if (r.nextStepAt !== null) {
    expect(r.status).toBe('active');
    expect(r.plan?.cadence).toBe('auto');
  }
  expect(r.plan === null).toBe(r.rampStepIdx === null);
  if (r.plan && r.rampStepIdx !== null) {
    const steps = r.plan.rampSteps;
    expect(r.rampStepIdx >= 0 && r.rampStepIdx < steps.length).toBe(true);
    if (isLive(r.status)) {
      // rampStepIdx is the first step at or above the effective percent.
      const eff = effectivePercent(r);
      expect(eff <= steps[r.rampStepIdx]!.percent).toBe(true);
      if (r.rampStepIdx > 0) expect(eff > steps[r.rampStepIdx - 1]!.percent).toBe(true);
    }
  }
}

describe('state machine properties', () => {
  it('every reachable state keeps the invariants (percent within [0,100], pause fields consistent, ramp position valid)', () => {
    fc.assert(
      fc.property(scenarioArb, ({ start, first, steps }) => {
        let now = new Date(start);
        let r: RolloutState | null = null;
        for (const [c, gap] of [[first, 0] as const, ...steps]) {
          now = new Date(now.getTime() + gap * 1000);
          const t = step(r, c, now);
          if (t === null || t instanceof DomainError) continue;
          checkInvariants(t.rollout);
          if (!t.changed) {
            expect(t.rollout).toBe(r);
            expect(t.actions).toEqual([]);
          }
          if (t.actions.includes('rollout.completed')) expect(t.actions[t.actions.length - 1]).toBe('rollout.completed');
          r = t.rollout;
        }
      }),
      { numRuns: 400 },
    );
  });

  it('applying the same PUT twice changes nothing the second time (unless the first one completed the rollout)', () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 0, max: 86_400 }), ({ start, first, steps, world }, gap) => {
        let now = new Date(start);
        let r: RolloutState | null = null;
        for (const [c, g] of [[first, 0] as const, ...steps]) {
          now = new Date(now.getTime() + g * 1000);
          const t = step(r, c, now);
          if (t === null || t instanceof DomainError) continue;
          r = t.rollout;
          if (c.type !== 'put' || !isLive(r.status)) continue;
          const again = applyCommand(r, c, new Date(now.getTime() + gap * 1000));
          expect(again.changed).toBe(false);
          expect(again.actions).toEqual([]);
          expect(again.rollout).toBe(r);
        }
        void world;
      }),
      { numRuns: 400 },
    );
  });

  it('a step is never applied twice: a second tick at the same instant is a no-op, and a tick moves at most one step up', () => {
    fc.assert(
      fc.property(scenarioArb, ({ start, first, steps }) => {
        let now = new Date(start);
        let r: RolloutState | null = null;
        for (const [c, g] of [[first, 0] as const, ...steps]) {
          now = new Date(now.getTime() + g * 1000);
          const before: RolloutState | null = r;
          const t = step(r, c, now);
          if (t === null || t instanceof DomainError) continue;
          r = t.rollout;
          if (c.type !== 'tick' || before === null) continue;
          expect(applyCommand(r, { type: 'tick' }, now).changed).toBe(false);
          expect(r.percent >= before.percent).toBe(true);
          if (before.rampStepIdx !== null && r.rampStepIdx !== null) {
            expect(r.rampStepIdx - before.rampStepIdx).toBeGreaterThanOrEqual(0);
            expect(r.rampStepIdx - before.rampStepIdx).toBeLessThanOrEqual(1);
          }
          if (t.actions.includes('rollout.advanced')) expect(r.percent).toBe(r.plan!.rampSteps[r.rampStepIdx!]!.percent);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('ticking an auto plan every minute walks the ramp in order, one step per tick, stopping at gates', () => {
    fc.assert(
      fc.property(planArb('a').filter((p) => p.cadence === 'auto'), fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }), (plan, start) => {
        let now = new Date(start);
        let r = create({ type: 'put', percent: 0, planKey: 'a', plan, hasNewValue: false }, now).rollout;
        const entered: number[] = [];
        for (let i = 0; i < 200_000 && r.status === 'active' && (r.nextStepAt !== null || r.awaitingConvergenceUntil !== null); i++) {
          // Jump to the next due instant (or the next minute), as a minute-ly scheduler would see it; the fleet converges on each step.
          now = new Date(Math.max(now.getTime() + 60_000, r.nextStepAt?.getTime() ?? 0));
          const t = applyCommand(r, { type: 'tick', converged: true }, now);
          if (t.actions.includes('rollout.advanced')) entered.push(t.rollout.percent);
          r = t.rollout;
          if (r.status === 'paused' && r.pausedReason === 'approval_gate') {
            r = applyCommand(r, { type: 'resume' }, now).rollout;
            entered.push(r.percent);
          }
        }
        expect(entered).toEqual(plan.rampSteps.map((s) => s.percent));
        expect(r.status).toBe(plan.rampSteps[plan.rampSteps.length - 1]!.percent === 100 ? 'completed' : 'active');
      }),
      { numRuns: 150 },
    );
  });
});
