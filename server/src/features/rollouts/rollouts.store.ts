import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RolloutEntity, type Environment, type Primitive, type PrimitiveKind, type Rollout } from '../../db/entities/index.js';
import { isUuid } from '../shared/lookup.js';
import { preparedQuery, rawQuery } from '../shared/raw-sql.js';

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
    targetIdsVersion: 0,
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

/** What a rollout path (`/envs/{envId}/{kind}s/{key}/rollout…`) points at, read in one round trip. */
export interface RolloutPathRow {
  orgId: string;
  projectId: string;
  /** null: no such primitive in the environment's project. */
  primitiveId: string | null;
  /** The current rollout (the live one, else the latest terminal one); null when there is none. */
  rolloutId: string | null;
  /** Whether `targetId` is on that rollout's allow-list; null when there is no rollout or no ID was asked. */
  contains: boolean | null;
  /** The environment's version in the same snapshot. */
  envVersion: number;
  /** The rollout's allow-list version and size (0 when there is no rollout). */
  targetIdsVersion: number;
  targetIdsCount: number;
}

/**
 * Environment, primitive, current rollout and (optionally) one allow-list
 * membership in a single statement: the hot read path of `contains`, which
 * would otherwise cost five sequential round trips. Same "current rollout"
 * rule as findCurrentRollout. Returns null when the environment does not exist.
 */
export async function findRolloutPath(em: EntityManager, envId: string, kind: PrimitiveKind, key: string, targetId: string | null): Promise<RolloutPathRow | null> {
  if (!isUuid(envId)) return null;
  const rows = await preparedQuery<{
    org_id: string;
    project_id: string;
    version: number;
    primitive_id: string | null;
    rollout_id: string | null;
    target_ids_version: number | null;
    target_ids_count: number | null;
    contains: boolean | null;
  }>(
    em,
    'gradual_rollout_path',
    `select e.org_id, e.project_id, e.version, p.id as primitive_id, r.id as rollout_id, r.target_ids_version, r.target_ids_count,
            case when r.id is null or $1::text is null then null
                 else exists (select 1 from rollout_target_ids t where t.rollout_id = r.id and t.target_id = $1::text) end as contains
       from environments e
       left join primitives p on p.project_id = e.project_id and p.kind = $2 and p.key = $3
       left join lateral (
         select x.id, x.target_ids_version, x.target_ids_count from rollouts x
          where x.env_id = e.id and x.primitive_id = p.id
          order by (x.status in ('active', 'paused')) desc, x.created_at desc, x.id desc
          limit 1
       ) r on true
      where e.id = $4`,
    [targetId, kind, key, envId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    orgId: row.org_id,
    projectId: row.project_id,
    primitiveId: row.primitive_id,
    rolloutId: row.rollout_id,
    contains: row.contains,
    envVersion: row.version,
    targetIdsVersion: row.target_ids_version ?? 0,
    targetIdsCount: row.target_ids_count ?? 0,
  };
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
