import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TARGET_ID_MAX_LENGTH, type TargetIdsAdded, type TargetIdsCount, type TargetIdsRemoved } from '@gradual/contract';
import { DomainError } from '../../domain/errors.js';
import * as store from './target-lists.store.js';

/*
 * The edits of one target-ID list (a rollout's allow-list, a segment's included or excluded IDs),
 * whoever owns it. The owner says how to read its current list, and runs the short transaction
 * that points it at a new list (bumping the environments that evaluate it and writing the audit
 * row); everything else (locks, slices, spare lists, de-duplication) is here.
 */

export const DEFAULT_TARGET_ID_PAGE = 1000;

export type TargetIdEdit = 'add' | 'remove' | 'replace';

/** What each edit answers: the IDs it changed (add, remove) and the list's new length. */
export interface EditResults {
  add: TargetIdsAdded;
  remove: TargetIdsRemoved;
  replace: TargetIdsCount;
}
const editResult: {
  [E in TargetIdEdit]: (changed: number, count: number) => EditResults[E];
} = {
  add: (added, count) => ({ added, count }),
  remove: (removed, count) => ({ removed, count }),
  replace: (_changed, count) => ({ count }),
};

/** An edit's audit action suffix (`<owner>.target_ids_<suffix>`). */
export const editAction = (edit: TargetIdEdit) => (edit === 'add' ? 'added' : edit === 'remove' ? 'removed' : 'replaced');

/**
 * IDs per statement of a large edit. Each slice is one short statement committing on its own, so
 * on the embedded database (one session for every request) other requests wait behind at most
 * one slice (about 30–60 ms) per statement they send, instead of behind the whole edit.
 */
export const TARGET_ID_SLICE = 5000;

/** Edits larger than this are written slice by slice into a new list (replaces always are). */
const DIRECT_EDIT_MAX = TARGET_ID_SLICE;

/** Large edits in progress on this instance at once: each holds a connection (PostgreSQL) and takes turns with every request. */
const BULK_EDITS_AT_ONCE = 2;

/** An owner's list as read: whose it is, its id, its length, and the owner's list version (raised by every edit). */
export interface ListState {
  ownerId: string;
  listId: string;
  count: number;
  version: number;
}

/** What an edit records once it knows the outcome: the IDs requested, those changed, the length before. */
export interface EditRecord {
  edit: TargetIdEdit;
  requested: number;
  changed: number;
  before: number;
}

/** The owner's side of the commit transaction. */
export interface ListTransaction {
  tx: EntityManager;
  /** The list as it is in this transaction (the owner's row locked). */
  state: ListState;
  /**
   * Points the owner at `listId` holding `count` IDs, raises its list version and records the
   * edit (the environments that evaluate it get a new version; one audit row).
   */
  commit: (listId: string, count: number, record: EditRecord) => Promise<void>;
}

/** A list's owner, as the edit sees it. */
export interface ListOwner {
  em: EntityManager;
  /** Every writer of the list holds this lock (in the process and, on PostgreSQL, across instances). */
  lockKey: string;
  spares: store.SpareListTable;
  /** The list as it is now, outside a transaction; throws the owner's not-found error. */
  read(em: EntityManager): Promise<ListState>;
  /**
   * Runs `first`, then reads the state with the owner's row locked (throwing the owner's
   * not-found error), then `work`, in the owner's change transaction.
   */
  transaction<T>(first: (tx: EntityManager) => Promise<void>, work: (list: ListTransaction) => Promise<T>): Promise<T>;
}

/**
 * Changes a list and answers what changed.
 *
 * Every writer of a list holds its lock (writes to one list take turns, in arrival order on this
 * instance; across instances through a PostgreSQL advisory lock). A small add or remove
 * changes the current list in one transaction with the version bump and the audit row. A replace,
 * and an add or remove of more than DIRECT_EDIT_MAX IDs, builds a new list beside the current one
 * (a copy of it for an add or remove) in short statements of TARGET_ID_SLICE IDs, then one short
 * transaction (the owner's) points the owner at it, bumps the environments' versions and
 * writes the audit row. Readers join on the owner's current list, so they see the old list or
 * the new one, never a part; a writer that fails or dies leaves only a list nobody reads,
 * recorded as spare, which the list's next writer deletes. The list that was replaced is deleted
 * in slices after the answer.
 *
 * Inside a caller's transaction (a proposal applied), the whole edit runs in that transaction.
 */
