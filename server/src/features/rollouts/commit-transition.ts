import type { EntityManager } from '@mikro-orm/postgresql';
import type { Rollout as RolloutDto } from '@gradual/contract';
import { PENDING_VERSION, PrimitiveStateEntity, type AuditEvent, type Primitive, type Rollout } from '../../db/entities/index.js';
import { approvalGateReason } from '../../domain/rollouts/ramp-position.js';
import type { Transition } from '../../domain/rollouts/types.js';
import type { Actor, Caller } from '../access/authorize.js';
import { auditRow } from '../audit/audit.store.js';
import { changeRolloutIfUnchanged, type EnvChangeBus, type EnvChangeSet } from '../environments/env-changes.js';
import { applyState, toRolloutDto } from './rollout.mapper.js';

export interface TransitionContext {
  changes: EnvChangeSet;
  actor: Actor;
  caller: Pick<Caller, 'reason' | 'now'>;
}

/**
 * Records one state-machine transition of `row` in the caller's environment change set: the
 * row, the environment's version bump and one audit row per action, written with the set. A
 * rollout that completes makes its candidate the primitive's base value in the same
 * transaction (a rollout gating rules simply stops gating). A transition that changed only
 * scheduling metadata (a blackout deferral) is saved without an audit row or version bump:
 * nothing an SDK evaluates has changed.
 *
 * `row` is a detached row (findCurrentRollout with a lock, claimDueRollouts, newRolloutRow),
 * written with bound SQL by the change set, never through the unit of work.
 */
export async function commitTransition(
  ctx: TransitionContext,
  row: Rollout,
  /** Only its identity is used: the scheduler builds it from the row's copy (keys never change). */
  primitive: Pick<Primitive, 'id' | 'kind' | 'key'>,
  transition: Transition,
  /** The representation before the command; null for a new rollout (inserted, not updated). */
  before: RolloutDto | null,
): Promise<void> {
  if (!transition.changed) return;
  const { changes, actor, caller } = ctx;
  applyState(row, transition.rollout, caller.now);
  recordAudited(row, transition, caller.now);
  changes.rollout(row, before === null);
  const audit = rolloutAuditRows(actor, caller, row, transition, before);
  if (audit.length) changes.change(row.envId);
  for (const event of audit) changes.auditEvent(event);
  if (completesWithValue(row, transition)) {
    // Rare (once per rollout): the primitive's state goes through the unit of work, flushed at commit.
    const state = await changes.tx.findOneOrFail(PrimitiveStateEntity, { primitiveId: primitive.id, envId: row.envId });
    const previous = state.value;
    state.value = row.newValue ?? null;
    state.updatedAt = caller.now;
    changes.audit(caller, actor, {
      orgId: row.orgId,
      projectId: row.projectId,
      envId: row.envId,
      action: `${primitive.kind}.update_value`,
      resourceType: primitive.kind,
      resourceKey: primitive.key,
      resourceId: primitive.id,
      previousValue: previous,
      newValue: state.value,
    });
  }
}

/** How long the scheduler watches a rollback reach the fleet (features/rollouts/rollback-watch.ts). */
export const ROLLBACK_WATCH_MS = 3600_000;

/**
 * What an audited transition records on the row besides its state: the environment version it is
 * written at (stepVersion, filled in by the write) and, for a rollback, when it happened and the
 * start of its watch (the previous rollback's record goes).
 */
function recordAudited(row: Rollout, transition: Transition, now: Date): void {
  if (!transition.actions.length) return;
  row.stepVersion = PENDING_VERSION;
  if (transition.actions.some((a) => a === 'rollout.auto_rollback' || a === 'rollout.rolled_back')) {
    row.rolledBackAt = now;
    row.rollbackWatchUntil = new Date(now.getTime() + ROLLBACK_WATCH_MS);
    row.rollbackConvergence = null;
  }
}

/** Whether the transition (already applied to `row`) completes a rollout whose candidate becomes the primitive's value. */
function completesWithValue(row: Rollout, transition: Transition): boolean {
  return transition.actions.includes('rollout.completed') && !row.gatesRules;
}

/**
 * One audit row per state-machine action, `row` already in its new state. No `version`: they
 * carry the environment version that the change set's write gives them. The scheduler stopping at
 * an approval gate gives no reason of its own; its row names the gated step instead.
 */
function rolloutAuditRows(actor: Actor, caller: Pick<Caller, 'reason' | 'now'>, row: Rollout, transition: Transition, before: RolloutDto | null): AuditEvent[] {
  if (!transition.actions.length) return [];
  const after = toRolloutDto(row);
  return transition.actions.map((action) =>
    auditRow(action === 'rollout.approval_gate_reached' ? { ...caller, reason: caller.reason ?? approvalGateReason(transition.rollout) } : caller, actor, {
      orgId: row.orgId,
      projectId: row.projectId,
      envId: row.envId,
      action,
      resourceType: 'rollout',
      resourceKey: row.primitiveKey,
      resourceId: row.id,
      previousValue: before ?? undefined,
      newValue: after,
    }),
  );
}

/**
 * commitTransition without a transaction or a lock, for an edit of an existing rollout read
 * unlocked (readCurrentRollout): changeRolloutIfUnchanged writes the row, bumps the environment
 * and inserts the audit rows in one statement, and does nothing at all unless the row is still
 * the version that was read (`rowVersion`, its xmin). A rollout PUT is then two statements
 * (the read and this) instead of BEGIN, a locking read, the write and COMMIT; on the embedded
 * database, where every statement waits its turn in one session, that is what bounds the
 * write rate.
 *
 * Returns null when the row changed since it was read (the caller reads it again), else the
 * environment version written and published (null when the transition changed nothing an SDK
 * evaluates). Not for a transition that completes a rollout with a candidate value: that
 * rewrites the primitive's state too (commitTransition, under the row lock).
 */
export async function commitIfUnchanged(
  ctx: { bus: EnvChangeBus; actor: Actor; caller: Pick<Caller, 'reason' | 'now'> },
  em: EntityManager,
  row: Rollout,
  rowVersion: string,
  transition: Transition,
  before: RolloutDto,
): Promise<{ version: number | null } | null> {
  if (!transition.changed) return { version: null };
  const { bus, actor, caller } = ctx;
  const next = { ...row };
  applyState(next, transition.rollout, caller.now);
  recordAudited(next, transition, caller.now);
  if (completesWithValue(next, transition)) throw new Error('commitIfUnchanged cannot complete a rollout with a value');
  const written = await changeRolloutIfUnchanged(em, bus, caller.now, next, rowVersion, rolloutAuditRows(actor, caller, next, transition, before));
  if (written) Object.assign(row, next);
  return written;
}
