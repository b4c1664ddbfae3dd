import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery } from '../common/sql.js';
import { findRolloutPath } from './rollouts.store.js';
import type { TargetIdSource } from './target-id-index.js';

/*
 * A rollout's allow-list is a target-ID list (common/target-lists.store.ts holds the statements
 * on lists by list id): its current list is `coalesce(rollouts.target_list_id, rollouts.id)`, the
 * one expression every reader joins on.
 */

/** SQL for the current list id of the rollout aliased `r`. */
export const currentListSql = (r: string) => `coalesce(${r}.target_list_id, ${r}.id)`;

/** The current list id of a rollout row. */
export const listIdOf = (rollout: { id: string; targetListId?: string | null | undefined }): string => rollout.targetListId ?? rollout.id;

/**
 * One page in bytewise ID order after `after` (keyset pagination on the primary key) of the
 * rollout's current list, for the list endpoint and the in-memory copies. Two prepared
 * statements, not one with `$2 is null or …`: a generic plan of that would filter instead of
 * seeking, re-reading every earlier page. Outside transactions only (preparedQuery).
 */
export async function pageTargetIds(em: EntityManager, rolloutId: string, after: string | null, limit: number): Promise<string[]> {
  const list = `(select ${currentListSql('r')} from rollouts r where r.id = $1)`;
  const rows =
    after === null
      ? await preparedQuery<{ target_id: string }>(em, 'gradual_target_list_first_page', `select target_id from rollout_target_ids where list_id = ${list} order by target_id limit $2`, [rolloutId, limit])
      : await preparedQuery<{ target_id: string }>(
          em,
          'gradual_target_list_next_page',
          `select target_id from rollout_target_ids where list_id = ${list} and target_id > $2 order by target_id limit $3`,
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
