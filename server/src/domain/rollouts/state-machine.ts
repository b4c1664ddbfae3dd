/**
 * The rollout state machine: (rollout, command, now) → next rollout + audit
 * actions. Pure: no I/O, no clock (time is `now`). Services load the row, call
 * this, and store the result together with one audit row per action. The ramp
 * vocabulary (effective percent, approached step) is defined in ramp-position.ts.
 */
import { isLiveStatus } from '@gradual/contract';
import { DomainError } from '../errors.js';
import { attachPlan, effectivePercent, enterStep, guardedStep, nextGuardCheck, nextStepIndex, scheduled, startHold } from './ramp-position.js';
import { assertPercent, cloneJson, deepEqual, resolvedPlan } from './rollout-values.js';
import { isBlackout, nextNonBlackoutStart } from './schedule.js';
import { finish, noop } from './transition-results.js';
import type { GuardGate, PutRollout, RolloutCommand, RolloutState, Transition } from './types.js';

export type CreateRolloutInput = Omit<PutRollout, 'type'> & { defaultSeed: string; defaultBucketField: string };

// ---------------------------------------------------------------------------
// Creation

/**
 * A brand-new rollout from a PUT (first PUT, or PUT after the previous rollout
 * completed or was cancelled). Status active; seed and bucketField default;
 * newValue undefined when the body had none (the rollout gates the rules).
 * A `planKey` attaches `plan` (resolved by the caller) as for a PUT.
 * Actions: rollout.created (+ rollout.completed when it starts at 100).
 */
export function createRollout(input: CreateRolloutInput, now: Date): Transition {
  assertPercent(input.percent);
  let rollout: RolloutState = {
    status: 'active',
    percent: input.percent,
    pausedAtPercent: null,
    pausedReason: null,
    rolledBackFromPercent: null,
    seed: input.seed ?? input.defaultSeed,
    bucketField: input.bucketField ?? input.defaultBucketField,
    newValue: input.hasNewValue ? cloneJson(input.newValue ?? null) : undefined,
    plan: null,
    rampStepIdx: null,
    nextStepAt: null,
    stepStartedAt: null,
    guardCheckAt: null,
    awaitingConvergenceUntil: null,
  };
  if (typeof input.planKey === 'string') rollout = attachPlan(rollout, resolvedPlan(input.planKey, input.plan), now);
  return finish(rollout, ['rollout.created']);
}

// ---------------------------------------------------------------------------
// Commands

/**
 * Applies one command. No-ops return `{ rollout: current, actions: [], changed: false }`
 * with the very same object. Domain errors are thrown as DomainError; a PUT on a
 * terminal rollout is a programming error (the service creates a new rollout).
 */
export function applyCommand(current: RolloutState, command: RolloutCommand, now: Date): Transition {
  switch (command.type) {
    case 'put':
      return put(current, command, now);
    case 'pause':
      return pause(current);
    case 'resume':
      return resume(current, now);
    case 'cancel':
      return cancel(current);
    case 'advance':
      return advance(current, now);
    case 'tick':
      return tick(current, now, command.guard, command.converged === true);
    case 'guard_pause':
      return stopWhereItIs(current, 'guard');
    case 'convergence_pause':
      return current.awaitingConvergenceUntil === null ? noop(current) : stopWhereItIs(current, 'convergence');
    case 'fire':
      return fire(current);
    case 'rollback':
      return rollback(current);
  }
}

/**
 * PUT on a live rollout edits it and never changes its status, except that an
 * active rollout reaching 100 completes.
 * - seed: changing it (a different string) is refused with rollout_seed_locked
 *   once the rollout has exposed anyone: percent > 0, or auto-rolled-back from
 *   a percent > 0.
 * - percent: active → percent; paused(user|approval_gate) → percent and
 *   pausedAtPercent (stays paused); paused(auto_rollback) → rolledBackFromPercent
 *   (percent stays 0, stays paused).
 * - plan: undefined or the attached plan's key keeps the attachment (no
 *   re-snapshot) and, if the effective percent changed, recomputes rampStepIdx
 *   and nextStepAt; null detaches; another key snapshots `plan`. A percent above
 *   the plan's final step is invalid_request (fields.percent).
 * - newValue: hasNewValue sets it; otherwise it is kept.
 * - A result deep-equal to the current state is a no-op (PUT idempotency);
 *   otherwise rollout.updated (+ rollout.completed).
 */
