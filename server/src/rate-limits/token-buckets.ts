import type { Redis } from 'ioredis';

/** One bucket of a check: `capacity` tokens, refilled evenly over `refillSeconds`. */
export interface BucketSpec {
  key: string;
  capacity: number;
  refillSeconds: number;
}

export interface BucketState {
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket is full again. */
  resetSeconds: number;
  /** Whole seconds until one token is available (0 when one is). */
  retryAfterSeconds: number;
}

export interface BucketDecision {
  allowed: boolean;
  buckets: BucketState[];
}

/*
 * Token buckets for API keys (per token and per org), signed-in users, failed authentication per
 * client address and the sign-in mail interval per address (docs/auth.md). Every bucket refills
 * within 60 s (the memory sweep below relies on it).
 * rate-limiter-flexible, used for the simpler fixed caps, has no token bucket,
 * hence this small implementation: a Lua script in Redis (atomic across
 * instances) or the same arithmetic in memory. A request takes a token from
 * every bucket only when every bucket has one.
 */

const LUA = `
local now = tonumber(ARGV[1])
local n = #KEYS
local tokens = {}
local allowed = 1
for i = 1, n do
  local cap = tonumber(ARGV[2 * i])
  local rate = tonumber(ARGV[2 * i + 1])
  local v = redis.call('HMGET', KEYS[i], 't', 'ts')
  local t = tonumber(v[1]) or cap
  local ts = tonumber(v[2]) or now
  t = math.min(cap, t + math.max(0, now - ts) * rate)
  tokens[i] = t
  if t < 1 then allowed = 0 end
end
local out = { allowed }
for i = 1, n do
  local cap = tonumber(ARGV[2 * i])
  local rate = tonumber(ARGV[2 * i + 1])
  local t = tokens[i]
  if allowed == 1 then t = t - 1 end
  redis.call('HSET', KEYS[i], 't', tostring(t), 'ts', tostring(now))
  redis.call('PEXPIRE', KEYS[i], math.ceil(cap / rate) + 1000)
  out[i + 1] = tostring(t)
end
return out
`;

function describe(spec: BucketSpec, tokens: number): BucketState {
  const perMs = spec.capacity / (spec.refillSeconds * 1000);
  return {
    limit: spec.capacity,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil((spec.capacity - tokens) / perMs / 1000),
    retryAfterSeconds: tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)),
  };
}

export class TokenBuckets {
  private readonly memory = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly redis: Redis | null) {}

  /** Synchronous when counting in memory (no Redis, or Redis away): the hot paths skip a promise hop. */
  take(specs: BucketSpec[], nowMs: number): BucketDecision | Promise<BucketDecision> {
    const redis = this.redis;
    if (redis?.status === 'ready') {
      // Redis went away mid-request: count in memory rather than fail the request.
      return this.takeInRedis(redis, specs, nowMs).catch(() => this.takeInMemory(specs, nowMs));
    }
    return this.takeInMemory(specs, nowMs);
  }

  private async takeInRedis(redis: Redis, specs: BucketSpec[], nowMs: number): Promise<BucketDecision> {
    const args = specs.flatMap((s) => [String(s.capacity), String(s.capacity / (s.refillSeconds * 1000))]);
    const out = (await redis.eval(LUA, specs.length, ...specs.map((s) => `gradual:tb:${s.key}`), String(nowMs), ...args)) as [number, ...string[]];
    return { allowed: out[0] === 1, buckets: specs.map((s, i) => describe(s, Number(out[i + 1]))) };
  }

  private takeInMemory(specs: BucketSpec[], nowMs: number): BucketDecision {
    // Plain loops and buckets updated in place: this runs on every API-key request.
    const states: Array<{ tokens: number; at: number } | undefined> = [];
    const tokens: number[] = [];
    let allowed = true;
    for (const s of specs) {
      const state = this.memory.get(s.key);
      const t = state ? Math.min(s.capacity, state.tokens + Math.max(0, nowMs - state.at) * (s.capacity / (s.refillSeconds * 1000))) : s.capacity;
      if (t < 1) allowed = false;
      states.push(state);
      tokens.push(t);
    }
    const buckets: BucketState[] = [];
    for (let i = 0; i < specs.length; i++) {
      const s = specs[i]!;
      const t = allowed ? tokens[i]! - 1 : tokens[i]!;
      const state = states[i];
      if (state) {
        state.tokens = t;
        state.at = nowMs;
      } else {
        this.memory.set(s.key, { tokens: t, at: nowMs });
      }
      buckets.push(describe(s, t));
    }
    if (this.memory.size > 100_000) {
      // Bound memory: buckets idle for 10 minutes are full again (every refill is ≤ 60 s), so forget them.
      for (const [key, state] of this.memory) if (nowMs - state.at > 600_000) this.memory.delete(key);
    }
    return { allowed, buckets };
  }
}
