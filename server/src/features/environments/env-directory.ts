import type { EntityManager } from '@mikro-orm/postgresql';
import { findEnvironment } from '../shared/lookup.js';
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
 * lets deleted environments disappear.
 */
export class EnvDirectory {
  private readonly entries = new Map<string, EnvSummary & { at: number }>();
  private readonly unsubscribe: () => void;

  constructor(
    bus: EnvChangeBus,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {
    this.unsubscribe = bus.subscribe((change) => {
      const hit = this.entries.get(change.envId);
      if (hit && change.version > hit.version) hit.version = change.version;
    });
  }

  async get(em: EntityManager, envId: string): Promise<EnvSummary> {
    const fresh = this.peek(envId);
    if (fresh) return fresh;
    const hit = this.entries.get(envId);
    const env = await findEnvironment(em, envId);
    const entry = { id: env.id, orgId: env.orgId, projectId: env.projectId, version: Math.max(env.version, hit?.version ?? 0), at: performance.now() };
    if (!hit && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(envId, entry);
    return entry;
  }

  /** The entry when it is fresh, without touching the database (the ruleset fast path). */
  peek(envId: string): EnvSummary | undefined {
    const hit = this.entries.get(envId);
    return hit && performance.now() - hit.at <= this.ttlMs ? hit : undefined;
  }

  clear(): void {
    this.entries.clear();
  }

  close(): void {
    this.unsubscribe();
  }
}
