import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery, rawQuery } from '../common/sql.js';
import { findRolloutPath } from './rollouts.store.js';
import type { TargetIdSource } from './target-id-index.js';

/*
 * Allow-lists are touched only through set-based statements with the IDs bound as one text[]
 * parameter. A list has an id of its own (rollout_target_ids.list_id): a rollout's current list is
 * `coalesce(rollouts.target_list_id, rollouts.id)`, the one expression every reader joins on. The
 * statements here take a list id, and run in the caller's transaction or (the slices of a large
 * edit, on a list nobody reads yet) each on its own.
 */

/** SQL for the current list id of the rollout aliased `r`. */
export const currentListSql = (r: string) => `coalesce(${r}.target_list_id, ${r}.id)`;

/** The current list id of a rollout row. */
export const listIdOf = (rollout: { id: string; targetListId?: string | null | undefined }): string => rollout.targetListId ?? rollout.id;

/**
 * Adds IDs, skipping those already listed, and returns how many were new. When the caller
 * knows none of them can be listed yet (an empty list it holds the lock of, and IDs without
 * repeats or de-duplicated here), a plain insert skips the per-row conflict check: about twice as
 * fast.
 */
export async function addTargetIds(em: EntityManager, listId: string, ids: readonly string[], listIsEmpty = false): Promise<number> {
  if (!ids.length) return 0;
  const { rowCount } = await rawQuery(
    em,
    listIsEmpty
      ? `insert into rollout_target_ids (list_id, target_id)
         select distinct ?::uuid, t from unnest(?::text[]) as t`
      : `insert into rollout_target_ids (list_id, target_id)
         select ?, t from unnest(?::text[]) as t
         on conflict do nothing`,
    [listId, [...ids]],
  );
  return rowCount;
}

/** Inserts IDs known to be unique and absent from the list (a new list, filled slice by slice from de-duplicated IDs). */
export async function insertNewTargetIds(em: EntityManager, listId: string, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  const { rowCount } = await rawQuery(em, `insert into rollout_target_ids (list_id, target_id) select ?::uuid, t from unnest(?::text[]) as t`, [listId, [...ids]]);
  return rowCount;
}

export async function removeTargetIds(em: EntityManager, listId: string, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  const { rowCount } = await rawQuery(em, `delete from rollout_target_ids where list_id = ? and target_id = any(?::text[])`, [listId, [...ids]]);
  return rowCount;
}

/**
 * Copies up to `limit` IDs of list `from` after `after` (in ID order; null: from the start) into
 * list `to`: one slice of a copy. Returns how many it copied and the last one.
 */
export async function copyTargetIdsSlice(em: EntityManager, from: string, to: string, after: string | null, limit: number): Promise<{ copied: number; last: string | null }> {
  const { rows } = await rawQuery<{ copied: number; last: string | null }>(
    em,
    `with slice as (select target_id from rollout_target_ids where list_id = ?${after === null ? '' : ' and target_id > ?'} order by target_id limit ?),
          copied as (insert into rollout_target_ids (list_id, target_id) select ?::uuid, target_id from slice)
     select count(*)::int as copied, max(target_id) as last from slice`,
    after === null ? [from, limit, to] : [from, after, limit, to],
  );
  return rows[0] ?? { copied: 0, last: null };
}

/** Deletes up to `limit` IDs of a list nobody reads (one slice of dropping it); returns how many. */
export async function deleteTargetIdsSlice(em: EntityManager, listId: string, limit: number): Promise<number> {
  const { rowCount } = await rawQuery(em, `delete from rollout_target_ids where ctid = any(array(select ctid from rollout_target_ids where list_id = ? limit ?))`, [listId, limit]);
  return rowCount;
}

/** Records a list of the rollout that is not (or no longer) its current one: the list's next writer deletes it. */
export async function addSpareList(em: EntityManager, rolloutId: string, listId: string): Promise<void> {
  await rawQuery(em, `insert into rollout_spare_target_lists (list_id, rollout_id) values (?, ?) on conflict do nothing`, [listId, rolloutId]);
}

/** The list became the rollout's current one. */
export async function dropSpareList(em: EntityManager, listId: string): Promise<void> {
  await rawQuery(em, `delete from rollout_spare_target_lists where list_id = ?`, [listId]);
}

/** Forgets a spare list once none of its IDs remain (a concurrent deleter may still be at work otherwise). */
export async function forgetDeletedSpareList(em: EntityManager, listId: string): Promise<void> {
  await rawQuery(em, `delete from rollout_spare_target_lists s where s.list_id = ? and not exists (select 1 from rollout_target_ids t where t.list_id = s.list_id)`, [listId]);
}

/** The rollout's spare lists (see addSpareList). */
export async function spareLists(em: EntityManager, rolloutId: string): Promise<string[]> {
  const { rows } = await rawQuery<{ list_id: string }>(em, `select list_id from rollout_spare_target_lists where rollout_id = ?`, [rolloutId]);
  return rows.map((r) => r.list_id);
}

/** Waits for (and holds until the transaction `em` is in ends) the lock every writer of the list at `lockKey` takes. */
export async function lockListInTransaction(em: EntityManager, lockKey: string): Promise<void> {
  await rawQuery(em, `select pg_advisory_xact_lock(hashtextextended(?, 0))`, [lockKey]);
}

/**
 * Runs `fn` holding the list lock of lockListInTransaction in a transaction of its own on one
 * pooled connection (knex's transaction, released when it ends; `fn` works on other
 * connections). Only where the database has several sessions: on the embedded database an open
 * transaction would hold the whole database, and its one process is the only writer anyway.
 */
export async function holdListLock<T>(em: EntityManager, lockKey: string, fn: () => Promise<T>): Promise<T> {
  return em.getKnex().transaction(async (trx) => {
    await trx.raw(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [lockKey]);
    return fn();
  });
}

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
