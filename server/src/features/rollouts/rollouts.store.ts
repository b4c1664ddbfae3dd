import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RolloutEntity, type Environment, type Primitive, type Rollout } from '../../db/entities/index.js';

/**
 * A new rollout row for (primitive, env), persisted with the transaction. Its
 * state fields are placeholders: the caller applies the state machine's
 * `createRollout` transition to it (commitTransition) before the flush.
 */
export function newRolloutRow(tx: EntityManager, env: Environment, primitive: Primitive, now: Date): Rollout {
  return tx.create(RolloutEntity, {
    orgId: env.orgId,
    projectId: env.projectId,
    envId: env.id,
    primitiveId: primitive.id,
    primitiveKind: primitive.kind,
    primitiveKey: primitive.key,
    status: 'active',
    percent: 0,
    seed: '',
    bucketField: '',
    gatesRules: true,
    targetIdsCount: 0,
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * The rollout a (primitive, environment) pair answers with: the live one
 * (active or paused; at most one exists), else the most recent ended one.
 * `lock` takes a row lock so concurrent commands on one rollout serialize.
 */
export async function findCurrentRollout(em: EntityManager, envId: string, primitiveId: string, lock = false): Promise<Rollout | null> {
  const options = lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {};
  const live = await em.findOne(RolloutEntity, { envId, primitiveId, status: { $in: ['active', 'paused'] } }, options);
  if (live) return live;
  return em.findOne(RolloutEntity, { envId, primitiveId }, { orderBy: { createdAt: 'desc', id: 'desc' }, ...options });
}

/** Current rollouts of many primitives in one environment (for state lists). */
export async function findCurrentRollouts(em: EntityManager, envId: string, primitiveIds: string[]): Promise<Map<string, Rollout>> {
  const out = new Map<string, Rollout>();
  if (!primitiveIds.length) return out;
  const rows = await em.find(RolloutEntity, { envId, primitiveId: { $in: primitiveIds } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  for (const r of rows) {
    const seen = out.get(r.primitiveId);
    const seenLive = seen && (seen.status === 'active' || seen.status === 'paused');
    if (!seenLive) out.set(r.primitiveId, r);
  }
  return out;
}
