import type { Response } from 'express';
import onHeaders from 'on-headers';
import type { ApiKey } from '../db/entities/index.js';
import { DomainError } from '../domain/errors.js';
import type { AppDeps } from '../deps.js';
import { clientAddressKey } from '../rate-limits/client-address.js';
import type { BucketDecision, BucketSpec, BucketState } from '../rate-limits/token-buckets.js';
import { requestAddress } from './request-address.js';

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
 * by every instance through Redis when configured.
 *
 * A client key is public, shared by every visitor of the pages that embed it, so its budget is
 * cut differently: each client address has its own bucket for the key
 * (CLIENT_KEY_RATE_LIMIT_PER_IP_PER_MIN), the key's own bucket is the key-wide cap (a client
 * key's rateLimitPerMin defaults much higher than a server key's), and the org's aggregate is a
 * bucket of the org's client keys alone (CLIENT_KEY_ORG_RATE_LIMIT_PER_MIN): public traffic never
 * takes tokens from the bucket the org's server SDKs and CI keys share. One visitor exhausts only
 * their own address's bucket.
 *
 * The X-RateLimit headers report the most restrictive bucket (on 429, the one that refused) and
 * are sent on 2xx, 304 and 429 only, and only to API keys (never on session answers: chargeUser).
 * Charged once per request by the admission step (admission.ts).
 */
export async function chargeApiKey(deps: AppDeps, res: Response, key: ApiKey, now: Date): Promise<void> {
  const client = key.kind === 'client';
  const decision = client
    ? await deps.limits.buckets.take(
        [...bucketsOf(key, deps.config.clientKeyOrgRateLimitPerMin, 'org-client'), clientAddressBucket(key, res, deps.config.clientKeyRateLimitPerIpPerMin)],
        now.getTime(),
      )
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
      details: { retryAfterSeconds: bucket.retryAfterSeconds, bucket: (client ? CLIENT_BUCKET_NAMES : BUCKET_NAMES)[denied]! },
    });
  }
  sendHeadersOnSuccess(res, tighterBucket(decision));
}

/** What `details.bucket` calls each bucket of an API key's request, in bucketsOf's order. */
const BUCKET_NAMES = ['token', 'org'] as const;
/** The same for a client key's request: its key-wide bucket, its org's client-key bucket, its address's. */
const CLIENT_BUCKET_NAMES = ['token', 'client-org', 'address'] as const;

/** A client key's bucket for the request's client address (an IPv6 address counted as its /64). */
function clientAddressBucket(key: ApiKey, res: Response, capacity: number): BucketSpec {
  const req = res.req;
  const address = clientAddressKey(requestAddress(req));
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
  return deps.limits.buckets.take(bucketsOf(key, deps.config.orgRateLimitPerMin, 'org'), now.getTime());
}

/**
 * Each key's two bucket specs (its own, and its org's `org` or `org-client` aggregate), built once
 * per cached key object rather than on every request.
 */
const specsByKey = new WeakMap<ApiKey, { orgCapacity: number; specs: BucketSpec[] }>();
function bucketsOf(key: ApiKey, orgCapacity: number, orgBucket: 'org' | 'org-client'): BucketSpec[] {
  const known = specsByKey.get(key);
  if (known && known.orgCapacity === orgCapacity && known.specs[0]!.capacity === key.rateLimitPerMin) return known.specs;
  const specs = [
    { key: `token:${key.id}`, capacity: key.rateLimitPerMin, refillSeconds: 60 },
    { key: `${orgBucket}:${key.orgId}`, capacity: orgCapacity, refillSeconds: 60 },
  ];
  specsByKey.set(key, { orgCapacity, specs });
  return specs;
}

/** The bucket the X-RateLimit headers of an allowed request report: the one with fewest tokens left (the first on a tie). */
export function tighterBucket(decision: BucketDecision): BucketState {
  return decision.buckets.reduce((tightest, b) => (b.remaining < tightest.remaining ? b : tightest));
}
