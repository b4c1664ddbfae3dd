import type { GuardStop } from '@gradual/contract';
import type { Primitive, Rollout } from '../../db/entities/index.js';
import { applyCommand } from '../../domain/rollouts/state-machine.js';
import type { Transition } from '../../domain/rollouts/types.js';
import { systemActor, type Actor } from '../access/authorize.js';
import type { EnvChangeSet } from '../environments/env-changes.js';
import { commitTransition } from './commit-transition.js';
import { toRolloutDto, toState } from './rollout.mapper.js';

/**
 * The audit reason of an alert's rollback (spec "Rollback fire audit rows" 1). Which secret fired
 * and the alert's link are in the row's newValue, the rollout's `lastAutoRollback`, as in its fire record.
 */
export const AUTO_ROLLBACK_REASON = 'rollout:auto_rollback';

/** Why a rollout stops without a person: an alert's rollback webhook, or its guarded step's check. */
export type AutomaticStop =
  | { by: 'alert'; secret: { id: string; name: string }; monitorUrl: string | null }
  | { by: 'guard'; stop: GuardStop; reason: string }
  /** A step that holds from convergence timed out before the fleet served it. */
  | { by: 'convergence'; reason: string };

/**
 * The one way a rollout stops automatically, in the caller's environment change set (its row
 * locked or claimed by it). An alert and a guarded step's `rollback` apply the state machine's
 * `fire` (paused, `auto_rollback`, at 0 %); a guard's `pause` applies `guard_pause` (paused,
 * `guard`, where it is); a convergence timeout `convergence_pause` (paused, `convergence`). The row records what stopped it (`lastAutoRollback` or `lastGuardStop`,
 * so the audit row's newValue carries the evidence), and the audit row names the actor and the
 * reason: the alert's secret and `rollout:auto_rollback`, or the system and `guard:<metric>`.
 * A rollout that is already stopped (or ended) is left as it is: the transition is unchanged.
 */
export async function stopAutomatically(
  changes: EnvChangeSet,
  now: Date,
  row: Rollout,
  primitive: Pick<Primitive, 'id' | 'kind' | 'key'>,
  stop: AutomaticStop,
): Promise<Transition> {
  const command =
    stop.by === 'convergence'
      ? ({ type: 'convergence_pause' } as const)
      : stop.by === 'guard' && stop.stop.action === 'pause'
        ? ({ type: 'guard_pause' } as const)
        : ({ type: 'fire' } as const);
  const transition = applyCommand(toState(row), command, now);
  if (!transition.changed) return transition;
  const before = toRolloutDto(row);
  let actor: Actor;
  let reason: string;
  if (stop.by === 'alert') {
    row.lastAutoRollback = { firedAt: now.toISOString(), secretId: stop.secret.id, secretName: stop.secret.name, parsedMonitorUrl: stop.monitorUrl };
    actor = { actorType: 'rollback_webhook', actorId: stop.secret.id, actorEmail: null, delegatorUserId: null, role: null };
    reason = AUTO_ROLLBACK_REASON;
  } else {
    if (stop.by === 'guard') row.lastGuardStop = stop.stop;
    actor = systemActor;
    reason = stop.reason;
  }
  await commitTransition({ changes, actor, caller: { reason, now } }, row, primitive, transition, before);
  return transition;
}
