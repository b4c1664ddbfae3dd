import type { PrimitiveKind } from '../../db/entities/index.js';

/**
 * What one statement (one snapshot) says about a rollout path: the environment's version, the
 * current rollout of (kind, key) and its allow-list's version. Null when the environment does
 * not exist.
 */
export interface RolloutListStamp {
  envVersion: number;
  orgId: string;
  /** null: no such primitive, or no rollout for it in this environment. */
  rolloutId: string | null;
  targetIdsVersion: number;
  targetIdsCount: number;
}

/** The database side of the index (target-id-index.store.ts; a hand-driven fake in tests). */
export interface TargetIdSource {
  stamp(envId: string, kind: PrimitiveKind, key: string): Promise<RolloutListStamp | null>;
  /** Up to `limit` IDs of the list in target-ID order, after `after` (null: from the start). */
  page(rolloutId: string, after: string | null, limit: number): Promise<string[]>;
  /** The list's version now; null when the rollout is gone. */
  listVersion(rolloutId: string): Promise<number | null>;
}

export interface TargetIdIndexOptions {
  /** IDs held in memory across all lists (50–80 bytes each: 53 for a 12-character ID, 77 for a UUID); 0 turns the index off. */
  maxIds: number;
  /** IDs read per statement while loading a list (each page is a short query, so others interleave). */
  pageSize?: number;
  /** How long to leave a path alone after a failed refresh, or one that found no room (ms). */
  retryAfterMs?: number;
  /**
   * A list checked within this long is not dropped to make room for another (ms): two busy lists
   * larger than the bound together would otherwise evict and re-read each other without end.
   */
  keepWarmMs?: number;
  maxPaths?: number;
  /** Monotonic milliseconds (tests move it by hand). */
  now?: () => number;
  /** A refresh failed (the database is down, say): the checks keep going to the database meanwhile. */
  onError?: (err: unknown) => void;
}

interface PathEntry {
  orgId: string;
  rolloutId: string | null;
  targetIdsVersion: number;
  /** The environment version at which this entry was read (or confirmed). */
  validAt: number;
  /** The list has more IDs than the index may hold: checks stay on the database. */
  tooBig: boolean;
}

interface ListEntry {
  ids: Set<string>;
  version: number;
  /** When it last answered a check (the options' clock, ms). */
  lastUsed: number;
}

export interface IndexedAnswer {
  orgId: string;
  contains: boolean;
}

/**
 * In-memory copies of rollouts' allow-lists, so a `contains` check with a warm list needs no
 * database round trip: the list of a path's current rollout, held as a Set.
 *
 * Correctness rests on two versions the database raises in the same transaction as the change:
 *
 * - the environment's version (every rollout change and every allow-list edit raises it; the
 *   environment directory hears of it at once on this instance, through NOTIFY on others, and
 *   re-reads it within a second should a notification be lost): a path's entry answers only
 *   while the environment is still at the version the entry was read or confirmed at;
 * - the rollout's `targetIdsVersion` (every edit that changes the list raises it): a list is
 *   loaded page by page, and kept only if its version is the same after the last page as before
 *   the first, so no edit committed while it loaded.
 *
 * Anything not answerable from memory returns undefined and starts a background refresh (once
 * at a time per path): usually one statement that confirms the path at the new environment
 * version, a full reload only when the list itself changed. Meanwhile the caller asks the
 * database, so a stale or cold index costs speed, never a wrong answer. Memory is bounded by
 * `maxIds`: the least recently used lists are dropped first, and a list larger than the bound is
 * never held.
 */
export class TargetIdIndex {
  private readonly paths = new Map<string, PathEntry>();
  private readonly lists = new Map<string, ListEntry>();
  private readonly refreshing = new Map<string, Promise<unknown>>();
  private readonly failedAt = new Map<string, number>();
  private heldIds = 0;
  private readonly pageSize: number;
  private readonly retryAfterMs: number;
  private readonly keepWarmMs: number;
  private readonly maxPaths: number;
  private readonly now: () => number;

