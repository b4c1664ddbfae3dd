import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery, rawQuery } from '../common/sql.js';
import { findRolloutPath } from './rollouts.store.js';
import type { TargetIdSource } from './target-id-index.js';

/*
 * The allow-list is touched only through set-based statements with the IDs
 * bound as one text[] parameter: one round trip per request, whatever its size.
 */

/**
 * Adds IDs, skipping those already listed, and returns how many were new. When the caller
 * knows the list is empty (it holds the rollout's row lock and its targetIdsCount is 0), a
 * plain de-duplicated insert skips the per-row conflict check: about twice as fast.
 */
export async function addTargetIds(tx: EntityManager, rolloutId: string, ids: string[], listIsEmpty = false): Promise<number> {
  if (!ids.length) return 0;
  const { rowCount } = await rawQuery(
    tx,
    listIsEmpty
      ? `insert into rollout_target_ids (rollout_id, target_id)
         select distinct ?::uuid, t from unnest(?::text[]) as t`
      : `insert into rollout_target_ids (rollout_id, target_id)
         select ?, t from unnest(?::text[]) as t
         on conflict do nothing`,
    [rolloutId, ids],
  );
  return rowCount;
}

export async function removeTargetIds(tx: EntityManager, rolloutId: string, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const { rowCount } = await rawQuery(tx, `delete from rollout_target_ids where rollout_id = ? and target_id = any(?::text[])`, [rolloutId, ids]);
  return rowCount;
}

export async function replaceTargetIds(tx: EntityManager, rolloutId: string, ids: string[]): Promise<number> {
  await rawQuery(tx, `delete from rollout_target_ids where rollout_id = ?`, [rolloutId]);
  return addTargetIds(tx, rolloutId, ids, true);
}

/**
 * One page in bytewise ID order after `after` (keyset pagination on the primary key), for the
 * list endpoint and the in-memory copies. Two prepared statements, not one with `$2 is null or
 * …`: a generic plan of that would filter instead of seeking, re-reading every earlier page.
 * Outside transactions only (preparedQuery).
 */
export async function pageTargetIds(em: EntityManager, rolloutId: string, after: string | null, limit: number): Promise<string[]> {
  const rows =
    after === null
      ? await preparedQuery<{ target_id: string }>(em, 'gradual_target_ids_first_page', `select target_id from rollout_target_ids where rollout_id = $1 order by target_id limit $2`, [rolloutId, limit])
      : await preparedQuery<{ target_id: string }>(
          em,
          'gradual_target_ids_next_page',
          `select target_id from rollout_target_ids where rollout_id = $1 and target_id > $2 order by target_id limit $3`,
          [rolloutId, after, limit],
        );
  return rows.map((r) => r.target_id);
}

/**
 * The database side of the in-memory allow-lists (TargetIdIndex), on pooled connections outside
 * any unit of work: `em` is the root entity manager, never a transaction's.
 */
export function targetIdSource(em: EntityManager): TargetIdSource {
  return {
    async stamp(envId, kind, key) {
      const path = await findRolloutPath(em, envId, kind, key, null);
      return path && { envVersion: path.envVersion, orgId: path.orgId, rolloutId: path.rolloutId, targetIdsVersion: path.targetIdsVersion, targetIdsCount: path.targetIdsCount };
    },
    page: (rolloutId, after, limit) => pageTargetIds(em, rolloutId, after, limit),
    async listVersion(rolloutId) {
      const rows = await preparedQuery<{ target_ids_version: number }>(em, 'gradual_target_ids_version', `select target_ids_version from rollouts where id = $1`, [rolloutId]);
      return rows[0]?.target_ids_version ?? null;
    },
  };
}