function put(current: RolloutState, cmd: PutRollout, now: Date): Transition {
  if (!isLiveStatus(current.status)) {
    throw new Error(`applyCommand(put) on a ${current.status} rollout: the service must create a new rollout`);
  }
  assertPercent(cmd.percent);
  const rolledBack = current.status === 'paused' && current.pausedReason === 'auto_rollback';

  if (cmd.seed !== undefined && cmd.seed !== current.seed) {
    const exposed = current.percent > 0 || (rolledBack && (current.rolledBackFromPercent ?? 0) > 0);
    if (exposed) {
      throw new DomainError('rollout_seed_locked', 'The seed cannot change once the rollout has admitted anyone.', {
        fields: { seed: 'locked while percent is above 0' },
      });
    }
  }

  const previousEffective = effectivePercent(current);
  let next: RolloutState = { ...current };
  if (cmd.seed !== undefined) next.seed = cmd.seed;
  if (cmd.bucketField !== undefined) next.bucketField = cmd.bucketField;
  if (cmd.hasNewValue) next.newValue = cloneJson(cmd.newValue ?? null);

  if (rolledBack) next.rolledBackFromPercent = cmd.percent;
  else if (current.status === 'paused') {
    next.percent = cmd.percent;
    next.pausedAtPercent = cmd.percent;
  } else next.percent = cmd.percent;

  if (cmd.planKey === null) {
    next.plan = null;
    next.rampStepIdx = null;
    next.nextStepAt = null;
    next.stepStartedAt = null;
    next.awaitingConvergenceUntil = null;
  } else if (cmd.planKey !== undefined && cmd.planKey !== current.plan?.key) {
    next = attachPlan(next, resolvedPlan(cmd.planKey, cmd.plan), now);
  } else if (next.plan && cmd.percent !== previousEffective) {
    next = attachPlan(next, next.plan, now);
  }

  if (deepEqual(next, current)) return noop(current);
  return finish(next, ['rollout.updated']);
}

/** pause: active → paused(user) at the current percent, ramp frozen (nextStepAt null). Paused or terminal: no-op. */
function pause(current: RolloutState): Transition {
  if (current.status !== 'active') return noop(current);
  return finish(
    { ...current, status: 'paused', pausedReason: 'user', pausedAtPercent: current.percent, nextStepAt: null, awaitingConvergenceUntil: null },
    ['rollout.paused'],
  );
}

/**
 * resume:
 * - active, completed, cancelled → rollout_not_paused (409).
 * - paused(user) → active at pausedAtPercent; the current step's hold restarts from now.
 * - paused(approval_gate) → active and the gated step (nextStepIndex) is entered
 *   in the same transition: rollout.approval_resolved. If no step is left to
 *   enter (a PUT moved or detached the plan while gated) it resumes like a user
 *   pause: rollout.resumed.
 * - paused(auto_rollback) → active at rolledBackFromPercent; the hold restarts.
 * Completion applies when the resulting percent is 100.
 */
function resume(current: RolloutState, now: Date): Transition {
  if (current.status !== 'paused') {
    throw new DomainError('rollout_not_paused', `The rollout is ${current.status}, not paused.`);
  }
  const resumed: RolloutState = {
    ...current,
    status: 'active',
    percent: effectivePercent(current),
    pausedAtPercent: null,
    pausedReason: null,
    rolledBackFromPercent: null,
  };
  if (current.pausedReason === 'approval_gate') {
    const target = nextStepIndex(current);
    if (target !== null) return finish(enterStep(resumed, target, now), ['rollout.approval_resolved']);
  }
  return finish(scheduled(resumed, now), ['rollout.resumed']);
}