  constructor(
    private readonly source: TargetIdSource,
    private readonly options: TargetIdIndexOptions,
  ) {
    this.pageSize = options.pageSize ?? 20_000;
    this.retryAfterMs = options.retryAfterMs ?? 1000;
    this.keepWarmMs = options.keepWarmMs ?? 10_000;
    this.maxPaths = options.maxPaths ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** IDs held in memory (a gauge). */
  get size(): number {
    return this.heldIds;
  }

  /**
   * Whether `targetId` is on the list of the path's current rollout, when memory knows it for
   * the environment at `envVersion` (the version the caller's environment directory holds);
   * undefined otherwise (ask the database; a refresh has been started).
   */
  lookup(envId: string, kind: PrimitiveKind, key: string, envVersion: number, targetId: string): IndexedAnswer | undefined {
    if (this.options.maxIds <= 0) return undefined;
    const pathKey = `${envId}\u0000${kind}\u0000${key}`;
    const path = this.paths.get(pathKey);
    if (path && path.validAt === envVersion && path.rolloutId !== null) {
      const list = this.lists.get(path.rolloutId);
      if (list && list.version === path.targetIdsVersion) {
        list.lastUsed = this.now();
        return { orgId: path.orgId, contains: list.ids.has(targetId) };
      }
      if (path.tooBig) return undefined;
    } else if (path && path.validAt === envVersion) {
      return undefined; // no rollout: the full route answers the 404
    }
    this.refresh(pathKey, envId, kind, key);
    return undefined;
  }

  /** Resolves once no refresh is running (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.refreshing.size > 0) await Promise.all(this.refreshing.values());
  }

  clear(): void {
    this.paths.clear();
    this.lists.clear();
    this.failedAt.clear();
    this.heldIds = 0;
  }

  private refresh(pathKey: string, envId: string, kind: PrimitiveKind, key: string): void {
    if (this.refreshing.has(pathKey)) return;
    const failed = this.failedAt.get(pathKey);
    if (failed !== undefined && this.now() - failed < this.retryAfterMs) return;
    const refresh = this.reload(pathKey, envId, kind, key)
      .then(
        (settled) => (settled ? this.failedAt.delete(pathKey) : this.failedAt.set(pathKey, this.now())),
        (err: unknown) => {
          this.failedAt.set(pathKey, this.now());
          this.options.onError?.(err);
        },
      )
      .finally(() => this.refreshing.delete(pathKey));
    this.refreshing.set(pathKey, refresh);
  }

  /**
   * False when the list changed while it was being read, or there is no room for it without
   * dropping a list in use: retried after `retryAfterMs`, not at once (a busy list would
   * otherwise be re-read back to back).
   */
  private async reload(pathKey: string, envId: string, kind: PrimitiveKind, key: string): Promise<boolean> {
    const stamp = await this.source.stamp(envId, kind, key);
    const previous = this.paths.get(pathKey);
    if (!stamp) {
      this.paths.delete(pathKey);
      if (previous?.rolloutId) this.drop(previous.rolloutId);
      return true;
    }
    // A path that now points at another rollout leaves its old list to no one.
    if (previous?.rolloutId && previous.rolloutId !== stamp.rolloutId) this.drop(previous.rolloutId);
    const entry: PathEntry = {
      orgId: stamp.orgId,
      rolloutId: stamp.rolloutId,
      targetIdsVersion: stamp.targetIdsVersion,
      validAt: stamp.envVersion,
      tooBig: stamp.targetIdsCount > this.options.maxIds,
    };
    if (stamp.rolloutId !== null && !entry.tooBig) {
      const held = this.lists.get(stamp.rolloutId);
      if (!held || held.version !== stamp.targetIdsVersion) {
        if (!this.roomFor(stamp.rolloutId, stamp.targetIdsCount)) return false;
        const ids = await this.load(stamp.rolloutId, stamp.targetIdsVersion);
        if (!ids) return false;
        if (!this.hold(stamp.rolloutId, { ids, version: stamp.targetIdsVersion, lastUsed: this.now() })) return false;
      }
    }
    if (!this.paths.has(pathKey) && this.paths.size >= this.maxPaths) this.paths.delete(this.paths.keys().next().value!);
    this.paths.set(pathKey, entry);
    return true;
  }

  /** The whole list as of `version`, or null when an edit committed while it was being read. */
  private async load(rolloutId: string, version: number): Promise<Set<string> | null> {
    const ids = new Set<string>();
    let after: string | null = null;
    for (;;) {
      const page = await this.source.page(rolloutId, after, this.pageSize);
      for (const id of page) ids.add(id);
      if (page.length < this.pageSize) break;
      after = page[page.length - 1]!;
      if (ids.size > this.options.maxIds) return null; // grew past the bound while loading
    }
    return (await this.source.listVersion(rolloutId)) === version ? ids : null;
  }

  /** Whether `count` more IDs fit once lists not checked for `keepWarmMs` (and `rolloutId`'s own old copy) are dropped. */
  private roomFor(rolloutId: string, count: number): boolean {
    const now = this.now();
    let freeable = 0;
    for (const [id, held] of this.lists) if (id === rolloutId || now - held.lastUsed >= this.keepWarmMs) freeable += held.ids.size;
    return this.heldIds - freeable + count <= this.options.maxIds;
  }

  /** Keeps a list just read, dropping the least recently checked idle lists to make room; false when there is none (any more). */
  private hold(rolloutId: string, list: ListEntry): boolean {
    if (!this.roomFor(rolloutId, list.ids.size)) return false;
    this.drop(rolloutId);
    const now = this.now();
    while (this.heldIds + list.ids.size > this.options.maxIds) {
      let coldest: string | undefined;
      let coldestUse = Infinity;
      for (const [id, held] of this.lists) {
        if (held.lastUsed < coldestUse && now - held.lastUsed >= this.keepWarmMs) {
          coldest = id;
          coldestUse = held.lastUsed;
        }
      }
      if (coldest === undefined) return false; // (cannot happen: roomFor counted enough idle lists)
      this.drop(coldest);
    }
    this.lists.set(rolloutId, list);
    this.heldIds += list.ids.size;
    return true;
  }

  private drop(rolloutId: string): void {
    const held = this.lists.get(rolloutId);
    if (!held) return;
    this.lists.delete(rolloutId);
    this.heldIds -= held.ids.size;
  }
}
