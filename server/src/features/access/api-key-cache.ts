import type { ApiKey } from '../../db/entities/index.js';
import { RefreshAheadMap, type RefreshAheadOptions } from '../common/refresh-ahead-map.js';

/**
 * API keys by token hash, remembered for a moment so that the hot read paths (ruleset polls,
 * evaluate, contains) authenticate without a database round trip. Keys are immutable apart
 * from revocation (and expiry, which is checked on every use against the clock), so the only
 * staleness is a revocation made on ANOTHER instance: it takes effect there within `ttlMs`.
 * Revoking on this instance, and deleting an organization, evict at once (and a background
 * re-read that raced the revocation cannot bring the key back). Keys in use refresh ahead.
 */
export class ApiKeyCache {
  private readonly keys: RefreshAheadMap<ApiKey>;

  constructor(options: RefreshAheadOptions<ApiKey> = {}) {
    this.keys = new RefreshAheadMap(options);
  }

  get(tokenHash: string): ApiKey | undefined {
    return this.keys.fresh(tokenHash);
  }

  remember(key: ApiKey): void {
    this.keys.set(key.tokenHash, key);
  }

  forgetKey(id: string): void {
    this.keys.evict((key) => key.id === id);
  }

  clear(): void {
    this.keys.clear();
  }
}
