/**
 * The result of a state-machine command (state-machine.ts): a no-op, or the next state with its
 * audit actions, where an active rollout reaching 100 completes in the same transition. Pure.
 */
import type { RolloutAuditAction, RolloutState, Transition } from './types.js';

/** Nothing changed: the very same state, no actions, no write. */
export function noop(current: RolloutState): Transition {
  return { rollout: current, actions: [], changed: false };
}

/**
 * Completion: an active rollout whose percent reaches 100 becomes completed in
 * the same transition (schedule and pause fields cleared), with
 * rollout.completed as the last action.
 */
export function finish(next: RolloutState, actions: RolloutAuditAction[]): Transition {
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
