import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AuthFailures } from './auth-failures.js';
import { TokenBuckets } from './token-buckets.js';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again (or, when refused, until the next request may pass). */
  resetSeconds: number;
}

/**
 * Fixed-window counters from rate-limiter-flexible: in Redis when REDIS_URL is
 * set, so every instance shares the same buckets, otherwise in process memory.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  /** Token buckets (API keys, signed-in users, failed authentication, sign-in mails), in the same Redis. */
  readonly buckets: TokenBuckets;

  /** Failed authentication per client address, and the throttle it leads to. */
  readonly authFailures: AuthFailures;

  private constructor(private readonly redis: Redis | null) {
    this.buckets = new TokenBuckets(redis);
    this.authFailures = new AuthFailures(this.buckets);
  }

  /**
   * Connects before answering, so the first requests already share Redis's
   * buckets. If Redis is unreachable the server still starts: each limiter's
   * in-memory insurance counts until ioredis reconnects.
   */
  static async create(redisUrl: string | undefined, logger?: Logger, connectTimeoutMs = 3000): Promise<RateLimits> {
    if (!redisUrl) return new RateLimits(null);
    // Fail fast instead of queueing commands forever while Redis is away.
    const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    redis.on('error', (err) => logger?.debug({ err }, 'redis error (rate limits fall back to memory meanwhile)'));
    try {
      await Promise.race([
        redis.connect(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), connectTimeoutMs).unref()),
      ]);
    } catch (err) {
      logger?.warn({ err }, 'Redis is unreachable at start; rate limits count per instance until it is back');
    }
    return new RateLimits(redis);
  }

  get shared(): boolean {
    return this.redis !== null;
  }

  private limiter(name: string, points: number, durationSeconds: number): RateLimiterAbstract {
    const key = `${name}:${points}:${durationSeconds}`;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      const options = { keyPrefix: `gradual:${name}`, points, duration: durationSeconds };
      limiter = this.redis
        ? new RateLimiterRedis({ ...options, storeClient: this.redis, insuranceLimiter: new RateLimiterMemory(options) })
        : new RateLimiterMemory(options);
      this.limiters.set(key, limiter);
    }
    return limiter;
  }

  /** Takes one request from `subject`'s bucket `name` (`points` per `durationSeconds`). */
  async consume(name: string, subject: string, points: number, durationSeconds: number): Promise<LimitDecision> {
    try {
      const res = await this.limiter(name, points, durationSeconds).consume(subject, 1);
      return { allowed: true, limit: points, remaining: res.remainingPoints, resetSeconds: Math.ceil(res.msBeforeNext / 1000) };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      return { allowed: false, limit: points, remaining: 0, resetSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
    }
  }

  async close(): Promise<void> {
    if (this.redis) await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}