/** cancel: active or paused → cancelled (percent kept for the record, pause fields and schedule cleared). Terminal: no-op. */
function cancel(current: RolloutState): Transition {
  if (!isLiveStatus(current.status)) return noop(current);
  return finish(
    {
      ...current,
      status: 'cancelled',
      pausedAtPercent: null,
      pausedReason: null,
      rolledBackFromPercent: null,
      nextStepAt: null,
      awaitingConvergenceUntil: null,
    },
    ['rollout.cancelled'],
  );
}

/**
 * advance (operator): to nextStepIndex, ignoring hold, blackout and approval.
 * No plan, no step left, or a terminal rollout → rollout_already_at_final_step.
 * - active → enters the step (auto: nextStepAt = now + hold, null at the final step).
 * - paused(user|guard|convergence) → stays paused at the step's percent (pausedAtPercent too).
 * - paused(approval_gate) → the operator overrides the gate: active at the step.
 * - paused(auto_rollback) → stays paused at 0; rolledBackFromPercent = the step's percent.
 * Audit rollout.advanced (+ rollout.completed when an active rollout reaches 100).
 */
function advance(current: RolloutState, now: Date): Transition {
  const target = isLiveStatus(current.status) ? nextStepIndex(current) : null;
  const step = target === null ? undefined : current.plan?.rampSteps[target];
  if (target === null || !step) {
    throw new DomainError('rollout_already_at_final_step', 'The rollout has no next ramp step.');
  }
  if (current.status === 'paused' && (current.pausedReason === 'user' || current.pausedReason === 'guard' || current.pausedReason === 'convergence')) {
    return finish(
      { ...current, percent: step.percent, pausedAtPercent: step.percent, rampStepIdx: target, nextStepAt: null, awaitingConvergenceUntil: null },
      ['rollout.advanced'],
    );
  }
  if (current.status === 'paused' && current.pausedReason === 'auto_rollback') {
    return finish({ ...current, rolledBackFromPercent: step.percent, rampStepIdx: target, nextStepAt: null }, [
      'rollout.advanced',
    ]);
  }
  // active, or paused(approval_gate) overridden by the operator.
  const active: RolloutState = { ...current, status: 'active', pausedAtPercent: null, pausedReason: null };
  return finish(enterStep(active, target, now), ['rollout.advanced']);
}

/**
 * tick (scheduler): acts only on an active rollout with an auto plan whose
 * nextStepAt has passed (≤ now); anything else is a no-op. Exactly one step per tick.
 * - now on a blackout day (local date in the plan's zone) → nextStepAt moves to
 *   the start of the next non-blackout local day; no audit action, but changed.
 * - no step left → nextStepAt null; no audit action, but changed.
 * - the next step requires approval → not entered: paused(approval_gate) at the
 *   current percent, nextStepAt null, rollout.approval_gate_reached.
 * - else the step is entered: nextStepAt = now + its hold (null at the final
 *   step), rollout.advanced (+ rollout.completed at 100).
 * - at a guarded step (guardedStep) the tick also acts when its check is due
 *   (guardCheckAt), and only with the check's verdict (none: no-op): `advance`
 *   with the hold over moves on as above; otherwise the step stays and its next
 *   check is a minute away (changed, no audit action).
 * - at a step awaiting convergence (awaitingConvergenceUntil) nothing moves until
 *   `converged`: then its hold starts (nextStepAt = now + hold; changed, no audit
 *   action). Its guard's checks go on meanwhile (guardCheckAt).
 * A step is never applied twice at the same `now`: after it nextStepAt is null
 * or later than now (holds of non-final steps are ≥ 60 s).
 */
