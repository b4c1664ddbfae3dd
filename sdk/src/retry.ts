/**
 * The retry policy shared by the SDK's background work (the live client's
 * ruleset requests and stream): which failures are worth retrying, and when.
 *
 * - 5xx, 429 and no response at all (status 0: network error, timeout) are
 *   transient: retried with exponential backoff and full jitter, never sooner
 *   than the server's `Retry-After`.
 * - 401, 403, 404 and any other 4xx are configuration problems (token, scope,
 *   environment id): retrying will not help until someone fixes them, so they
 *   are retried at the slowest rate only (`maxMs`), to pick up a fix without
 *   a restart.
 */
import type { GradualApiError } from './errors.js';

export interface BackoffPolicy {
  /** Ceiling of the first retry's delay. */
  initialMs: number;
  /** Ceiling of every retry's delay, and of an honoured `Retry-After`. */
  maxMs: number;
}

/** True when retrying cannot help until the configuration changes (4xx other than 429). */
export function isFatal(error: Pick<GradualApiError, 'status'>): boolean {
  return error.status >= 400 && error.status < 500 && error.status !== 429;
}

/**
 * "Full jitter": attempt n (0-based) waits a uniformly random time in
 * [0, min(maxMs, initialMs · 2ⁿ)]. Clients that failed together spread their
 * retries over the whole window instead of retrying in lockstep.
 */
export function fullJitter(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  return Math.floor(random() * ceiling);
}

/** The server's `Retry-After` in milliseconds, capped at `maxMs` (0 when absent or unreadable). */
export function retryAfterMs(error: Pick<GradualApiError, 'retryAfterSeconds'>, policy: BackoffPolicy): number {
  const seconds = error.retryAfterSeconds;
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.min(seconds * 1000, policy.maxMs);
}

/** How long to wait before attempt `attempt + 1` after `error`. */
export function retryDelay(error: Pick<GradualApiError, 'status' | 'retryAfterSeconds'>, attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const base = isFatal(error) ? policy.maxMs : fullJitter(attempt, policy, random);
  return Math.max(base, retryAfterMs(error, policy));
}