export async function editList<E extends TargetIdEdit>(owner: ListOwner, edit: E, ids: string[]): Promise<EditResults[E]> {
  const { em, lockKey } = owner;
  if (em.getTransactionContext()) return editInTransaction(owner, edit, ids);
  return listLocks.run(lockKey, async () => {
    if (edit !== 'replace' && ids.length <= DIRECT_EDIT_MAX) return editInTransaction(owner, edit, ids);
    return bulkSlots.run(() => (singleSession(em) ? editInSlices(owner, edit, ids) : store.holdListLock(em, lockKey, () => editInSlices(owner, edit, ids))));
  });
}

/**
 * Whether the database is one session (the embedded database: MikroORM's pool has exactly one
 * connection there, db/database.ts, and at least two on PostgreSQL), where an open transaction
 * holds everyone else off and this process is the only writer.
 */
const singleSession = (em: EntityManager) => em.config.get('pool')?.max === 1;

/** A replace changes the list unless it was empty and stays empty. */
const replaced = (count: number, before: number) => (count === 0 && before === 0 ? 0 : 1);

/** The whole edit in one transaction: the IDs, then (the owner's commit) the pointer, the env versions and an audit row. */
async function editInTransaction<E extends TargetIdEdit>(owner: ListOwner, edit: E, ids: string[]): Promise<EditResults[E]> {
  // The list's lock before the owner's row, in the order every writer takes them.
  const lockList = (tx: EntityManager) => store.lockListInTransaction(tx, owner.lockKey);
  return owner.transaction(lockList, async ({ tx, state, commit }) => {
    const before = state.count;
    let listId = state.listId;
    let count: number;
    let changed: number;
    if (edit === 'add') {
      changed = await store.addTargetIds(tx, listId, ids, before === 0);
      count = before + changed;
    } else if (edit === 'remove') {
      changed = await store.removeTargetIds(tx, listId, ids);
      count = before - changed;
    } else {
      // A new list, filled in this transaction; the old one is deleted with it.
      const next = randomUUID();
      count = await store.addTargetIds(tx, next, ids, true);
      changed = replaced(count, before);
      if (changed) {
        while ((await store.deleteTargetIdsSlice(tx, listId, 100_000)) > 0);
        listId = next;
      }
    }
    if (changed > 0)
      await commit(listId, count, {
        edit,
        requested: ids.length,
        changed,
        before,
      });
    return editResult[edit](changed, changed > 0 ? count : before);
  });
}

const nothingFirst = () => Promise.resolve();

/** The edit written slice by slice into a new list, then switched to in one short transaction (see editList). */
async function editInSlices<E extends TargetIdEdit>(owner: ListOwner, edit: E, ids: string[]): Promise<EditResults[E]> {
  const { em, spares } = owner;
  for (let attempt = 1; ; attempt++) {
    const base = await owner.read(em);
    const leftovers = await store.spareLists(em, spares, base.ownerId);
    const next = randomUUID();
    await store.addSpareList(em, spares, base.ownerId, next);
    const doomed: string[] = [next];
    try {
      const changed = await fillList(em, next, base.listId, base.count, edit, ids);
      const count = edit === 'add' ? base.count + changed : edit === 'remove' ? base.count - changed : changed;
      const result = await owner.transaction(nothingFirst, async ({ tx, state, commit }) => {
        // Writers of this list hold its lock, so only a new owner (a rollout ended, another put)
        // can differ from what the new list was built from: build it again for that one.
        if (state.ownerId !== base.ownerId || state.listId !== base.listId || state.version !== base.version) return null;
        const before = state.count;
        const effective = edit === 'replace' ? replaced(count, before) : changed;
        if (effective > 0) {
          await store.dropSpareList(tx, spares, next);
          await store.addSpareList(tx, spares, state.ownerId, base.listId);
          doomed[0] = base.listId;
          await commit(next, count, {
            edit,
            requested: ids.length,
            changed: effective,
            before,
          });
        }
        return editResult[edit](effective, effective > 0 ? count : before);
      });
      if (result || attempt >= 3) {
        if (!result) throw new DomainError('version_drift', 'The list changed while its target IDs were being written; try again.');
        return result;
      }
    } finally {
      // After the answer: the lists nobody reads any more, slice by slice (a failure leaves them recorded for the next writer).
      void deleteSpareLists(em, spares, [...doomed, ...leftovers]).catch(() => undefined);
    }
  }
}

