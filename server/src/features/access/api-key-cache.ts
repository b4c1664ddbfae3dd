import type { ApiKey } from '../../db/entities/index.js';

export interface CacheOptions<T> {
  /** Re-reads an entry by its key (null: gone); absent: entries just expire. */
  load?: (key: string) => Promise<T | null>;
  /** How long an entry is trusted without being read again (ms). */
  ttlMs?: number;
  maxEntries?: number;
  /** Monotonic milliseconds (tests move it by hand). */
  now?: () => number;
}

/**
 * API keys by token hash, remembered for a moment so that the hot read paths (ruleset polls,
 * evaluate, contains) authenticate without a database round trip. Keys are immutable apart
 * from revocation (and expiry, which is checked on every use against the clock), so the only
 * staleness is a revocation made on ANOTHER instance: it takes effect there within `ttlMs`.
 * Revoking on this instance, and deleting an organization, evict at once.
 *
 * Refresh-ahead: a key used past half its TTL is re-read in the background (once at a time),
 * so a key in steady use never expires under load. Without it every busy key fell out of the
 * cache once a second and every request in flight at that instant took the slow path at once.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { key: ApiKey; at: number }>();
  private readonly refreshing = new Set<string>();
  /** Bumped by every eviction, so a refresh that raced a revocation cannot bring the key back. */
  private generation = 0;

  private readonly load: ((tokenHash: string) => Promise<ApiKey | null>) | null;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: CacheOptions<ApiKey> = {}) {
    this.load = options.load ?? null;
    this.ttlMs = options.ttlMs ?? 1000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  get(tokenHash: string): ApiKey | undefined {
    const hit = this.entries.get(tokenHash);
    if (!hit) return undefined;
    const age = this.now() - hit.at;
    if (age > this.ttlMs) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    if (age > this.ttlMs / 2) this.refresh(tokenHash);
    return hit.key;
  }

  remember(key: ApiKey): void {
    if (!this.entries.has(key.tokenHash) && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key.tokenHash, { key, at: this.now() });
  }

  forgetKey(id: string): void {
    this.generation++;
    for (const [hash, { key }] of this.entries) if (key.id === id) this.entries.delete(hash);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  private refresh(tokenHash: string): void {
    if (!this.load || this.refreshing.has(tokenHash)) return;
    this.refreshing.add(tokenHash);
    const generation = this.generation;
    this.load(tokenHash)
      .then(
        (key) => {
          if (generation !== this.generation) return;
          if (key) this.remember(key);
          else this.entries.delete(tokenHash);
        },
        () => undefined, // the entry keeps its age and expires; the next use reads it afresh
      )
      .finally(() => this.refreshing.delete(tokenHash));
  }
}
