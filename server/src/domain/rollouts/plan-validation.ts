/**
 * Semantic validation of rollout plans (create, and PATCH on the merged plan).
 * Shapes (types, ranges, integer-ness) are zod's job in contract/; this checks
 * what zod cannot: ramp ordering, holds, approval gates versus cadence, the
 * time zone and the blackout calendar. Pure.
 */
import { GUARD_DEFAULTS, HOLD_SECONDS_MAX, HOLD_SECONDS_MIN, RAMP_STEPS_MAX, RAMP_STEPS_MIN } from '@gradual/contract';
import { DomainError } from '../errors.js';
import { isValidTimeZone } from './schedule.js';
import type { Cadence, RampStep, StepGuardPlan } from './types.js';

/** A step's guard as a plan is written: the defaults below fill what it leaves out. */
export interface StepGuardInput {
  metrics: Array<{ key: string; margin?: number | undefined; action?: 'rollback' | 'pause' | undefined }>;
  minUnitsPerArm?: number | undefined;
  maxHoldFactor?: number | undefined;
}

/** A ramp step as a plan is written. */
export type RampStepInput = Omit<RampStep, 'guard'> & { guard?: StepGuardInput | undefined };

/** The guard with its defaults applied. */
export function normalizedGuard(guard: StepGuardInput): StepGuardPlan {
  return {
    metrics: guard.metrics.map((m) => ({ key: m.key, margin: m.margin ?? GUARD_DEFAULTS.margin, action: m.action ?? GUARD_DEFAULTS.action })),
    minUnitsPerArm: guard.minUnitsPerArm ?? GUARD_DEFAULTS.minUnitsPerArm,
    maxHoldFactor: guard.maxHoldFactor ?? GUARD_DEFAULTS.maxHoldFactor,
  };
}

export const DEFAULT_CADENCE: Cadence = 'manual';
export const DEFAULT_BLACKOUT_TIMEZONE = 'UTC';

export interface PlanInput {
  key: string;
  name: string;
  description?: string | undefined;
  rampSteps: RampStepInput[];
  cadence?: Cadence | undefined;
  blackoutDaysOfWeek?: number[] | undefined;
  blackoutTimezone?: string | undefined;
}

/** A plan with defaults applied and its arrays normalized; what the service stores. */
export interface NormalizedPlan {
  key: string;
  name: string;
  description?: string;
  rampSteps: RampStep[];
  cadence: Cadence;
  /** 0 = Sunday … 6 = Saturday, unique and sorted. */
  blackoutDaysOfWeek: number[];
  blackoutTimezone: string;
}

/**
 * Every ramp problem of `steps` under `cadence`, keyed by dotted path; empty when the ramp is valid.
 * The step count and hold limits are the contract's (RAMP_STEPS_*, HOLD_SECONDS_*).
 */
export function rampStepProblems(steps: readonly RampStepInput[], cadence: Cadence): Record<string, string> {
  const fields: Record<string, string> = {};
  if (steps.length < RAMP_STEPS_MIN) fields.rampSteps = `must have at least ${RAMP_STEPS_MIN} step`;
  else if (steps.length > RAMP_STEPS_MAX) fields.rampSteps = `must have at most ${RAMP_STEPS_MAX} steps`;

  steps.forEach((step, i) => {
    const at = `rampSteps.${i}`;
    const last = i === steps.length - 1;
    const previous = i > 0 ? steps[i - 1] : undefined;
    if (!(Number.isFinite(step.percent) && step.percent > 0 && step.percent <= 100)) {
      fields[`${at}.percent`] = 'must be greater than 0 and at most 100';
    } else if (previous && !(step.percent > previous.percent)) {
      fields[`${at}.percent`] = `must be greater than the previous step's percent (${previous.percent})`;
    }
    if (last) {
      if (step.holdForSeconds !== 0) fields[`${at}.holdForSeconds`] = 'the final step must hold 0 seconds';
    } else if (
      !Number.isInteger(step.holdForSeconds) ||
      step.holdForSeconds < HOLD_SECONDS_MIN ||
      step.holdForSeconds > HOLD_SECONDS_MAX
    ) {
      fields[`${at}.holdForSeconds`] = `must be an integer from ${HOLD_SECONDS_MIN} to ${HOLD_SECONDS_MAX}`;
    }
    if (step.requiresApproval === true && cadence !== 'auto') {
      fields[`${at}.requiresApproval`] = 'approval gates are only valid when cadence is auto';
    }
    if (step.guard) {
      // A guard compares the admitted band with its mirror, which the final step (all admitted) lacks.
      if (last) fields[`${at}.guard`] = 'the final step cannot be guarded: it admits everyone, so nobody is left to compare with';
      else if (cadence !== 'auto') fields[`${at}.guard`] = 'guards are only valid when cadence is auto';
      const seen = new Set<string>();
      step.guard.metrics.forEach((m, j) => {
        if (seen.has(m.key)) fields[`${at}.guard.metrics.${j}.key`] = 'names a metric the step already watches';
        seen.add(m.key);
      });
    }
    if (step.holdFromConvergence) {
      // The final step has no hold to start, and only the scheduler waits for the fleet.
      if (last) fields[`${at}.holdFromConvergence`] = 'the final step has no hold to start from convergence';
      else if (cadence !== 'auto') fields[`${at}.holdFromConvergence`] = 'holding from convergence is only valid when cadence is auto';
    }
  });
  return fields;
}

