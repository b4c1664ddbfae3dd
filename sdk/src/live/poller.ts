/**
 * The conditional ruleset GET (`getRuleset`, the generated operation), one at
 * a time, with its schedule: a regular poll while `polling()` says so, and
 * retries after failures (full-jitter backoff, `Retry-After` honoured, fatal
 * errors at the slowest rate). The held ETag goes out as `If-None-Match`, so
 * an unchanged ruleset costs a 304 and the held one is kept.
 */
import type { Client as FetchClient } from '../generated/client/index.js';
import { GradualApiError } from '../errors.js';
import { getRuleset } from '../generated/sdk.gen.js';
import type { Ruleset as ServedRuleset } from '../generated/types.gen.js';
import type { Ruleset } from '../evaluation/index.js';
import { isFatal, retryAfterMs, retryDelay, type BackoffPolicy } from '../retry.js';
import { rulesetProblem } from './cache.js';
import type { TimerHandle, TimerSet } from './timers.js';
import { abortable, childController, httpError, invalidResponse, noResponse } from './transport.js';

export type FetchOutcome = { kind: 'ruleset'; ruleset: Ruleset; etag: string | null } | { kind: 'not_modified' };

/** One conditional GET of the ruleset; rejects with `GradualApiError`. */
export async function fetchRuleset(http: FetchClient, envId: string, etag: string | null, signal: AbortSignal): Promise<FetchOutcome> {
  let result;
  try {
    result = await abortable(
      getRuleset({ client: http, path: { envId }, ...(etag ? { headers: { 'if-none-match': etag } } : {}), parseAs: 'text', signal }),
      signal,
    );
  } catch (err) {
    // The client's own refusal (e.g. a request validator) is already a GradualApiError.
    throw err instanceof GradualApiError ? err : noResponse('ruleset', err);
  }
  const response: Response | undefined = result.response;
  if (!response) throw noResponse('ruleset', result.error);
  if (response.status === 304) return { kind: 'not_modified' };
  if (!response.ok) throw httpError(response, result.error);
  let body: unknown;
  try {
    const text: unknown = result.data;
    body = JSON.parse(typeof text === 'string' ? text : '');
  } catch (err) {
    throw invalidResponse('ruleset', `the body is not JSON (${String(err)})`, response, err);
  }
  const problem = rulesetProblem(body);
  if (problem) throw invalidResponse('ruleset', `the body is not a ruleset (${problem})`, response);
  // The ruleset as the API describes it (generated from openapi.yaml) is what the evaluator
  // compiles: the assignment fails to compile if the two ever disagree.
  const served: ServedRuleset = body as ServedRuleset;
  const ruleset: Ruleset = served;
  return { kind: 'ruleset', ruleset, etag: response.headers.get('etag') };
}

export interface PollerOptions {
  http: FetchClient;
  envId: string;
  timers: TimerSet;
  /** Aborted by `close()`: ends any request in flight. */
  lifetime: AbortSignal;
  requestTimeoutMs: number;
  pollIntervalMs: number;
  backoff: BackoffPolicy;
  /** Whether to keep polling after this sync (poll mode: always; stream mode: while the stream is down). */
  polling: () => boolean;
  /** Whether another GET is wanted although nobody polls (stream mode: an announced version is not held yet). */
  behind: () => boolean;
  /** The ETag of the held ruleset, sent as `If-None-Match`. */
  etag: () => string | null;
  /** A new ruleset arrived; throwing makes it an invalid response. */
  onRuleset: (ruleset: Ruleset, etag: string | null) => void;
  /** The server answered (200 or 304). */
  onSuccess: () => void;
  onError: (error: GradualApiError) => void;
}

export type SyncOutcome = { ok: true } | { ok: false; error: GradualApiError };

export class Poller {
  private task: Promise<void> | null = null;
  private again = false;
  private timer: TimerHandle | null = null;
  private failures = 0;

  constructor(private readonly o: PollerOptions) {}

  get busy(): boolean {
    return this.task !== null;
  }

  get scheduled(): boolean {
    return this.timer !== null;
  }

  /** Runs conditional GETs now, one at a time; a call while one runs joins it (and may ask for one more). */
  sync(): Promise<void> {
    if (this.o.lifetime.aborted) return Promise.resolve();
    if (this.task) {
      this.again = true;
      return this.task;
    }
    this.cancel();
    const task = (async () => {
      let outcome: SyncOutcome;
      do {
        this.again = false;
        outcome = await this.once();
      } while (outcome.ok && this.again && this.o.behind() && !this.o.lifetime.aborted);
      this.task = null;
      if (!this.o.lifetime.aborted) this.scheduleAfter(outcome);
    })();
    this.task = task;
    return task;
  }

  /** The next sync in `ms` (replacing a scheduled one). */
  schedule(ms: number): void {
    this.cancel();
    this.timer = this.o.timers.set(() => {
      this.timer = null;
      void this.sync();
    }, ms);
  }

  cancel(): void {
    this.o.timers.clear(this.timer);
    this.timer = null;
  }

  /** Settles when the GET in flight (if any) has ended. */
  settled(): Promise<void> {
    return this.task ?? Promise.resolve();
  }

  private scheduleAfter(outcome: SyncOutcome): void {
    const { pollIntervalMs, backoff } = this.o;
    if (outcome.ok) {
      this.failures = 0;
      if (this.o.polling()) this.schedule(pollIntervalMs);
      return;
    }
    const polling = this.o.polling();
    if (!polling && !this.o.behind()) return;
    let delay = retryDelay(outcome.error, this.failures++, backoff);
    // While polling, a retry is never later than the next regular poll (unless the server asks for it).
    if (polling && !isFatal(outcome.error)) delay = Math.max(Math.min(delay, pollIntervalMs), retryAfterMs(outcome.error, backoff));
    this.schedule(delay);
  }

  private async once(): Promise<SyncOutcome> {
    const { controller, unlink } = childController(this.o.lifetime);
    const timer = this.o.timers.set(() => controller.abort(new Error(`no answer within ${this.o.requestTimeoutMs} ms`)), this.o.requestTimeoutMs);
    try {
      const outcome = await fetchRuleset(this.o.http, this.o.envId, this.o.etag(), controller.signal);
      if (this.o.lifetime.aborted) return { ok: true };
      if (outcome.kind === 'ruleset') {
        try {
          this.o.onRuleset(outcome.ruleset, outcome.etag);
        } catch (err) {
          throw invalidResponse('ruleset', `cannot compile it (${String(err)})`, undefined, err);
        }
      }
      this.o.onSuccess();
      return { ok: true };
    } catch (caught) {
      if (this.o.lifetime.aborted) return { ok: true };
      const error = caught instanceof GradualApiError ? caught : invalidResponse('ruleset', String(caught), undefined, caught);
      this.o.onError(error);
      return { ok: false, error };
    } finally {
      this.o.timers.clear(timer);
      unlink();
    }
  }
}
