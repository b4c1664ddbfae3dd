import type { ApiKey } from '../../db/entities/index.js';

/**
 * API keys by token hash, remembered for a moment so that the hot read paths (ruleset polls,
 * evaluate, contains) authenticate without a database round trip. Keys are immutable apart
 * from revocation (and expiry, which is checked on every use against the clock), so the only
 * staleness is a revocation made on ANOTHER instance: it takes effect there within `ttlMs`.
 * Revoking on this instance, and deleting an organization, evict at once.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { key: ApiKey; at: number }>();

  constructor(
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  get(tokenHash: string): ApiKey | undefined {
    const hit = this.entries.get(tokenHash);
    if (!hit) return undefined;
    if (performance.now() - hit.at > this.ttlMs) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return hit.key;
  }

  remember(key: ApiKey): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key.tokenHash, { key, at: performance.now() });
  }

  forgetKey(id: string): void {
    for (const [hash, { key }] of this.entries) if (key.id === id) this.entries.delete(hash);
  }

  clear(): void {
    this.entries.clear();
  }
}