/**
 * Validates a ramp (create, or PATCH re-validation of the merged plan) and
 * returns a copy; `requiresApproval` is kept as given (true, false or absent).
 * Throws `rollout_plan_invalid_ramp` with every problem in `fields`.
 */
export function validateRampSteps(steps: readonly RampStepInput[], cadence: Cadence): RampStep[] {
  const fields = rampStepProblems(steps, cadence);
  if (Object.keys(fields).length > 0) {
    throw new DomainError('rollout_plan_invalid_ramp', 'The ramp steps are invalid.', { fields });
  }
  return steps.map((s) => ({
    percent: s.percent,
    holdForSeconds: s.holdForSeconds,
    ...(s.requiresApproval !== undefined ? { requiresApproval: s.requiresApproval } : {}),
    ...(s.guard ? { guard: normalizedGuard(s.guard) } : {}),
    ...(s.holdFromConvergence ? { holdFromConvergence: { instancesPercent: s.holdFromConvergence.instancesPercent, timeoutSeconds: s.holdFromConvergence.timeoutSeconds } } : {}),
  }));
}

/**
 * Validates the blackout calendar and returns it normalized (days unique and
 * sorted). The zone is checked whenever given, even with no blackout days, so a
 * plan never stores a zone that a later PATCH of the days would trip over.
 * Blacking out all seven days is refused: an auto plan would never move.
 * Throws `invalid_request`.
 */
export function validateBlackout(
  days: readonly number[],
  timezone: string,
): { blackoutDaysOfWeek: number[]; blackoutTimezone: string } {
  const fields: Record<string, string> = {};
  days.forEach((d, i) => {
    if (!Number.isInteger(d) || d < 0 || d > 6) fields[`blackoutDaysOfWeek.${i}`] = 'must be an integer from 0 (Sunday) to 6 (Saturday)';
  });
  const unique = [...new Set(days)].sort((a, b) => a - b);
  if (Object.keys(fields).length === 0 && unique.length >= 7) {
    fields.blackoutDaysOfWeek = 'cannot black out every day of the week';
  }
  if (!isValidTimeZone(timezone)) fields.blackoutTimezone = 'must be a valid IANA time zone name';
  if (Object.keys(fields).length > 0) throw new DomainError('invalid_request', 'The blackout settings are invalid.', { fields });
  return { blackoutDaysOfWeek: unique, blackoutTimezone: timezone };
}

/**
 * Applies the defaults (cadence manual, no blackout days, zone UTC) and checks
 * the plan's semantics. Blackout problems (`invalid_request`) are reported
 * before ramp problems (`rollout_plan_invalid_ramp`): one error per call, the
 * generic code first, as zod's shape errors would be.
 */
export function validatePlan(input: PlanInput): NormalizedPlan {
  const cadence = input.cadence ?? DEFAULT_CADENCE;
  const blackout = validateBlackout(input.blackoutDaysOfWeek ?? [], input.blackoutTimezone ?? DEFAULT_BLACKOUT_TIMEZONE);
  const rampSteps = validateRampSteps(input.rampSteps, cadence);
  return {
    key: input.key,
    name: input.name,
    ...(input.description !== undefined ? { description: input.description } : {}),
    rampSteps,
    cadence,
    ...blackout,
  };
}
