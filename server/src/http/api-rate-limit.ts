import type { Response } from 'express';
import onHeaders from 'on-headers';
import type { ApiKey } from '../db/entities/index.js';
import { DomainError } from '../domain/errors.js';
import type { AppDeps } from '../deps.js';
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
 * by every instance through Redis when configured. The X-RateLimit headers
 * report the more restrictive bucket (on 429, the one that refused) and are
 * sent on 2xx, 304 and 429 only. Charged once per request by the admission step (admission.ts).
 */
export async function chargeApiKey(deps: AppDeps, res: Response, key: ApiKey, now: Date): Promise<void> {
  const decision = await takeApiKeyTokens(deps, key, now);
  const [tokenBucket, orgBucket] = decision.buckets as [BucketState, BucketState];
  if (!decision.allowed) {
    const denied = tokenBucket.retryAfterSeconds >= orgBucket.retryAfterSeconds ? tokenBucket : orgBucket;
    writeRateLimitHeaders(res, denied);
    throw new DomainError('token_rate_limit', 'Rate limit exceeded for this API key; retry later.', {
      retryAfterSeconds: denied.retryAfterSeconds,
      details: { retryAfterSeconds: denied.retryAfterSeconds, bucket: denied === tokenBucket ? 'token' : 'org' },
    });
  }
  sendHeadersOnSuccess(res, tighterBucket(decision));
}

/**
 * A signed-in user's request takes a token from the user's bucket (SESSION_RATE_LIMIT_PER_MIN, all
 * their sessions together), shared through Redis like the API keys' buckets, with the same 429
 * and X-RateLimit headers. Charged once per request by the admission step (admission.ts).
 */
export async function chargeUser(deps: AppDeps, res: Response, userId: string, now: Date): Promise<void> {
  const decision = await deps.limits.buckets.take([{ key: `user:${userId}`, capacity: deps.config.sessionRateLimitPerMin, refillSeconds: 60 }], now.getTime());
  const bucket = decision.buckets[0]!;
  if (!decision.allowed) {
    writeRateLimitHeaders(res, bucket);
    throw new DomainError('token_rate_limit', 'Rate limit exceeded for this user; retry later.', {
      retryAfterSeconds: bucket.retryAfterSeconds,
      details: { retryAfterSeconds: bucket.retryAfterSeconds, bucket: 'user' },
    });
  }
  sendHeadersOnSuccess(res, bucket);
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

/** The bucket the X-RateLimit headers of an allowed request report: the one with fewer tokens left. */
export function tighterBucket(decision: BucketDecision): BucketState {
  const [tokenBucket, orgBucket] = decision.buckets as [BucketState, BucketState];
  return orgBucket.remaining < tokenBucket.remaining ? orgBucket : tokenBucket;
}
