/**
 * Where a rollout stands on its plan's ramp, derived from its state. Pure.
 *
 * Vocabulary:
 * - effective percent: the percent the ramp position refers to. For an active
 *   or user/approval paused rollout it is `percent` (= `pausedAtPercent` when
 *   paused); for an auto-rolled-back one it is `rolledBackFromPercent` (its
 *   live `percent` is 0).
 * - `rampStepIdx` is the first step whose percent ≥ the effective percent. When
 *   the effective percent is below that step's percent the step is being
 *   "approached": it is the next one to enter. Otherwise the next step is
 *   `rampStepIdx + 1`. `nextStepIndex` implements this rule for advance, tick
 *   and resume.
 */
import { DomainError } from '../errors.js';
import type { HoldFromConvergence, PlanSnapshot, RampStep, RolloutState } from './types.js';

/** The percent the ramp position refers to (see the file comment). */
export function effectivePercent(r: RolloutState): number {
  if (r.status === 'paused') {
    if (r.pausedReason === 'auto_rollback') return r.rolledBackFromPercent ?? 0;
    return r.pausedAtPercent ?? r.percent;
  }
  return r.percent;
}

/** Index of the first step whose percent ≥ `percent`; null when `percent` is above the final step. */
export function stepIndexFor(steps: readonly RampStep[], percent: number): number | null {
  const idx = steps.findIndex((s) => s.percent >= percent);
  return idx === -1 ? null : idx;
}

/**
 * The step advance, tick and an approval resume move to: the approached step
 * (effective percent below `rampStepIdx`'s percent), else `rampStepIdx + 1`;
 * null without a plan or past the final step.
 */
export function nextStepIndex(r: RolloutState): number | null {
  if (!r.plan || r.rampStepIdx === null) return null;
  const steps = r.plan.rampSteps;
  const current = steps[r.rampStepIdx];
  if (!current) return null;
  if (effectivePercent(r) < current.percent) return r.rampStepIdx;
  return r.rampStepIdx + 1 < steps.length ? r.rampStepIdx + 1 : null;
}

/**
 * What an approval-gate audit row gives as its reason: the step the scheduler stopped before
 * (counted from 1) and its percent; null when no step is ahead.
 */
export function approvalGateReason(r: RolloutState): string | null {
  const idx = nextStepIndex(r);
  const steps = r.plan?.rampSteps ?? [];
  const step = idx === null ? undefined : steps[idx];
  if (idx === null || !step) return null;
  return `Approval gate at step ${idx + 1} of ${steps.length} (${step.percent}%)`;
}


/**
 * When the scheduler next acts: only for an active rollout on an auto plan.
 * Approaching rampStepIdx's step (percent below it) → now (due at the next
 * tick); at the step → now + its hold; at the final step → null.
 */
export function scheduleFor(r: RolloutState, now: Date): Date | null {
  if (r.status !== 'active' || !r.plan || r.plan.cadence !== 'auto' || r.rampStepIdx === null) return null;
  const steps = r.plan.rampSteps;
  const step = steps[r.rampStepIdx];
  if (!step) return null;
  if (r.percent < step.percent) return new Date(now.getTime());
  if (r.rampStepIdx === steps.length - 1) return null;
  return new Date(now.getTime() + step.holdForSeconds * 1000);
}

/** Sets `plan` and positions the rollout on it by its effective percent (invalid_request above the final step). */
export function attachPlan(r: RolloutState, plan: PlanSnapshot, now: Date): RolloutState {
  const idx = stepIndexFor(plan.rampSteps, effectivePercent(r));
  if (idx === null) {
    const final = plan.rampSteps[plan.rampSteps.length - 1]?.percent;
    throw new DomainError('invalid_request', 'The percent is above the plan\u2019s final step.', {
      fields: { percent: `must be at most the plan's final step percent (${final})` },
    });
  }
  const positioned: RolloutState = { ...r, plan, rampStepIdx: idx };
  return scheduled(positioned, now);
}

/**
 * The rollout with its schedule from now (scheduleFor): when the scheduler has a next move, the
 * current step's hold begins now; otherwise (paused, manual, the final step) stepStartedAt stays.
 */
export function scheduled(r: RolloutState, now: Date): RolloutState {
  const nextStepAt = scheduleFor(r, now);
  // A step that holds from convergence has no next move until the fleet serves it; its deadline instead.
  const awaits = nextStepAt ? convergenceHold(r) : undefined;
  const next: RolloutState = {
    ...r,
    nextStepAt: awaits ? null : nextStepAt,
    stepStartedAt: nextStepAt ? new Date(now.getTime()) : r.stepStartedAt,
    awaitingConvergenceUntil: awaits ? new Date(now.getTime() + awaits.timeoutSeconds * 1000) : null,
  };
  return { ...next, guardCheckAt: guardedStep(next) ? nextGuardCheck(now) : null };
}

/**
 * The convergence the current step holds from: when the rollout is active at its percent on an
 * auto plan and the step has `holdFromConvergence`; undefined otherwise.
 */
export function convergenceHold(r: Pick<RolloutState, 'status' | 'percent' | 'rampStepIdx' | 'plan'>): HoldFromConvergence | undefined {
  if (r.status !== 'active' || r.plan?.cadence !== 'auto' || r.rampStepIdx === null) return undefined;
  const step = r.plan.rampSteps[r.rampStepIdx];
  return step?.percent === r.percent ? step.holdFromConvergence : undefined;
}

/** The fleet serves the step a rollout awaited: its hold (and the guard's analysis) starts now. */
export function startHold(r: RolloutState, now: Date): RolloutState {
  const step = r.plan?.rampSteps[r.rampStepIdx ?? -1];
  if (!step) throw new Error('startHold: no current ramp step');
  return { ...r, awaitingConvergenceUntil: null, stepStartedAt: new Date(now.getTime()), nextStepAt: new Date(now.getTime() + step.holdForSeconds * 1000) };
}

/** How often the scheduler checks a guarded step: the per-minute intervals its count tests are made of. */
export const GUARD_CHECK_SECONDS = 60;

export const nextGuardCheck = (now: Date): Date => new Date(now.getTime() + GUARD_CHECK_SECONDS * 1000);

/**
 * The step a guarded check watches: the current step, when the rollout is active at its percent
 * on an auto plan and the step has a guard; undefined otherwise (nothing to watch).
 */
export function guardedStep(
  r: Pick<RolloutState, 'status' | 'percent'> & { rampStepIdx: number | null | undefined; plan: Pick<PlanSnapshot, 'cadence' | 'rampSteps'> | null | undefined },
): (RampStep & { guard: NonNullable<RampStep['guard']> }) | undefined {
  if (r.status !== 'active' || r.plan?.cadence !== 'auto' || r.rampStepIdx == null) return undefined;
  const step = r.plan.rampSteps[r.rampStepIdx];
  if (!step?.guard || step.percent !== r.percent) return undefined;
  return { ...step, guard: step.guard };
}

/** Enters step `idx` of an active rollout's plan: its percent, and the hold starting now. */
export function enterStep(r: RolloutState, idx: number, now: Date): RolloutState {
  const step = r.plan?.rampSteps[idx];
  if (!step) throw new Error(`enterStep: no ramp step ${idx}`);
  const entered: RolloutState = { ...r, percent: step.percent, rampStepIdx: idx };
  return scheduled(entered, now);
}
