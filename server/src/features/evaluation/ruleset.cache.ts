import { gzipSync } from 'node:zlib';
import type { Ruleset } from '@gradual/contract';
import { compileRuleset, type CompiledRuleset } from '@gradual/sdk/evaluation';
import { clientVisibleId, rulesetOf, type RulesetRead } from './ruleset.store.js';

/** One materialized ruleset version: the JSON, its gzip, and (lazily) the compiled evaluator. */
export interface CachedRuleset {
  version: number;
  ruleset: Ruleset;
  json: Buffer;
  gzip: Buffer;
  etag: string;
  gzipEtag: string;
  /** The client-visible primitives of `ruleset` (clientVisibleId); never sent. */
  clientVisible: ReadonlySet<string>;
  compiled(): CompiledRuleset;
}

export function materialize(ruleset: Ruleset, clientVisible: ReadonlySet<string> = new Set()): CachedRuleset {
  const json = Buffer.from(JSON.stringify(ruleset));
  // The ETag names the version; it changes on every committed write to the env.
  const tag = `rs-${ruleset.envId.slice(0, 8)}-${ruleset.version}`;
  let compiled: CompiledRuleset | undefined;
  return {
    version: ruleset.version,
    ruleset,
    json,
    gzip: gzipSync(json, { level: 6 }),
    etag: `"${tag}"`,
    gzipEtag: `"${tag}-gzip"`,
    clientVisible,
    compiled: () => (compiled ??= compileRuleset(ruleset)),
  };
}

/**
 * Per-instance cache of the latest ruleset per environment. Every read checks
 * the environment's current version first (one indexed row), so an instance
 * never serves a version another instance has already superseded.
 */
/** Whether an If-None-Match header names this ruleset (either encoding's ETag, or `*`). */
export function ifNoneMatchHits(ifNoneMatch: string, entry: CachedRuleset): boolean {
  // Pollers send back the one ETag they were given: match that without splitting a list.
  if (ifNoneMatch === entry.gzipEtag || ifNoneMatch === entry.etag) return true;
  return ifNoneMatch.split(',').some((t) => [entry.etag, entry.gzipEtag, '*'].includes(t.trim()));
}

export class RulesetCache {
  private readonly entries = new Map<string, CachedRuleset>();
  private readonly building = new Map<string, Promise<CachedRuleset>>();
  /** Per environment, its latest ruleset as client keys see it (clientView). */
  private readonly clientViews = new Map<string, CachedRuleset>();

  constructor(private readonly maxEnvironments = 1000) {}

  async get(envId: string, version: number, build: () => Promise<RulesetRead>): Promise<CachedRuleset> {
    const hit = this.entries.get(envId);
    if (hit && hit.version >= version) return hit;
    const key = `${envId}@${version}`;
    let pending = this.building.get(key);
    if (!pending) {
      // Concurrent requests for the same new version share one build.
      pending = build()
        .then((read) => {
          const entry = materialize(read.ruleset, read.clientVisible);
          const current = this.entries.get(envId);
          if (!current || current.version < entry.version) this.remember(envId, entry);
          return entry;
        })
        .finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  /** The cached ruleset of `envId` when it is at `version` or newer (no build, no I/O). */
  peek(envId: string, version: number): CachedRuleset | undefined {
    const hit = this.entries.get(envId);
    return hit && hit.version >= version ? hit : undefined;
  }

  /**
   * `entry` as client keys see it: only its client-visible primitives. Materialized once per
   * environment version, so repeated client evaluations do not filter again.
   */
  clientView(envId: string, entry: CachedRuleset): CachedRuleset {
    const hit = this.clientViews.get(envId);
    if (hit && hit.version === entry.version) return hit;
    const primitives = entry.ruleset.primitives.filter((p) => entry.clientVisible.has(clientVisibleId(p)));
    const view = materialize(rulesetOf(entry.ruleset, primitives), entry.clientVisible);
    if (!hit || hit.version < view.version) this.remember(envId, view, this.clientViews);
    return view;
  }

  /** Drops a deleted environment's rulesets. */
  forget(envId: string): void {
    this.entries.delete(envId);
    this.clientViews.delete(envId);
  }

  private remember(envId: string, entry: CachedRuleset, entries = this.entries): void {
    entries.delete(envId);
    entries.set(envId, entry);
    if (entries.size > this.maxEnvironments) entries.delete(entries.keys().next().value!);
  }
}
