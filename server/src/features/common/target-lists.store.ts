import type { EntityManager } from '@mikro-orm/postgresql';
import { rawQuery } from './sql.js';

/*
 * Target-ID lists (rollouts' allow-lists, segments' included and excluded IDs) live in one table,
 * rollout_target_ids, keyed by list id. They are touched only through set-based statements with
 * the IDs bound as one text[] parameter. The statements here take a list id and run in the
 * caller's transaction or (the slices of a large edit, on a list nobody reads yet) each on its own.
 */

/**
 * Where an owner kind records its spare lists (lists that are not one of its current ones: being
 * written, left by a writer that failed, or replaced and waiting to be deleted).
 */
export type SpareListTable = { table: 'rollout_spare_target_lists'; owner: 'rollout_id' } | { table: 'segment_spare_target_lists'; owner: 'segment_id' };

export const ROLLOUT_SPARE_LISTS: SpareListTable = {
  table: 'rollout_spare_target_lists',
  owner: 'rollout_id',
};
export const SEGMENT_SPARE_LISTS: SpareListTable = {
  table: 'segment_spare_target_lists',
  owner: 'segment_id',
};

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

/** Every ID of each of `listIds`, in ID order, by list id (lists without IDs are absent). */
export async function readLists(em: EntityManager, listIds: readonly string[]): Promise<Map<string, string[]>> {
  const lists = new Map<string, string[]>();
  if (!listIds.length) return lists;
  const { rows } = await rawQuery<{ list_id: string; ids: string[] }>(
    em,
    `select list_id, array_agg(target_id order by target_id) as ids from rollout_target_ids where list_id = any(?::uuid[]) group by list_id`,
    [[...listIds]],
  );
  for (const row of rows) lists.set(row.list_id, row.ids);
  return lists;
}

/** Records a list of the owner that is not (or no longer) one of its current ones: the list's next writer deletes it. */
export async function addSpareList(em: EntityManager, spares: SpareListTable, ownerId: string, listId: string): Promise<void> {
  await rawQuery(em, `insert into ${spares.table} (list_id, ${spares.owner}) values (?, ?) on conflict do nothing`, [listId, ownerId]);
}

/** The list became one of its owner's current ones. */
export async function dropSpareList(em: EntityManager, spares: SpareListTable, listId: string): Promise<void> {
  await rawQuery(em, `delete from ${spares.table} where list_id = ?`, [listId]);
}

/** Forgets a spare list once none of its IDs remain (a concurrent deleter may still be at work otherwise). */
export async function forgetDeletedSpareList(em: EntityManager, spares: SpareListTable, listId: string): Promise<void> {
  await rawQuery(em, `delete from ${spares.table} s where s.list_id = ? and not exists (select 1 from rollout_target_ids t where t.list_id = s.list_id)`, [listId]);
}

/** The owner's spare lists (see addSpareList). */
export async function spareLists(em: EntityManager, spares: SpareListTable, ownerId: string): Promise<string[]> {
  const { rows } = await rawQuery<{ list_id: string }>(em, `select list_id from ${spares.table} where ${spares.owner} = ?`, [ownerId]);
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
