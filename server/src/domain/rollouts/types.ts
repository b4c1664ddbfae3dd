/**
 * The rollout domain, as pure data. The state machine (state-machine.ts) maps
 * (rollout, command, now) to the next rollout and its audit actions, with no
 * I/O; services load and store these values around it. Rollout statuses, pause reasons and
 * cadences are the contract's (@gradual/contract); which statuses are live is its
 * LIVE_STATUSES / isLiveStatus.
 */
import type { Cadence, PausedReason, RolloutStatus } from '@gradual/contract';

export type { Cadence, PausedReason, RolloutStatus };

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * A guarded step's guard as its plan states it (docs/guards.md): the metrics it watches (their
 * kind and direction are the metric definitions'), each with its margin and its action on a
 * regression, and the step's data limits.
 */
export interface StepGuardPlan {
  metrics: Array<{ key: string; margin: number; action: 'rollback' | 'pause' }>;
  minUnitsPerArm: number;
  maxHoldFactor: number;
}

/**
 * A step whose hold starts when the fleet serves it (docs/convergence.md): `instancesPercent` of
 * the SDK instances seen recently on the step's version or later, within `timeoutSeconds`.
 */
export interface HoldFromConvergence {
  instancesPercent: number;
  timeoutSeconds: number;
}

export interface RampStep {
  percent: number;
  holdForSeconds: number;
  requiresApproval?: boolean;
  guard?: StepGuardPlan;
  holdFromConvergence?: HoldFromConvergence;
}

/** What a guarded step's checks concluded, for the scheduler's tick: advance once the hold is over, or hold on. */
export type GuardGate = 'advance' | 'hold';

/** What a rollout copies from a plan when it attaches to it; later plan edits never reach it. */
export interface PlanSnapshot {
  key: string;
  rampSteps: RampStep[];
  cadence: Cadence;
  /** 0 = Sunday … 6 = Saturday, unique and sorted. */
  blackoutDaysOfWeek: number[];
  /** IANA timezone in which blackout days are local dates. */
  blackoutTimezone: string;
}

export interface RolloutState {
  status: RolloutStatus;
  /** Current admission percentage, 0–100 with at most 4 decimals. */
  percent: number;
  pausedAtPercent: number | null;
  pausedReason: PausedReason | null;
  /** While paused by auto_rollback: the percent a resume returns to. */
  rolledBackFromPercent: number | null;
  seed: string;
  bucketField: string;
  /** The candidate value. `undefined` means the rollout gates the primitive's rules instead. */
  newValue: JsonValue | undefined;
  plan: PlanSnapshot | null;
  /** Index into plan.rampSteps of the current (or, when percent is below it, the approached) step; null without a plan. */
  rampStepIdx: number | null;
  /** When the scheduler next acts (auto cadence only); null otherwise. */
  nextStepAt: Date | null;
  /**
   * When the current step's hold began: the step entered, the rollout resumed or put on its plan.
   * A guarded step compares only what its arms did since, so each resume starts a new analysis.
   * Null until a plan positions the rollout.
   */
  stepStartedAt: Date | null;
  /**
   * When the scheduler next checks the guarded step the rollout holds at (a minute after the last
   * check: GUARD_CHECK_SECONDS); null unless it is at one (guardedStep).
   */
  guardCheckAt: Date | null;
  /**
   * While the current step holds from convergence and the fleet is not there yet: when the
   * rollout pauses if it still is not (nextStepAt is null meanwhile; the hold starts once it is).
   */
  awaitingConvergenceUntil: Date | null;
}

export type RolloutAuditAction =
  | 'rollout.created'
  | 'rollout.updated'
  | 'rollout.paused'
  | 'rollout.resumed'
  | 'rollout.advanced'
  | 'rollout.approval_gate_reached'
  | 'rollout.approval_resolved'
  | 'rollout.cancelled'
  | 'rollout.completed'
  | 'rollout.auto_rollback'
  | 'rollout.rolled_back';

/** Fields of a PUT; absent properties keep the current value. */
export interface PutRollout {
  type: 'put';
  percent: number;
  /** `undefined`: keep the attachment. `null`: detach. A key: attach `plan` (resolved by the caller). */
  planKey?: string | null;
  /** The plan to snapshot, resolved by the caller when planKey names a plan different from the attached one. */
  plan?: PlanSnapshot;
  seed?: string;
  bucketField?: string;
  /** Present (even as JSON null) sets the candidate; absent keeps it (or, for a new rollout, gates the rules). */
  newValue?: JsonValue;
  hasNewValue: boolean;
}

export type RolloutCommand =
  | PutRollout
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'cancel' }
  | { type: 'advance' }
  /**
   * The scheduler's periodic check (auto cadence). At a guarded step the step's checks decide
   * too: the ramp moves on only with `guard: 'advance'` (never blind: absent holds). A step
   * awaiting convergence starts its hold with `converged: true`.
   */
  | { type: 'tick'; guard?: GuardGate; converged?: boolean }
  /** A guarded step's checks stop the ramp where it is (insufficient data, a sample-ratio mismatch, a metric whose action is pause). */
  | { type: 'guard_pause' }
  /** A step awaiting convergence timed out: the ramp stops where it is. */
  | { type: 'convergence_pause' }
  /** An automatic-rollback webhook fire. */
  | { type: 'fire' }
  /** An operator's manual rollback (the kill switch): the state change of `fire`. */
  | { type: 'rollback' };

export interface Transition {
  /** The state after the command (the same object as the input when nothing changed). */
  rollout: RolloutState;
  /** Audit actions to write, in order; empty when nothing observable changed. */
  actions: RolloutAuditAction[];
  /** False when the command changed nothing at all (idempotent repeats): no write, no version bump. */
  changed: boolean;
}
