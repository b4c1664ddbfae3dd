import type { Rollout as RolloutDto } from '@gradual/contract';
import type { Rollout } from '../../db/entities/index.js';
import { allowedActions } from '../../domain/rollouts/allowed-actions.js';
import type { RolloutState } from '../../domain/rollouts/types.js';
import { iso } from '../common/lookup.js';

/** Row → the pure state the state machine works on. */
export function toState(r: Rollout): RolloutState {
  return {
    status: r.status,
    percent: r.percent,
    pausedAtPercent: r.pausedAtPercent ?? null,
    pausedReason: r.pausedReason ?? null,
    rolledBackFromPercent: r.rolledBackFromPercent ?? null,
    seed: r.seed,
    bucketField: r.bucketField,
    newValue: r.gatesRules ? undefined : (r.newValue ?? null),
    plan: r.plan ? structuredClone(r.plan) : null,
    rampStepIdx: r.rampStepIdx ?? null,
    nextStepAt: r.nextStepAt ?? null,
    stepStartedAt: r.stepStartedAt ?? null,
    guardCheckAt: r.guardCheckAt ?? null,
    awaitingConvergenceUntil: r.awaitingConvergenceUntil ?? null,
  };
}

/** Copies a state onto a row (the caller persists it). */
export function applyState(r: Rollout, s: RolloutState, now: Date): void {
  r.status = s.status;
  r.percent = s.percent;
  r.pausedAtPercent = s.pausedAtPercent;
  r.pausedReason = s.pausedReason;
  r.rolledBackFromPercent = s.rolledBackFromPercent;
  r.seed = s.seed;
  r.bucketField = s.bucketField;
  r.gatesRules = s.newValue === undefined;
  r.newValue = s.newValue === undefined ? null : s.newValue;
  r.planKey = s.plan?.key ?? null;
  r.plan = s.plan;
  r.rampStepIdx = s.rampStepIdx;
  r.nextStepAt = s.nextStepAt;
  r.stepStartedAt = s.stepStartedAt;
  r.guardCheckAt = s.guardCheckAt;
  r.awaitingConvergenceUntil = s.awaitingConvergenceUntil;
  r.updatedAt = now;
}

export function toRolloutDto(r: Rollout): RolloutDto {
  return {
    id: r.id,
    environmentId: r.envId,
    primitiveKind: r.primitiveKind,
    primitiveKey: r.primitiveKey,
    status: r.status,
    percent: r.percent,
    pausedAtPercent: r.pausedAtPercent ?? null,
    pausedReason: r.pausedReason ?? null,
    rolledBackFromPercent: r.rolledBackFromPercent ?? null,
    seed: r.seed,
    bucketField: r.bucketField,
    ...(r.gatesRules ? {} : { newValue: r.newValue ?? null }),
    planKey: r.planKey ?? null,
    planRampStepsSnapshot: r.plan?.rampSteps ?? null,
    cadence: r.plan?.cadence ?? null,
    planBlackoutDaysOfWeek: r.plan?.blackoutDaysOfWeek ?? null,
    planBlackoutTimezone: r.plan?.blackoutTimezone ?? null,
    rampStepIdx: r.rampStepIdx ?? null,
    nextStepAt: r.nextStepAt ? iso(r.nextStepAt) : null,
    stepVersion: r.stepVersion ?? null,
    awaitingConvergenceUntil: r.awaitingConvergenceUntil ? iso(r.awaitingConvergenceUntil) : null,
    targetIdsCount: r.targetIdsCount,
    lastAutoRollback: r.lastAutoRollback ?? null,
    lastGuardStop: r.lastGuardStop ?? null,
    lastRollbackConvergence: r.rollbackConvergence ?? null,
    // As of the row's last change: no action's acceptance depends on the time.
    allowedActions: allowedActions(toState(r), r.updatedAt),
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  };
}
