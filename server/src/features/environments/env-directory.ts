import type { EntityManager } from '@mikro-orm/postgresql';
import { findEnvironment } from '../common/lookup.js';
import { RefreshAheadMap, type RefreshAheadOptions } from '../common/refresh-ahead-map.js';
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
  private readonly entries: RefreshAheadMap<EnvSummary>;
  private readonly unsubscribe: () => void;

  constructor(bus: EnvChangeBus, options: RefreshAheadOptions<EnvSummary> = {}) {
    // A notification may already have announced a newer version than the row just read.
    this.entries = new RefreshAheadMap(options, (read, held) => ({
      id: read.id,
      orgId: read.orgId,
      projectId: read.projectId,
      version: Math.max(read.version, held?.version ?? 0),
    }));
    this.unsubscribe = bus.subscribe((change) => {
      const held = this.entries.held(change.envId);
      if (held && change.version > held.version) held.version = change.version;
    });
  }

  async get(em: EntityManager, envId: string): Promise<EnvSummary> {
    return this.peek(envId) ?? this.entries.set(envId, await findEnvironment(em, envId));
  }

  /** The entry when it is fresh, without touching the database (the fast paths). */
  peek(envId: string): EnvSummary | undefined {
    return this.entries.fresh(envId);
  }

  /** Drops deleted environments at once (other instances drop them when their entries expire). */
  forget(envIds: readonly string[]): void {
    const gone = new Set(envIds);
    this.entries.evict((env) => gone.has(env.id));
  }

  clear(): void {
    this.entries.clear();
  }

  close(): void {
    this.unsubscribe();
  }
}
