/**
 * The result of a state-machine command (state-machine.ts): a no-op, or the next state with its
 * audit actions, where an active rollout reaching 100 completes in the same transition. Pure.
 */
import { guardedStep } from './ramp-position.js';
import type { RolloutAuditAction, RolloutState, Transition } from './types.js';

/** Nothing changed: the very same state, no actions, no write. */
export function noop(current: RolloutState): Transition {
  return { rollout: current, actions: [], changed: false };
}

/**
 * Completion: an active rollout whose percent reaches 100 becomes completed in
 * the same transition (schedule and pause fields cleared), with
 * rollout.completed as the last action. A rollout not at a guarded step has no guard check due.
 */
export function finish(state: RolloutState, actions: RolloutAuditAction[]): Transition {
  // Only a rollout holding at a guarded step has guard checks due.
  const next = state.guardCheckAt === null || guardedStep(state) ? state : { ...state, guardCheckAt: null };
  if (next.status === 'active' && next.percent >= 100) {
    return {
      rollout: {
        ...next,
        status: 'completed',
        percent: 100,
        pausedAtPercent: null,
        pausedReason: null,
        rolledBackFromPercent: null,
        nextStepAt: null,
      },
      actions: [...actions, 'rollout.completed'],
      changed: true,
    };
  }
  return { rollout: next, actions, changed: true };
}
