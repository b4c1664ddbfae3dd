import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { KEY_MAX_LENGTH, TARGET_ID_MAX_LENGTH, type TargetIdsAdded, type TargetIdsCount, type TargetIdsRemoved } from '@gradual/contract';
import type { PrimitiveKind, Rollout } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, type Caller } from '../access/authorize.js';
import { changeEnvironments, type EnvChangeBus, type EnvChangeSet } from '../environments/env-changes.js';
import type { EnvDirectory } from '../environments/env-directory.js';
import type { TargetIdIndex } from './target-id-index.js';
import { resolveTarget, type RolloutTarget } from './rollouts.service.js';
import { findCurrentRollout, findRolloutPath } from './rollouts.store.js';
import * as store from './target-ids.store.js';

export const DEFAULT_TARGET_ID_PAGE = 1000;

const noRollout = () => new DomainError('not_found', 'There is no rollout for this primitive in this environment.');

export type TargetIdEdit = 'add' | 'remove' | 'replace';

/** What each edit answers: the IDs it changed (add, remove) and the list's new length. */
interface EditResults {
  add: TargetIdsAdded;
  remove: TargetIdsRemoved;
  replace: TargetIdsCount;
}
const editResult: { [E in TargetIdEdit]: (changed: number, count: number) => EditResults[E] } = {
  add: (added, count) => ({ added, count }),
  remove: (removed, count) => ({ removed, count }),
  replace: (_changed, count) => ({ count }),
};

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

/**
 * Changes the allow-list of the current rollout and answers what changed.
 *
 * Every writer of a list holds its lock (writes to one list take turns, in arrival order on this
 * instance; across instances through a PostgreSQL advisory lock). A small add or remove
 * changes the current list in one transaction with the version bump and the audit row. A replace,
 * and an add or remove of more than DIRECT_EDIT_MAX IDs, builds a new list beside the current one
 * (a copy of it for an add or remove) in short statements of TARGET_ID_SLICE IDs, then one short
 * transaction (the change set's) points the rollout at it, bumps the environment's version and
 * writes the audit row. Readers join on the rollout's current list, so they see the old list or
 * the new one, never a part; a writer that fails or dies leaves only a list nobody reads,
 * recorded as spare, which the list's next writer deletes. The list that was replaced is deleted
 * in slices after the answer.
 *
 * Inside a caller's transaction (a proposal applied), the whole edit runs in that transaction.
 */
export async function editTargetIds<E extends TargetIdEdit>(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  kind: PrimitiveKind,
  envId: string,
  key: string,
  edit: E,
  ids: string[],
): Promise<EditResults[E]> {
  const target = await resolveTarget(em, caller, kind, envId, key, 'write');
  const lockKey = `gradual.target-ids.${target.env.id}.${target.primitive.id}`;
  const write: ListWrite = { em, caller, bus, target, lockKey };
  if (em.getTransactionContext()) return editInTransaction(write, edit, ids);
  return listLocks.run(lockKey, async () => {
    if (edit !== 'replace' && ids.length <= DIRECT_EDIT_MAX) return editInTransaction(write, edit, ids);
    return bulkSlots.run(() => (singleSession(em) ? editInSlices(write, edit, ids) : store.holdListLock(em, lockKey, () => editInSlices(write, edit, ids))));
  });
}

interface ListWrite {
  em: EntityManager;
  caller: Caller;
  bus: EnvChangeBus;
  target: RolloutTarget;
  lockKey: string;
}

/**
 * Whether the database is one session (the embedded database: MikroORM's pool has exactly one
 * connection there, db/database.ts, and at least two on PostgreSQL), where an open transaction
 * holds everyone else off and this process is the only writer.
 */
const singleSession = (em: EntityManager) => em.config.get('pool')?.max === 1;

