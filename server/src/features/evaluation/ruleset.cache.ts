import { gzipSync } from 'node:zlib';
import type { Ruleset } from '@gradual/contract';
import { compileRuleset, type CompiledRuleset } from '@gradual/sdk/evaluation';

/** One materialized ruleset version: the JSON, its gzip, and (lazily) the compiled evaluator. */
export interface CachedRuleset {
  version: number;
  ruleset: Ruleset;
  json: Buffer;
  gzip: Buffer;
  etag: string;
  gzipEtag: string;
  compiled(): CompiledRuleset;
}

export function materialize(ruleset: Ruleset): CachedRuleset {
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

  constructor(private readonly maxEnvironments = 1000) {}

  async get(envId: string, version: number, build: () => Promise<Ruleset>): Promise<CachedRuleset> {
    const hit = this.entries.get(envId);
    if (hit && hit.version >= version) return hit;
    const key = `${envId}@${version}`;
    let pending = this.building.get(key);
    if (!pending) {
      // Concurrent requests for the same new version share one build.
      pending = build()
        .then((ruleset) => {
          const entry = materialize(ruleset);
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

  private remember(envId: string, entry: CachedRuleset): void {
    this.entries.delete(envId);
    this.entries.set(envId, entry);
    if (this.entries.size > this.maxEnvironments) this.entries.delete(this.entries.keys().next().value!);
  }
}
