import type { TokenBuckets } from './token-buckets.js';

/** Credentials vouched for by a recent success are remembered this long. */
const VOUCHED_FOR_MS = 60 * 60 * 1000;
/** At most this many vouched credentials are remembered (the oldest go first). */
const MAX_VOUCHED = 20_000;
/** At most this many throttled addresses are remembered; past it, expired ones are swept. */
const MAX_THROTTLED = 100_000;

/**
 * Failed authentication per client address (rate-limits/client-address.ts): every request whose
 * credentials fail (an unknown, revoked or expired API key, an unknown or expired session, a
 * wrong rollback secret) takes a token from its address's bucket (`perMinute` a minute, refilled
 * evenly; in Redis when configured, so failures on every instance add up). An address whose
 * bucket is empty is throttled: its requests carrying credentials are refused before any lookup
 * until a token is back (`throttledFor`), which is what makes the refusal cheap.
 *
 * The throttle is kept in this process's memory: the check is one map read, and an instance learns
 * of a throttle on the first failure it counts itself (from Redis's bucket, already empty).
 *
 * A throttled address does not lock out the people behind it (a shared NAT, or every client when
 * TRUST_PROXY is missing behind a proxy): credentials this instance has seen succeed within the
 * last hour are `vouched` for and still go through the regular lookup.
 */
export class AuthFailures {
  /** Address → the instant (ms) its bucket has a token again. */
  private readonly throttled = new Map<string, number>();
  /** Credential digest → when it last succeeded (ms); insertion order is recency. */
  private readonly vouched = new Map<string, number>();

  constructor(private readonly buckets: TokenBuckets) {}

  /** Whole seconds until `address` may present unproven credentials again; 0 when it may now. Memory only. */
  throttledFor(address: string, nowMs: number): number {
    const until = this.throttled.get(address);
    if (until === undefined) return 0;
    if (until <= nowMs) {
      this.throttled.delete(address);
      return 0;
    }
    return Math.ceil((until - nowMs) / 1000);
  }

  /** Counts one failed authentication from `address`; throttles it when its bucket is empty. */
  async fail(address: string, perMinute: number, nowMs: number): Promise<void> {
    const decision = await this.buckets.take([{ key: `authfail:${address}`, capacity: perMinute, refillSeconds: 60 }], nowMs);
    const retryAfter = decision.buckets[0]!.retryAfterSeconds;
    if (retryAfter <= 0) return;
    this.throttled.delete(address);
    this.throttled.set(address, nowMs + retryAfter * 1000);
    if (this.throttled.size > MAX_THROTTLED) {
      for (const [key, until] of this.throttled) if (until <= nowMs) this.throttled.delete(key);
    }
  }

  /** Remembers that the credential with this digest just succeeded. */
  vouch(digest: string, nowMs: number): void {
    const seen = this.vouched.get(digest);
    // Refreshed at most once a minute: the common case is one map read.
    if (seen !== undefined && nowMs - seen < 60_000) return;
    this.vouched.delete(digest);
    this.vouched.set(digest, nowMs);
    if (this.vouched.size > MAX_VOUCHED) this.vouched.delete(this.vouched.keys().next().value!);
  }

  /** Whether the credential with this digest succeeded on this instance within the last hour. */
  isVouched(digest: string, nowMs: number): boolean {
    const seen = this.vouched.get(digest);
    return seen !== undefined && nowMs - seen < VOUCHED_FOR_MS;
  }
}