function tick(current: RolloutState, now: Date, guard: GuardGate | undefined, converged: boolean): Transition {
  const plan = current.plan;
  if (current.status !== 'active' || !plan || plan.cadence !== 'auto') return noop(current);
  const checkDue = current.guardCheckAt !== null && current.guardCheckAt.getTime() <= now.getTime();
  if (current.awaitingConvergenceUntil !== null) {
    let next = converged ? startHold(current, now) : current;
    if (guardedStep(current) && guard !== undefined && checkDue) next = { ...next, guardCheckAt: nextGuardCheck(now) };
    return next === current ? noop(current) : { rollout: next, actions: [], changed: true };
  }
  const stepDue = current.nextStepAt !== null && current.nextStepAt.getTime() <= now.getTime();
  if (guardedStep(current)) {
    if (guard === undefined || !(stepDue || checkDue)) return noop(current);
    // Checked, and staying: the next check in a minute (scheduling only: no audit row).
    if (guard !== 'advance' || !stepDue) return { rollout: { ...current, guardCheckAt: nextGuardCheck(now) }, actions: [], changed: true };
  } else if (!stepDue) {
    return noop(current);
  }
  if (isBlackout(now, plan.blackoutDaysOfWeek, plan.blackoutTimezone)) {
    const deferred = nextNonBlackoutStart(now, plan.blackoutDaysOfWeek, plan.blackoutTimezone);
    return { rollout: { ...current, nextStepAt: deferred }, actions: [], changed: true };
  }
  const target = nextStepIndex(current);
  const step = target === null ? undefined : plan.rampSteps[target];
  if (target === null || !step) {
    return { rollout: { ...current, nextStepAt: null }, actions: [], changed: true };
  }
  if (step.requiresApproval === true) {
    return finish(
      { ...current, status: 'paused', pausedReason: 'approval_gate', pausedAtPercent: current.percent, nextStepAt: null, awaitingConvergenceUntil: null },
      ['rollout.approval_gate_reached'],
    );
  }
  return finish(enterStep(current, target, now), ['rollout.advanced']);
}

/**
 * guard_pause (a guarded step's checks) and convergence_pause (a step awaiting convergence timed
 * out): active → paused(guard | convergence) at the current percent, ramp frozen; rollout.paused.
 * Anything else: no-op (a person's pause or a rollback already stopped it).
 */
function stopWhereItIs(current: RolloutState, reason: 'guard' | 'convergence'): Transition {
  if (current.status !== 'active') return noop(current);
  return finish(
    { ...current, status: 'paused', pausedReason: reason, pausedAtPercent: current.percent, nextStepAt: null, awaitingConvergenceUntil: null },
    ['rollout.paused'],
  );
}

/**
 * fire (automatic rollback webhook, or a guarded step's regression): active or paused(user|approval_gate) →
 * paused(auto_rollback): percent and pausedAtPercent 0, rolledBackFromPercent =
 * the percent it was admitting (pausedAtPercent when paused), ramp frozen;
 * rollout.auto_rollback. Already auto-rolled-back or terminal: no-op (the caller
 * maps these to noop_already_rolled_back / noop_terminal_state).
 */
function fire(current: RolloutState): Transition {
  return rolledBack(current, 'rollout.auto_rollback');
}

/**
 * rollback (an operator's kill switch): the state change of `fire`, audited as
 * rollout.rolled_back. Nothing to roll back (terminal, or already rolled back)
 * → rollout_nothing_to_roll_back (409).
 */
function rollback(current: RolloutState): Transition {
  const transition = rolledBack(current, 'rollout.rolled_back');
  if (!transition.changed) {
    const why = isLiveStatus(current.status) ? 'already rolled back' : current.status;
    throw new DomainError('rollout_nothing_to_roll_back', `Nothing to roll back: the rollout is ${why}.`);
  }
  return transition;
}

/** Paused at 0% remembering the percent it admitted; a no-op when terminal or already rolled back. */
function rolledBack(current: RolloutState, action: 'rollout.auto_rollback' | 'rollout.rolled_back'): Transition {
  if (!isLiveStatus(current.status) || current.pausedReason === 'auto_rollback') return noop(current);
  const from = current.status === 'paused' ? (current.pausedAtPercent ?? current.percent) : current.percent;
  return finish(
    {
      ...current,
      status: 'paused',
      pausedReason: 'auto_rollback',
      rolledBackFromPercent: from,
      percent: 0,
      pausedAtPercent: 0,
      nextStepAt: null,
      awaitingConvergenceUntil: null,
    },
    [action],
  );
}
