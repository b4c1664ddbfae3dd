import { describe, expect, it } from 'vitest';
import { AuthFailures } from './auth-failures.js';
import { TokenBuckets } from './token-buckets.js';

describe('AuthFailures (in memory)', () => {
  const t0 = Date.parse('2026-11-22T10:00:00Z');

  it('throttles an address once its failures empty the bucket, until a token is back', async () => {
    const failures = new AuthFailures(new TokenBuckets(null));
    for (let i = 0; i < 5; i++) {
      expect(failures.throttledFor('203.0.113.7', t0)).toBe(0);
      await failures.fail('203.0.113.7', 6, t0);
    }
    expect(failures.throttledFor('203.0.113.7', t0)).toBe(0); // one failure left of 6
    await failures.fail('203.0.113.7', 6, t0);
    expect(failures.throttledFor('203.0.113.7', t0)).toBe(10); // 6 a minute: a token every 10 s
    expect(failures.throttledFor('203.0.113.7', t0 + 9_500)).toBe(1);
    expect(failures.throttledFor('203.0.113.7', t0 + 10_000)).toBe(0);
    expect(failures.throttledFor('198.51.100.1', t0)).toBe(0); // other addresses are not concerned
    await failures.fail('203.0.113.7', 6, t0 + 10_000);
    expect(failures.throttledFor('203.0.113.7', t0 + 10_000)).toBe(10);
  });

  it('vouches for a credential for an hour after its last success', () => {
    const failures = new AuthFailures(new TokenBuckets(null));
    expect(failures.isVouched('abc', t0)).toBe(false);
    failures.vouch('abc', t0);
    expect(failures.isVouched('abc', t0 + 3_599_000)).toBe(true);
    expect(failures.isVouched('abc', t0 + 3_600_000)).toBe(false);
    failures.vouch('abc', t0 + 30_000); // within the minute: not refreshed
    expect(failures.isVouched('abc', t0 + 3_600_000)).toBe(false);
    failures.vouch('abc', t0 + 3_000_000);
    expect(failures.isVouched('abc', t0 + 6_000_000)).toBe(true);
  });
});