/** The edit's audit action, its row and its answer, once `changed` and the new count are known. */
function recordEdit(changes: EnvChangeSet, write: ListWrite, rollout: Rollout, edit: TargetIdEdit, requested: number, changed: number, before: number): void {
  const { caller, target } = write;
  rollout.updatedAt = caller.now;
  rollout.targetIdsVersion += 1; // in-memory copies of the list are stale from this commit
  changes.rollout(rollout, false);
  changes.change(target.env.id);
  changes.audit(caller, target.actor, {
    orgId: target.env.orgId,
    projectId: target.env.projectId,
    envId: target.env.id,
    action: `rollout.target_ids_${edit === 'add' ? 'added' : edit === 'remove' ? 'removed' : 'replaced'}`,
    resourceType: 'rollout',
    resourceKey: target.primitive.key,
    resourceId: rollout.id,
    previousValue: { targetIdsCount: before },
    newValue: { targetIdsCount: rollout.targetIdsCount, requested, ...(edit !== 'replace' ? { [edit === 'add' ? 'added' : 'removed']: changed } : {}) },
  });
}

/** A replace changes the list unless it was empty and stays empty. */
const replaced = (count: number, before: number) => (count === 0 && before === 0 ? 0 : 1);

/** The whole edit in one transaction: the IDs, then (one statement, the change set's) the rollout, the env version and an audit row. */
async function editInTransaction<E extends TargetIdEdit>(write: ListWrite, edit: E, ids: string[]): Promise<EditResults[E]> {
  const { em, bus, caller, target } = write;
  return changeEnvironments(em, bus, caller.now, async (changes) => {
    const { tx } = changes;
    await store.lockListInTransaction(tx, write.lockKey);
    const rollout: Rollout | null = await findCurrentRollout(tx, target.env.id, target.primitive.id, true);
    if (!rollout) throw noRollout();
    const before = rollout.targetIdsCount;
    const list = store.listIdOf(rollout);
    let changed: number;
    if (edit === 'add') {
      changed = await store.addTargetIds(tx, list, ids, before === 0);
      rollout.targetIdsCount = before + changed;
    } else if (edit === 'remove') {
      changed = await store.removeTargetIds(tx, list, ids);
      rollout.targetIdsCount = before - changed;
    } else {
      // A new list, filled in this transaction; the old one is deleted with it.
      const next = randomUUID();
      rollout.targetIdsCount = await store.addTargetIds(tx, next, ids, true);
      changed = replaced(rollout.targetIdsCount, before);
      if (changed) {
        rollout.targetListId = next;
        while ((await store.deleteTargetIdsSlice(tx, list, 100_000)) > 0);
      }
    }
    if (changed > 0) recordEdit(changes, write, rollout, edit, ids.length, changed, before);
    return editResult[edit](changed, rollout.targetIdsCount);
  });
}