/**
 * Writes the new list `next` of an edit, slice by slice, each slice a statement of its own: the
 * replace's IDs, or a copy of the current list with the IDs added or removed. Returns what the
 * answer counts: IDs added or removed, or (replace) the new list's length.
 */
async function fillList(em: EntityManager, next: string, baseList: string, baseCount: number, edit: TargetIdEdit, ids: string[]): Promise<number> {
  if (edit !== 'replace' && baseCount > 0) {
    let after: string | null = null;
    for (;;) {
      const { copied, last } = await store.copyTargetIdsSlice(em, baseList, next, after, TARGET_ID_SLICE);
      if (copied < TARGET_ID_SLICE || last === null) break;
      after = last;
    }
  }
  let changed = 0;
  if (edit === 'remove') {
    for (let i = 0; i < ids.length; i += TARGET_ID_SLICE) changed += await store.removeTargetIds(em, next, ids.slice(i, i + TARGET_ID_SLICE));
    return changed;
  }
  // Repeats are dropped here, so a new list takes plain inserts (no per-row conflict check).
  const fresh = edit === 'replace' || baseCount === 0;
  const seen = new Set<string>();
  let slice: string[] = [];
  const flush = async () => {
    changed += fresh ? await store.insertNewTargetIds(em, next, slice) : await store.addTargetIds(em, next, slice);
    slice = [];
  };
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    slice.push(id);
    if (slice.length === TARGET_ID_SLICE) await flush();
  }
  await flush();
  return changed;
}

/** Deletes lists nobody reads, slice by slice, and forgets them once empty. */
async function deleteSpareLists(em: EntityManager, spares: store.SpareListTable, lists: string[]): Promise<void> {
  for (const list of new Set(lists)) {
    while ((await store.deleteTargetIdsSlice(em, list, TARGET_ID_SLICE)) > 0);
    await store.forgetDeletedSpareList(em, spares, list);
  }
}

/** Runs functions one at a time per key, in arrival order. */
class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/** At most `size` functions at once; the others wait in arrival order. */
class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await fn();
    } finally {
      const nextInLine = this.waiting.shift();
      if (nextInLine) nextInLine();
      else this.running--;
    }
  }
}

const listLocks = new KeyedQueue();
const bulkSlots = new Slots(BULK_EDITS_AT_ONCE);

/** The ID a list page's cursor names (the last ID of the previous page, base64url). */
export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!id || id.length > TARGET_ID_MAX_LENGTH || Buffer.from(id, 'utf8').toString('base64url') !== cursor) {
    throw new DomainError('invalid_request', 'The cursor is invalid.', {
      fields: { cursor: 'invalid cursor' },
    });
  }
  return id;
}

/** A page as the list endpoints answer it: `nextCursor` only when the page is full (a full last page costs one empty request). */
export function pageOf(items: string[], limit: number): { items: string[]; nextCursor?: string } {
  return items.length === limit
    ? {
        items,
        nextCursor: Buffer.from(items[items.length - 1]!, 'utf8').toString('base64url'),
      }
    : { items };
}
