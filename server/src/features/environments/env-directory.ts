import type { EntityManager } from '@mikro-orm/postgresql';
import { findEnvironment } from '../shared/lookup.js';
import type { CacheOptions } from '../access/api-key-cache.js';
import type { EnvChangeBus } from './env-changes.js';

/** What the hot read paths need to know about an environment. */
export interface EnvSummary {
  id: string;
  orgId: string;
  projectId: string;
  /** The latest committed version this instance knows of. */
  version: number;
}

/**
 * Environments' owners and current versions, kept in memory so a ruleset poll answered with
 * 304 (the commonest request an SDK makes) needs no database round trip. Every committed write
 * raises the version through the env-change bus (this instance's own writes synchronously,
 * other instances' through PostgreSQL NOTIFY); an entry not confirmed for `ttlMs` is read
 * again, which bounds staleness should a notification be lost (listener reconnecting) and
 * lets deleted environments disappear. An entry used past half its TTL is re-read in the
 * background (once at a time), so an environment under steady polling never drops out of
 * memory and sends its polls down the slow path all at once.
 */
export class EnvDirectory {
  private readonly entries = new Map<string, EnvSummary & { at: number }>();
  private readonly refreshing = new Set<string>();
  private readonly unsubscribe: () => void;

  private readonly load: ((envId: string) => Promise<EnvSummary | null>) | null;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(bus: EnvChangeBus, options: CacheOptions<EnvSummary> = {}) {
    this.load = options.load ?? null;
    this.ttlMs = options.ttlMs ?? 1000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? (() => performance.now());
    this.unsubscribe = bus.subscribe((change) => {
      const hit = this.entries.get(change.envId);
      if (hit && change.version > hit.version) hit.version = change.version;
    });
  }

  async get(em: EntityManager, envId: string): Promise<EnvSummary> {
    const fresh = this.peek(envId);
    if (fresh) return fresh;
    return this.store(await findEnvironment(em, envId));
  }

  /** The entry when it is fresh, without touching the database (the ruleset fast path). */
  peek(envId: string): EnvSummary | undefined {
    const hit = this.entries.get(envId);
    if (!hit) return undefined;
    const age = this.now() - hit.at;
    if (age > this.ttlMs) return undefined;
    if (age > this.ttlMs / 2) this.refresh(envId);
    return hit;
  }

  private store(env: EnvSummary): EnvSummary {
    const hit = this.entries.get(env.id);
    // A notification may already have announced a newer version than the row we read.
    const entry = { id: env.id, orgId: env.orgId, projectId: env.projectId, version: Math.max(env.version, hit?.version ?? 0), at: this.now() };
    if (!hit && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(env.id, entry);
    return entry;
  }

  private refresh(envId: string): void {
    if (!this.load || this.refreshing.has(envId)) return;
    this.refreshing.add(envId);
    this.load(envId)
      .then(
        (env) => {
          if (env) this.store(env);
          else this.entries.delete(envId);
        },
        () => undefined, // the entry keeps its age and expires; the next use reads it afresh
      )
      .finally(() => this.refreshing.delete(envId));
  }

  clear(): void {
    this.entries.clear();
  }

  close(): void {
    this.unsubscribe();
  }
}
