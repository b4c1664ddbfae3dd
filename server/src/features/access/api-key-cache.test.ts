import { describe, expect, it } from 'vitest';
import { manualLoader, settle } from '../../../../tests/support/manual-loader.js';
import type { ApiKey } from '../../db/entities/index.js';
import { ApiKeyCache } from './api-key-cache.js';

const key = (id: string, revoked = false) => ({ id, tokenHash: `hash-${id}`, revokedAt: revoked ? new Date(0) : null }) as unknown as ApiKey;

describe('ApiKeyCache: refresh-ahead', () => {
  it('serves a fresh entry without reading; past half the TTL it re-reads once in the background and keeps serving', async () => {
    let now = 0;
    const loader = manualLoader<ApiKey>();
    const cache = new ApiKeyCache({ load: loader.load, ttlMs: 1000, now: () => now });
    cache.remember(key('a'));
    now = 400;
    expect(cache.get('hash-a')?.id).toBe('a');
    expect(loader.calls).toHaveLength(0);
    now = 600;
    expect(cache.get('hash-a')?.id).toBe('a');
    expect(cache.get('hash-a')?.id).toBe('a');
    expect(loader.calls.map((c) => c.id)).toEqual(['hash-a']); // one refresh in flight, not one per use
    loader.calls[0]!.resolve(key('a', true));
    await settle();
    now = 1500; // older than the TTL counted from the first read, but the refresh renewed it
    expect(cache.get('hash-a')?.revokedAt).toEqual(new Date(0));
  });

  it('an entry nobody uses expires after the TTL', () => {
    let now = 0;
    const loader = manualLoader<ApiKey>();
    const cache = new ApiKeyCache({ load: loader.load, ttlMs: 1000, now: () => now });
    cache.remember(key('a'));
    now = 1001;
    expect(cache.get('hash-a')).toBeUndefined();
    expect(loader.calls).toHaveLength(0);
  });

  it('a key gone from the database leaves the cache; a failed read lets the entry expire', async () => {
    let now = 0;
    const loader = manualLoader<ApiKey>();
    const cache = new ApiKeyCache({ load: loader.load, ttlMs: 1000, now: () => now });
    cache.remember(key('a'));
    cache.remember(key('b'));
    now = 700;
    cache.get('hash-a');
    cache.get('hash-b');
    loader.calls[0]!.resolve(null);
    loader.calls[1]!.reject(new Error('database away'));
    await settle();
    expect(cache.get('hash-a')).toBeUndefined();
    expect(cache.get('hash-b')?.id).toBe('b');
    expect(loader.calls).toHaveLength(3); // b is re-read on its next use
    now = 1001;
    expect(cache.get('hash-b')).toBeUndefined();
  });

  it('a refresh that raced a revocation on this instance cannot bring the key back', async () => {
    let now = 0;
    const loader = manualLoader<ApiKey>();
    const cache = new ApiKeyCache({ load: loader.load, ttlMs: 1000, now: () => now });
    cache.remember(key('a'));
    now = 700;
    cache.get('hash-a'); // refresh starts and reads the row before the revocation commits
    cache.forgetKey('a');
    loader.calls[0]!.resolve(key('a'));
    await settle();
    expect(cache.get('hash-a')).toBeUndefined();
  });
});
