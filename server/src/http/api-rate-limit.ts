import type { Response } from 'express';
import onHeaders from 'on-headers';
import type { ApiKey } from '../db/entities/index.js';
import { DomainError } from '../domain/errors.js';
import type { AppDeps } from '../deps.js';
import { clientAddressKey } from '../rate-limits/client-address.js';
import type { BucketDecision, BucketSpec, BucketState } from '../rate-limits/token-buckets.js';

/** The X-RateLimit headers of `bucket`, as name, value, name, value… (for writeHead). */
export function rateLimitHeaders(bucket: BucketState): string[] {
  return ['X-RateLimit-Limit', String(bucket.limit), 'X-RateLimit-Remaining', String(bucket.remaining), 'X-RateLimit-Reset', String(bucket.resetSeconds)];
}

export function writeRateLimitHeaders(res: { setHeader(name: string, value: string): unknown }, bucket: BucketState): void {
  const headers = rateLimitHeaders(bucket);
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i]!, headers[i + 1]!);
}

/**
 * Two token buckets gate every API-key request: the key's own
 * (rateLimitPerMin) and its org's aggregate (ORG_RATE_LIMIT_PER_MIN), shared
 * by every instance through Redis when configured. A client key's request takes
 * a token from a third, its client address's bucket for that key
 * (CLIENT_KEY_RATE_LIMIT_PER_IP_PER_MIN): the key is public, shared by every
 * visitor of the pages that embed it. The X-RateLimit headers report the most
 * restrictive bucket (on 429, the one that refused) and are sent on 2xx, 304 and
 * 429 only, and only to API keys (never on session answers: chargeUser).
 * Charged once per request by the admission step (admission.ts).
 */
export async function chargeApiKey(deps: AppDeps, res: Response, key: ApiKey, now: Date): Promise<void> {
  const specs = bucketsOf(key, deps.config.orgRateLimitPerMin);
  const decision =
    key.kind === 'client'
      ? await deps.limits.buckets.take([...specs, clientAddressBucket(key, res, deps.config.clientKeyRateLimitPerIpPerMin)], now.getTime())
      : await takeApiKeyTokens(deps, key, now);
  if (!decision.allowed) {
    let denied = 0;
    decision.buckets.forEach((b, i) => {
      if (b.retryAfterSeconds > decision.buckets[denied]!.retryAfterSeconds) denied = i;
    });
    const bucket = decision.buckets[denied]!;
    writeRateLimitHeaders(res, bucket);
    throw new DomainError('token_rate_limit', 'Rate limit exceeded for this API key; retry later.', {
      retryAfterSeconds: bucket.retryAfterSeconds,
      details: { retryAfterSeconds: bucket.retryAfterSeconds, bucket: BUCKET_NAMES[denied]! },
    });
  }
  sendHeadersOnSuccess(res, tighterBucket(decision));
}

/** What `details.bucket` calls each bucket of an API key's request, in bucketsOf's order (then a client key's address). */
const BUCKET_NAMES = ['token', 'org', 'address'] as const;

/** A client key's bucket for the request's client address (an IPv6 address counted as its /64). */
function clientAddressBucket(key: ApiKey, res: Response, capacity: number): BucketSpec {
  const req = res.req;
  const address = clientAddressKey(req.ip ?? req.socket.remoteAddress ?? '');
  return { key: `client-address:${key.id}:${address}`, capacity, refillSeconds: 60 };
}

/**
 * A signed-in user's request takes a token from the user's bucket (SESSION_RATE_LIMIT_PER_MIN, all
 * their sessions together), shared through Redis like the API keys' buckets, with the same 429
 * (Retry-After, `details.bucket` `user`). Session answers never carry the X-RateLimit headers:
 * those are for bearer answers only. Charged once per request by the admission step (admission.ts).
 */
export async function chargeUser(deps: AppDeps, userId: string, now: Date): Promise<void> {
  const decision = await deps.limits.buckets.take([{ key: `user:${userId}`, capacity: deps.config.sessionRateLimitPerMin, refillSeconds: 60 }], now.getTime());
  const bucket = decision.buckets[0]!;
  if (!decision.allowed) {
    throw new DomainError('token_rate_limit', 'Rate limit exceeded for this user; retry later.', {
      retryAfterSeconds: bucket.retryAfterSeconds,
      details: { retryAfterSeconds: bucket.retryAfterSeconds, bucket: 'user' },
    });
  }
}

function sendHeadersOnSuccess(res: Response, bucket: BucketState): void {
  onHeaders(res, function (this: Response) {
    const status = this.statusCode;
    if ((status >= 200 && status < 300) || status === 304) writeRateLimitHeaders(this, bucket);
  });
}

/** One token from the key's bucket and its org's (both or neither); synchronous when counted in memory. */
export function takeApiKeyTokens(deps: Pick<AppDeps, 'limits' | 'config'>, key: ApiKey, now: Date): BucketDecision | Promise<BucketDecision> {
  return deps.limits.buckets.take(bucketsOf(key, deps.config.orgRateLimitPerMin), now.getTime());
}

/** Each key's two bucket specs, built once per cached key object rather than on every request. */
const specsByKey = new WeakMap<ApiKey, { orgCapacity: number; specs: BucketSpec[] }>();
function bucketsOf(key: ApiKey, orgCapacity: number): BucketSpec[] {
  const known = specsByKey.get(key);
  if (known && known.orgCapacity === orgCapacity && known.specs[0]!.capacity === key.rateLimitPerMin) return known.specs;
  const specs = [
    { key: `token:${key.id}`, capacity: key.rateLimitPerMin, refillSeconds: 60 },
    { key: `org:${key.orgId}`, capacity: orgCapacity, refillSeconds: 60 },
  ];
  specsByKey.set(key, { orgCapacity, specs });
  return specs;
}

/** The bucket the X-RateLimit headers of an allowed request report: the one with fewest tokens left (the first on a tie). */
export function tighterBucket(decision: BucketDecision): BucketState {
  return decision.buckets.reduce((tightest, b) => (b.remaining < tightest.remaining ? b : tightest));
}
