/**
 * Which operator actions a rollout accepts in its state, read off the state machine itself:
 * each command is applied to the state (state-machine.ts), and an action is offered when its
 * command is accepted and changes something. Pure; the API returns the list on every rollout so
 * that clients render exactly these actions.
 */
import type { RolloutAction } from '@gradual/contract';
import { DomainError } from '../errors.js';
import { applyCommand } from './state-machine.js';
import type { RolloutCommand, RolloutState, Transition } from './types.js';

/** The state machine's answer to a command, or null when it refuses it. */
function attempt(state: RolloutState, command: RolloutCommand, now: Date): Transition | null {
  try {
    const transition = applyCommand(state, command, now);
    return transition.changed ? transition : null;
  } catch (err) {
    if (err instanceof DomainError) return null;
    throw err;
  }
}

/**
 * The actions, in a fixed order (pause, resume | approve, advance, rollback, cancel):
 * - resume is `approve` when it resolves an approval gate (rollout.approval_resolved);
 * - advance is left out while paused at an approval gate (approve enters the gated step) and
 *   after a rollback (resume first): the state machine accepts it there as an operator override,
 *   which is one click from pushing a held rollout up.
 * `now` only places schedules, which no action's acceptance depends on.
 */
export function allowedActions(state: RolloutState, now: Date): RolloutAction[] {
  const actions: RolloutAction[] = [];
  if (attempt(state, { type: 'pause' }, now)) actions.push('pause');
  const resumed = attempt(state, { type: 'resume' }, now);
  if (resumed) actions.push(resumed.actions.includes('rollout.approval_resolved') ? 'approve' : 'resume');
  const held = state.status === 'paused' && (state.pausedReason === 'approval_gate' || state.pausedReason === 'auto_rollback');
  if (!held && attempt(state, { type: 'advance' }, now)) actions.push('advance');
  if (attempt(state, { type: 'rollback' }, now)) actions.push('rollback');
  if (attempt(state, { type: 'cancel' }, now)) actions.push('cancel');
  return actions;
}
