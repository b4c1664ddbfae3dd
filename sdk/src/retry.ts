/**
 * The retry policy shared by the SDK's background work (the live client's
 * ruleset requests and stream) and, when asked for, the REST client's
 * requests (`retryingFetch`): which failures are worth retrying, and when.
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

/** The REST client's retries (`ClientOptions.retry`); every field has a default. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  retries?: number | undefined;
  /** Ceiling of the first retry's delay in milliseconds (default 500). */
  initialMs?: number | undefined;
  /** Ceiling of every retry's delay, and of an honoured `Retry-After`, in milliseconds (default 30,000). */
  maxMs?: number | undefined;
}

/** Methods that change nothing: retried after a 5xx or a network error too, as a write may have been done before its answer was lost. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `Retry-After` in seconds, from seconds or an HTTP date. */
function retryAfterSeconds(response: Response): number | undefined {
  const text = response.headers.get('retry-after')?.trim();
  if (!text) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return seconds;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, (at - Date.now()) / 1000) : undefined;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `fetch` with the REST client's retries, under the policy above:
 * - 429 is retried whatever the method: the server refused the request before doing anything.
 * - 5xx (but 501) and no answer at all are retried for GET, HEAD and OPTIONS only: a write may
 *   have been done before its answer was lost, and doing it again is the caller's call.
 * Each wait is full jitter, never shorter than the server's `Retry-After` (both capped at `maxMs`);
 * aborting the request ends the wait. The last attempt's answer or error is the caller's.
 */
export function retryingFetch(fetch: typeof globalThis.fetch, options: RetryOptions = {}, random: () => number = Math.random): typeof globalThis.fetch {
  const policy: BackoffPolicy = { initialMs: options.initialMs ?? 500, maxMs: options.maxMs ?? 30_000 };
  const retries = Math.max(0, Math.floor(options.retries ?? 2));
  return async (input, init) => {
    const request = new Request(input, init);
    const safe = SAFE_METHODS.has(request.method);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      // A request's body can be read once: every attempt but the last sends a copy.
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await fetch(sent);
      } catch (error) {
        if (last || !safe || request.signal.aborted) throw error;
        await pause(retryDelay({ status: 0, retryAfterSeconds: undefined }, attempt, policy, random), request.signal);
        continue;
      }
      const transient = response.status === 429 || (safe && response.status >= 500 && response.status !== 501);
      if (last || !transient) return response;
      await response.body?.cancel();
      await pause(retryDelay({ status: response.status, retryAfterSeconds: retryAfterSeconds(response) }, attempt, policy, random), request.signal);
    }
  };
}