/** The edit written slice by slice into a new list, then switched to in one short transaction (see editTargetIds). */
async function editInSlices<E extends TargetIdEdit>(write: ListWrite, edit: E, ids: string[]): Promise<EditResults[E]> {
  const { em, bus, caller, target } = write;
  for (let attempt = 1; ; attempt++) {
    const base = await findCurrentRollout(em, target.env.id, target.primitive.id);
    if (!base) throw noRollout();
    const baseList = store.listIdOf(base);
    const leftovers = await store.spareLists(em, base.id);
    const next = randomUUID();
    await store.addSpareList(em, base.id, next);
    const doomed: string[] = [next];
    try {
      const changed = await fillList(em, next, baseList, base.targetIdsCount, edit, ids);
      const count = edit === 'add' ? base.targetIdsCount + changed : edit === 'remove' ? base.targetIdsCount - changed : changed;
      const result = await changeEnvironments(em, bus, caller.now, async (changes) => {
        const { tx } = changes;
        const rollout: Rollout | null = await findCurrentRollout(tx, target.env.id, target.primitive.id, true);
        if (!rollout) throw noRollout();
        // Writers of this list hold its lock, so only a new current rollout (one ended, another
        // put) can differ from what the new list was built from: build it again for that one.
        if (rollout.id !== base.id || store.listIdOf(rollout) !== baseList || rollout.targetIdsVersion !== base.targetIdsVersion) return null;
        const before = rollout.targetIdsCount;
        const effective = edit === 'replace' ? replaced(count, before) : changed;
        if (effective > 0) {
          rollout.targetListId = next;
          rollout.targetIdsCount = count;
          await store.dropSpareList(tx, next);
          await store.addSpareList(tx, rollout.id, baseList);
          doomed[0] = baseList;
          recordEdit(changes, write, rollout, edit, ids.length, effective, before);
        }
        return editResult[edit](effective, rollout.targetIdsCount);
      });
      if (result || attempt >= 3) {
        if (!result) throw new DomainError('version_drift', 'The rollout changed while its target IDs were being written; try again.');
        return result;
      }
    } finally {
      // After the answer: the lists nobody reads any more, slice by slice (a failure leaves them recorded for the next writer).
      void deleteSpareLists(em, [...doomed, ...leftovers]).catch(() => undefined);
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
async function deleteSpareLists(em: EntityManager, lists: string[]): Promise<void> {
  for (const list of new Set(lists)) {
    while ((await store.deleteTargetIdsSlice(em, list, TARGET_ID_SLICE)) > 0);
    await store.forgetDeletedSpareList(em, list);
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

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!id || id.length > TARGET_ID_MAX_LENGTH || Buffer.from(id, 'utf8').toString('base64url') !== cursor) {
    throw new DomainError('invalid_request', 'The cursor is invalid.', { fields: { cursor: 'invalid cursor' } });
  }
  return id;
}

export async function listTargetIds(
  em: EntityManager,
  caller: Caller,
  kind: PrimitiveKind,
  envId: string,
  key: string,
  query: { cursor?: string | undefined; limit?: number | undefined },
): Promise<{ items: string[]; nextCursor?: string }> {
  const { env, primitive } = await resolveTarget(em, caller, kind, envId, key, 'read');
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  const rollout = await findCurrentRollout(em, env.id, primitive.id);
  if (!rollout) throw noRollout();
  const limit = query.limit ?? DEFAULT_TARGET_ID_PAGE;
  const items = await store.pageTargetIds(em, rollout.id, after, limit);
  // nextCursor only when the page is full (the spec's rule): a full last page costs one empty request.
  return items.length === limit ? { items, nextCursor: Buffer.from(items[items.length - 1]!, 'utf8').toString('base64url') } : { items };
}

/** What a contains check can answer from besides the database (AppDeps provides both). */
export interface ContainsSources {
  envs: EnvDirectory;
  targetIds: TargetIdIndex;
}

/**
 * The hot read path (SDK-side checks against million-ID lists). From memory when this instance
 * holds the allow-list as of the environment's current version (only the access check remains);
 * otherwise one statement finds environment, primitive, current rollout and the membership, and
 * the checks run in resolveTarget's order (environment, access, primitive, rollout), so the
 * answers match every other rollout path. `source` says which answered (the route counts them).
 */
export async function containsTargetId(
  em: EntityManager,
  caller: Caller,
  sources: ContainsSources,
  kind: PrimitiveKind,
  envId: string,
  key: string,
  targetId: string,
): Promise<{ contains: boolean; source: 'memory' | 'database' }> {
  // Longer keys name nothing and longer IDs are never on a list (the add endpoints reject them).
  const askable = targetId.length <= TARGET_ID_MAX_LENGTH;
  const env = sources.envs.peek(envId);
  const known = env && askable && key.length <= KEY_MAX_LENGTH ? sources.targetIds.lookup(envId, kind, key, env.version, targetId) : undefined;
  if (known) {
    await authorize(em, caller, known.orgId, { action: 'read', envId, resourceKey: key });
    return { contains: known.contains, source: 'memory' };
  }
  const path = await findRolloutPath(em, envId, kind, key, askable ? targetId : null);
  if (!path) throw new DomainError('not_found', 'Environment not found.');
  await authorize(em, caller, path.orgId, { action: 'read', envId, resourceKey: key });
  if (!path.primitiveId || key.length > KEY_MAX_LENGTH) throw new DomainError('not_found', `No ${kind} "${key}" in this project.`);
  if (!path.rolloutId) throw noRollout();
  // The memory path needs the environment's version: the directory learns an environment checked before it was polled.
  if (!env) void sources.envs.get(em, envId).catch(() => undefined);
  return { contains: path.contains === true, source: 'database' };
}
