import type { EntityManager } from '@mikro-orm/postgresql';
import type { Rollout as RolloutDto } from '@gradual/contract';
import { PrimitiveStateEntity, type Primitive, type Rollout } from '../../db/entities/index.js';
import type { Transition } from '../../domain/rollouts/types.js';
import type { Actor, Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import type { EnvWriteBatch } from '../environments/env-changes.js';
import { applyState, toRolloutDto } from './rollout.mapper.js';

export interface TransitionContext {
  tx: EntityManager;
  batch: EnvWriteBatch;
  actor: Actor;
  caller: Pick<Caller, 'reason' | 'now'>;
}

/**
 * Persists one state-machine transition of `row` in the caller's transaction:
 * the row, the env version bump and one audit row per action. A rollout that
 * completes makes its candidate the primitive's base value in the same
 * transaction (a rollout gating rules simply stops gating). A transition that
 * changed only scheduling metadata (a blackout deferral) is saved without an
 * audit row or version bump: nothing an SDK evaluates has changed.
 */
export async function commitTransition(
  ctx: TransitionContext,
  row: Rollout,
  primitive: Primitive,
  transition: Transition,
  /** The representation before the command; null for a new rollout. */
  before: RolloutDto | null,
): Promise<void> {
  if (!transition.changed) return;
  const { tx, batch, actor, caller } = ctx;
  applyState(row, transition.rollout, caller.now);
  if (!transition.actions.length) return;
  const version = await batch.version(row.envId);
  const after = toRolloutDto(row);
  for (const action of transition.actions) {
    recordAudit(tx, caller, actor, {
      orgId: row.orgId,
      projectId: row.projectId,
      envId: row.envId,
      action,
      resourceType: 'rollout',
      resourceKey: row.primitiveKey,
      resourceId: row.id,
      version,
      previousValue: before ?? undefined,
      newValue: after,
    });
  }
  if (transition.actions.includes('rollout.completed') && !row.gatesRules) {
    const state = await tx.findOneOrFail(PrimitiveStateEntity, { primitiveId: primitive.id, envId: row.envId });
    const previous = state.value;
    state.value = row.newValue ?? null;
    state.updatedAt = caller.now;
    recordAudit(tx, caller, actor, {
      orgId: row.orgId,
      projectId: row.projectId,
      envId: row.envId,
      action: `${primitive.kind}.update_value`,
      resourceType: primitive.kind,
      resourceKey: primitive.key,
      resourceId: primitive.id,
      version,
      previousValue: previous,
      newValue: state.value,
    });
  }
}
