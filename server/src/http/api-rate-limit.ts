import type { Request, Response } from 'express';
import onHeaders from 'on-headers';
import type { ApiKey } from '../db/entities/index.js';
import { DomainError } from '../domain/errors.js';
import type { AppDeps } from './deps.js';
import type { BucketState } from './token-buckets.js';

function writeHeaders(res: Response, bucket: BucketState): void {
  res.setHeader('X-RateLimit-Limit', String(bucket.limit));
  res.setHeader('X-RateLimit-Remaining', String(bucket.remaining));
  res.setHeader('X-RateLimit-Reset', String(bucket.resetSeconds));
}

/**
 * Two token buckets gate every API-key request: the key's own
 * (rateLimitPerMin) and its org's aggregate (ORG_RATE_LIMIT_PER_MIN), shared
 * by every instance through Redis when configured. The X-RateLimit headers
 * report the more restrictive bucket (on 429, the one that refused) and are
 * sent on 2xx, 304 and 429 only; session requests never carry them.
 */
export async function chargeApiKey(deps: AppDeps, req: Request, key: ApiKey, now: Date): Promise<void> {
  const decision = await deps.limits.buckets.take(
    [
      { key: `token:${key.id}`, capacity: key.rateLimitPerMin, refillSeconds: 60 },
      { key: `org:${key.orgId}`, capacity: deps.config.orgRateLimitPerMin, refillSeconds: 60 },
    ],
    now.getTime(),
  );
  const [tokenBucket, orgBucket] = decision.buckets as [BucketState, BucketState];
  const res = req.res!;
  if (!decision.allowed) {
    const denied = tokenBucket.retryAfterSeconds >= orgBucket.retryAfterSeconds ? tokenBucket : orgBucket;
    writeHeaders(res, denied);
    throw new DomainError('token_rate_limit', 'Rate limit exceeded for this API key; retry later.', {
      headers: { 'Retry-After': String(denied.retryAfterSeconds) },
      details: { retryAfterSeconds: denied.retryAfterSeconds, bucket: denied === tokenBucket ? 'token' : 'org' },
    });
  }
  const tighter = orgBucket.remaining < tokenBucket.remaining ? orgBucket : tokenBucket;
  onHeaders(res, function (this: Response) {
    const status = this.statusCode;
    if ((status >= 200 && status < 300) || status === 304) writeHeaders(this, tighter);
  });
}
