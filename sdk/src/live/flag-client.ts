/**
 * The live flags client: holds an environment's ruleset in memory, keeps it
 * in sync with the server, and evaluates synchronously with the shared
 * evaluator (`../evaluation`).
 *
 * Sync, in both modes, is a conditional `GET /envs/{envId}/ruleset` (the last
 * ETag in `If-None-Match`, so an unchanged ruleset costs a 304):
 * - `stream` (default): `GET …/ruleset/stream` (server-sent events over a
 *   streaming fetch, so `Authorization: Bearer` works, which the browser's
 *   EventSource cannot send). Each `ruleset` event `{version}` newer than the
 *   held ruleset triggers one GET. A dropped stream is reopened (the server's
 *   `retry:` hint after a clean end, backoff after failures); while it is
 *   down the client also polls every `pollIntervalMs`, so a proxy that breaks
 *   SSE only costs freshness. A stream silent for `streamIdleTimeoutMs` (the
 *   server sends a heartbeat every 15 s) is treated as dead and reopened.
 * - `poll`: a GET every `pollIntervalMs`.
 *
 * Failures never drop the held ruleset ("last good"): evaluation keeps
 * serving it, the status turns `stale`, and an `error` event fires. Retries
 * use exponential backoff with jitter, capped at `backoff.maxMs`, never
 * sooner than the server's `Retry-After` (itself capped at `backoff.maxMs`);
 * in poll mode a retry is never later than the next regular poll would be.
 * Fatal errors (401/403/404) are retried at the slowest rate only.
 *
 * Browser-compatible: fetch, web streams, AbortController and timers only.
 */
import { createParser } from 'eventsource-parser';
import { API_PREFIX } from '../api-prefix.js';
import type { Ruleset as ServedRuleset } from '../generated/types.gen.js';
import { compileRuleset, type CompiledRuleset, type EvaluationContext, type EvaluationReason, type PrimitiveKind, type Ruleset } from '../evaluation/index.js';
import { TypedEmitter } from './emitter.js';
import { FlagClientError, httpError, networkError } from './errors.js';
import { bucketFields, changedKeys, rulesetProblem } from './ruleset.js';
import { backoffDelay, TimerSet, type TimerHandle } from './timers.js';

export type FlagClientMode = 'stream' | 'poll';

export interface FlagClientLogger {
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

export interface FlagClientOptions {
  /** Origin of the Gradual server, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** An API key with the `read` action on this environment, sent as `Authorization: Bearer`. */
  token?: string;
  envId: string;
  /** `stream` (default): server-sent events announce new versions. `poll`: a conditional GET every `pollIntervalMs`. */
  mode?: FlagClientMode;
  /** Poll mode's interval, and stream mode's fallback polling while the stream is down. Default 30 000. */
  pollIntervalMs?: number;
  /**
   * A ruleset to serve until the server answers (e.g. one saved from a
   * previous run, or shipped with the app): the client is ready at once.
   * Must be for `envId`. Replaced by the server's first answer, whatever its version.
   */
  bootstrap?: Ruleset;
  /** Retry delays after failures. Defaults: 1 000 ms doubling up to 30 000 ms. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Timeout of one ruleset GET. Default 10 000. */
  requestTimeoutMs?: number;
  /** A stream silent this long is reopened. Default 45 000 (three missed heartbeats). */
  streamIdleTimeoutMs?: number;
  /** Custom fetch (tests, proxies, instrumentation). Used for the stream too. */
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /**
   * Where problems are reported when nobody listens for `error` events (the
   * first error after a healthy period, and every fatal one) and where
   * exceptions thrown by listeners go. Default `console`; `null` silences it.
   */
  logger?: FlagClientLogger | null;
}

/**
 * - `not_ready`: no ruleset yet (evaluation returns the fallback);
 * - `ready`: serving a ruleset, and the last contact with the server went well;
 * - `stale`: serving the last good ruleset, but the last contact failed;
 * - `closed`: `close()` was called (evaluation still serves the last ruleset).
 */
export type FlagClientStatus = 'not_ready' | 'ready' | 'stale' | 'closed';

/** The evaluator's reasons, plus `error` when the fallback was served. */
export type FlagReason = EvaluationReason | 'error';

/** Named like OpenFeature's error codes, which they map to one to one. */
export type FlagErrorCode = 'FLAG_NOT_FOUND' | 'TYPE_MISMATCH' | 'PROVIDER_NOT_READY';

/** Expected value type: `json` accepts any value the primitive may hold. */
export type EvaluationValueType = 'boolean' | 'string' | 'number' | 'json';

export interface FlagEvaluation<T = unknown> {
  key: string;
  value: T;
  reason: FlagReason;
  /** Set exactly when `reason` is `error`. */
  errorCode?: FlagErrorCode;
  errorMessage?: string;
  /** Flag or config; null when the key is unknown or there is no ruleset yet. */
  kind: PrimitiveKind | null;
  /** The context's rollout bucket (0–100), when the primitive has a live rollout and the context the bucket field. */
  bucket: number | null;
  /** Version of the ruleset that answered; null before the first ruleset. */
  version: number | null;
}

export interface EvaluateOptions<T = unknown> {
  /** Served when the result is an error (unknown key, wrong type, no ruleset yet). */
  fallback?: T;
  /** A value of another type is a `TYPE_MISMATCH` error (and the fallback is served). */
  type?: EvaluationValueType;
  /**
   * Stands in for the rollout's bucket field (e.g. `userId`) when the
   * context does not carry it: OpenFeature's `targetingKey`.
   */
  targetingKey?: string;
}

export type RulesetSource = 'server' | 'bootstrap';

export interface FlagChangeEvent {
  previousVersion: number;
  version: number;
  /** Keys of the flags and configs that were added, removed or changed (possibly empty: a write to something this token cannot see). */
  changedKeys: string[];
  source: RulesetSource;
}

export interface FlagClientEvents {
  /** The first ruleset is held (once per client). With `bootstrap`, fires in a microtask after creation. */
  ready: { version: number; source: RulesetSource };
  /** A newer ruleset replaced the held one. */
  change: FlagChangeEvent;
  /** A sync attempt failed (one event per failed attempt; retries are spaced by backoff). */
  error: FlagClientError;
  status: { status: FlagClientStatus; previous: FlagClientStatus; error?: FlagClientError };
}

export interface FlagClient {
  readonly envId: string;
  readonly mode: FlagClientMode;
  readonly status: FlagClientStatus;
  /** Version of the held ruleset, or null. */
  readonly version: number | null;
  /** The most recent sync error (kept after recovery, for diagnostics). */
  readonly lastError: FlagClientError | undefined;
  /** The held ruleset (e.g. to save as a future `bootstrap`). Treat as read-only. */
  ruleset(): Ruleset | undefined;
  /** Keys of the held flags and configs. */
  keys(): readonly string[];

  getBoolean(key: string, context: EvaluationContext, fallback: boolean): boolean;
  getString(key: string, context: EvaluationContext, fallback: string): string;
  getNumber(key: string, context: EvaluationContext, fallback: number): number;
  /** Any JSON value (object, array, scalar, null); `T` is not checked. */
  getJson<T = unknown>(key: string, context: EvaluationContext, fallback: T): T;
  /** The value with its reason, bucket and, on error, the error code. Never throws. */
  evaluate<T>(key: string, context: EvaluationContext | undefined, options: EvaluateOptions<T> & { fallback: T }): FlagEvaluation<T>;
  evaluate(key: string, context?: EvaluationContext, options?: EvaluateOptions): FlagEvaluation<unknown>;

  /** Resolves once a ruleset is held; rejects on a fatal error before that, or when closed. */
  ready(): Promise<void>;
  /** Like `ready()`, also rejecting with a `timeout` FlagClientError after `timeoutMs`, or with the signal's reason. */
  waitForReady(options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<void>;
  /** One conditional GET now (joins one in flight). Resolves when done; failures are reported as events, not thrown. */
  refresh(): Promise<void>;

  on<K extends keyof FlagClientEvents>(event: K, listener: (payload: FlagClientEvents[K]) => void): () => void;
  off<K extends keyof FlagClientEvents>(event: K, listener: (payload: FlagClientEvents[K]) => void): void;
  /** Stops syncing (aborts the stream and any request, clears every timer); resolves when all of it has ended. Idempotent. */
  close(): Promise<void>;
}

interface Held {
  ruleset: Ruleset;
  compiled: CompiledRuleset;
  source: RulesetSource;
  bucketFields: Map<string, string>;
}

interface Waiter {
  resolve: () => void;
  reject: (err: FlagClientError) => void;
}

const DEFAULTS = {
  pollIntervalMs: 30_000,
  initialBackoffMs: 1_000,
  maxBackoffMs: 30_000,
  requestTimeoutMs: 10_000,
  streamIdleTimeoutMs: 45_000,
};

export function createFlagClient(options: FlagClientOptions): FlagClient {
  return new LiveFlagClient(options);
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new TypeError(`createFlagClient: ${name} must be a positive number of milliseconds`);
  }
  return value;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'no value';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function matchesType(value: unknown, type: EvaluationValueType): boolean {
  return type === 'json' ? value !== undefined : typeof value === type;
}

/** Links a child controller to a parent signal; returns the unlink function. */
function link(parent: AbortSignal, child: AbortController): () => void {
  if (parent.aborted) {
    child.abort(parent.reason);
    return () => {};
  }
  const onAbort = () => child.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return () => parent.removeEventListener('abort', onAbort);
}

class LiveFlagClient implements FlagClient {
  readonly envId: string;
  readonly mode: FlagClientMode;

  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly rulesetUrl: string;
  private readonly streamUrl: string;
  private readonly headers: Record<string, string>;
  private readonly pollIntervalMs: number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly requestTimeoutMs: number;
  private readonly streamIdleTimeoutMs: number;
  private readonly logger: FlagClientLogger | null;

  private readonly emitter: TypedEmitter<FlagClientEvents>;
  private readonly timers = new TimerSet();
  private readonly lifetime = new AbortController();
  private closed = false;
  private closing: Promise<void> | null = null;

  private held: Held | null = null;
  private etag: string | null = null;
  /** Version of the last ruleset the server sent (-1: none yet; a bootstrap does not count). */
  private confirmedVersion = -1;
  /** Highest version the stream announced. */
  private announcedVersion = -1;
  private currentStatus: FlagClientStatus = 'not_ready';
  private latestError: FlagClientError | undefined;
  /** A fatal error while nothing is held: waiters are rejected until a sync succeeds. */
  private blockingError: FlagClientError | null = null;
  /** An error was logged since the last healthy moment (log the first one only). */
  private loggedSinceHealthy = false;
  private readonly waiters = new Set<Waiter>();

  private syncTask: Promise<void> | null = null;
  private syncAgain = false;
  private syncTimer: TimerHandle | null = null;
  private syncFailures = 0;

  private streamTask: Promise<void> | null = null;
  /** The stream is connected and has announced a version. */
  private streamUp = false;
  private streamRetryMs: number;

  constructor(options: FlagClientOptions) {
    if (!options || typeof options.baseUrl !== 'string' || options.baseUrl === '') throw new TypeError('createFlagClient: baseUrl is required');
    if (typeof options.envId !== 'string' || options.envId === '') throw new TypeError('createFlagClient: envId is required');
    const mode = options.mode ?? 'stream';
    if (mode !== 'stream' && mode !== 'poll') throw new TypeError(`createFlagClient: mode must be 'stream' or 'poll'`);
    this.envId = options.envId;
    this.mode = mode;
    this.pollIntervalMs = positive('pollIntervalMs', options.pollIntervalMs, DEFAULTS.pollIntervalMs);
    this.initialBackoffMs = positive('backoff.initialMs', options.backoff?.initialMs, DEFAULTS.initialBackoffMs);
    this.maxBackoffMs = Math.max(this.initialBackoffMs, positive('backoff.maxMs', options.backoff?.maxMs, DEFAULTS.maxBackoffMs));
    this.requestTimeoutMs = positive('requestTimeoutMs', options.requestTimeoutMs, DEFAULTS.requestTimeoutMs);
    this.streamIdleTimeoutMs = positive('streamIdleTimeoutMs', options.streamIdleTimeoutMs, DEFAULTS.streamIdleTimeoutMs);
    this.streamRetryMs = this.initialBackoffMs;
    this.logger = options.logger === undefined ? console : options.logger;
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const base = `${options.baseUrl.replace(/\/+$/, '')}${API_PREFIX}/envs/${encodeURIComponent(options.envId)}/ruleset`;
    this.rulesetUrl = base;
    this.streamUrl = `${base}/stream`;
    this.headers = { ...(options.headers ?? {}) };
    if (options.token) this.headers.authorization = `Bearer ${options.token}`;
    this.emitter = new TypedEmitter<FlagClientEvents>((err, event) => {
      this.logger?.error(`gradual: a '${String(event)}' listener threw`, err);
    });

    if (options.bootstrap !== undefined) {
      const problem = rulesetProblem(options.bootstrap);
      if (problem) throw new TypeError(`createFlagClient: bootstrap is not a ruleset (${problem})`);
      if (options.bootstrap.envId !== options.envId) {
        throw new TypeError(`createFlagClient: bootstrap is the ruleset of environment ${options.bootstrap.envId}, not ${options.envId}`);
      }
      this.install(options.bootstrap, 'bootstrap', { announce: false });
      const version = options.bootstrap.version;
      // Nobody can listen before creation returns: announce in a microtask.
      queueMicrotask(() => {
        if (!this.closed) this.emitter.emit('ready', { version, source: 'bootstrap' });
      });
    }

    void this.sync();
    if (this.mode === 'stream') this.streamTask = this.runStream();
  }

  // ── state ────────────────────────────────────────────────────────────────

  get status(): FlagClientStatus {
    return this.currentStatus;
  }

  get version(): number | null {
    return this.held ? this.held.ruleset.version : null;
  }

  get lastError(): FlagClientError | undefined {
    return this.latestError;
  }

  ruleset(): Ruleset | undefined {
    return this.held?.ruleset;
  }

  keys(): readonly string[] {
    return this.held ? this.held.compiled.keys : [];
  }

  private setStatus(status: FlagClientStatus, error?: FlagClientError): void {
    const previous = this.currentStatus;
    if (previous === status) return;
    this.currentStatus = status;
    this.emitter.emit('status', error ? { status, previous, error } : { status, previous });
  }

  /** Makes `ruleset` the held one; emits ready (first) or change (later). */
  private install(ruleset: Ruleset, source: RulesetSource, opts: { announce: boolean } = { announce: true }): void {
    const compiled = compileRuleset(ruleset);
    const previous = this.held;
    this.held = { ruleset, compiled, source, bucketFields: bucketFields(ruleset) };
    if (source === 'server') this.confirmedVersion = ruleset.version;
    if (!previous) {
      this.setStatus('ready');
      for (const w of [...this.waiters]) w.resolve();
      if (opts.announce) this.emitter.emit('ready', { version: ruleset.version, source });
      return;
    }
    const keys = changedKeys(previous.ruleset, ruleset);
    if (keys.length > 0 || previous.ruleset.version !== ruleset.version) {
      this.emitter.emit('change', { previousVersion: previous.ruleset.version, version: ruleset.version, changedKeys: keys, source });
    }
  }

  /** The server answered well: a stale client is current again. */
  private markHealthy(): void {
    this.blockingError = null;
    this.loggedSinceHealthy = false;
    if (this.currentStatus === 'stale') this.setStatus('ready');
  }

  private reportError(err: FlagClientError): void {
    if (this.closed) return;
    this.latestError = err;
    if (this.held && this.currentStatus === 'ready') this.setStatus('stale', err);
    if (err.fatal && !this.held) {
      this.blockingError = err;
      for (const w of [...this.waiters]) w.reject(err);
    }
    if (this.emitter.listenerCount('error') > 0) {
      this.emitter.emit('error', err);
    } else if (this.logger && (!this.loggedSinceHealthy || err.fatal)) {
      this.loggedSinceHealthy = true;
      this.logger.warn(`gradual: ${err.message}${this.held ? ` (serving ruleset version ${this.held.ruleset.version})` : ''}`);
    }
  }

  // ── evaluation ───────────────────────────────────────────────────────────

  evaluate<T>(key: string, context: EvaluationContext | undefined, options: EvaluateOptions<T> & { fallback: T }): FlagEvaluation<T>;
  evaluate(key: string, context?: EvaluationContext, options?: EvaluateOptions): FlagEvaluation<unknown>;
  evaluate(key: string, context: EvaluationContext = {}, options: EvaluateOptions = {}): FlagEvaluation<unknown> {
    const held = this.held;
    const fallback = options.fallback;
    if (!held) {
      return { key, value: fallback, reason: 'error', errorCode: 'PROVIDER_NOT_READY', errorMessage: 'no ruleset yet', kind: null, bucket: null, version: null };
    }
    const version = held.ruleset.version;
    const primitive = held.compiled.primitive(key);
    if (!primitive) {
      return { key, value: fallback, reason: 'error', errorCode: 'FLAG_NOT_FOUND', errorMessage: `no flag or config '${key}' in this environment`, kind: null, bucket: null, version };
    }
    let ctx = context;
    if (options.targetingKey !== undefined) {
      const field = held.bucketFields.get(key);
      if (field !== undefined && ctx[field] == null) ctx = { ...ctx, [field]: options.targetingKey };
    }
    const r = primitive.evaluate(ctx);
    if (options.type !== undefined && !matchesType(r.value, options.type)) {
      return {
        key,
        value: fallback,
        reason: 'error',
        errorCode: 'TYPE_MISMATCH',
        errorMessage: `'${key}' is ${typeOf(r.value)}, not ${options.type === 'json' ? 'a JSON value' : `a ${options.type}`}`,
        kind: r.kind,
        bucket: r.bucket,
        version,
      };
    }
    return { key, value: r.value, reason: r.reason, kind: r.kind, bucket: r.bucket, version };
  }

  getBoolean(key: string, context: EvaluationContext, fallback: boolean): boolean {
    return this.evaluate(key, context, { fallback, type: 'boolean' }).value;
  }

  getString(key: string, context: EvaluationContext, fallback: string): string {
    return this.evaluate(key, context, { fallback, type: 'string' }).value;
  }

  getNumber(key: string, context: EvaluationContext, fallback: number): number {
    return this.evaluate(key, context, { fallback, type: 'number' }).value;
  }

  getJson<T = unknown>(key: string, context: EvaluationContext, fallback: T): T {
    return this.evaluate(key, context, { fallback, type: 'json' }).value;
  }

  // ── readiness and events ─────────────────────────────────────────────────

  ready(): Promise<void> {
    return this.waitForReady();
  }

  waitForReady(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    if (this.held) return Promise.resolve();
    if (this.closed) return Promise.reject(new FlagClientError('closed', 'the flag client is closed', { source: 'client' }));
    if (this.blockingError) return Promise.reject(this.blockingError);
    const { timeoutMs, signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      let timer: TimerHandle | null = null;
      const onAbort = () => settle(() => reject(signal?.reason));
      const settle = (fn: () => void) => {
        this.waiters.delete(waiter);
        this.timers.clear(timer);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const waiter: Waiter = { resolve: () => settle(resolve), reject: (err) => settle(() => reject(err)) };
      this.waiters.add(waiter);
      if (timeoutMs !== undefined) {
        timer = this.timers.set(() => {
          const last = this.latestError ? ` (last error: ${this.latestError.message})` : '';
          waiter.reject(new FlagClientError('timeout', `no ruleset within ${timeoutMs} ms${last}`, { source: 'client', cause: this.latestError }));
        }, timeoutMs);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  on<K extends keyof FlagClientEvents>(event: K, listener: (payload: FlagClientEvents[K]) => void): () => void {
    return this.emitter.on(event, listener);
  }

  off<K extends keyof FlagClientEvents>(event: K, listener: (payload: FlagClientEvents[K]) => void): void {
    this.emitter.off(event, listener);
  }

  refresh(): Promise<void> {
    return this.sync();
  }

  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closed = true;
    this.lifetime.abort();
    this.timers.clearAll();
    this.syncTimer = null;
    const err = new FlagClientError('closed', 'the flag client is closed', { source: 'client' });
    for (const w of [...this.waiters]) w.reject(err);
    this.setStatus('closed');
    this.closing = Promise.allSettled([this.streamTask, this.syncTask]).then(() => {
      this.timers.clearAll();
      this.emitter.clear();
    });
    return this.closing;
  }

  // ── ruleset sync ─────────────────────────────────────────────────────────

  /** Stream mode: the stream announced a version we do not have. Version 0 has no ruleset (503 until the first write). */
  private needsFetch(): boolean {
    return this.announcedVersion > 0 && this.announcedVersion > this.confirmedVersion;
  }

  /** Runs conditional GETs, one at a time; a call while one runs joins it (and in stream mode may ask for one more). */
  private sync(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.syncTask) {
      this.syncAgain = true;
      return this.syncTask;
    }
    this.timers.clear(this.syncTimer);
    this.syncTimer = null;
    const task = (async () => {
      let outcome: { ok: true } | { ok: false; error: FlagClientError };
      do {
        this.syncAgain = false;
        outcome = await this.fetchOnce();
      } while (outcome.ok && this.syncAgain && this.needsFetch() && !this.closed);
      this.syncTask = null;
      if (!this.closed) this.scheduleAfterSync(outcome);
    })();
    this.syncTask = task;
    return task;
  }

  private scheduleSync(ms: number): void {
    this.timers.clear(this.syncTimer);
    this.syncTimer = this.timers.set(() => {
      this.syncTimer = null;
      void this.sync();
    }, ms);
  }

  private scheduleAfterSync(outcome: { ok: true } | { ok: false; error: FlagClientError }): void {
    if (outcome.ok) {
      this.syncFailures = 0;
      // Stream mode polls only while the stream is down.
      if (this.mode === 'poll' || !this.streamUp) this.scheduleSync(this.pollIntervalMs);
      return;
    }
    const err = outcome.error;
    // A healthy stream announces the first write itself; nothing to retry until then.
    if (this.mode === 'stream' && this.streamUp && !this.needsFetch()) return;
    const retryAfter = Math.min(err.retryAfterMs ?? 0, this.maxBackoffMs);
    let delay = err.fatal ? this.maxBackoffMs : backoffDelay(this.syncFailures, this.initialBackoffMs, this.maxBackoffMs);
    this.syncFailures++;
    if (this.mode === 'poll') delay = Math.min(delay, this.pollIntervalMs);
    this.scheduleSync(Math.max(delay, retryAfter));
  }

  private async fetchOnce(): Promise<{ ok: true } | { ok: false; error: FlagClientError }> {
    const controller = new AbortController();
    const unlink = link(this.lifetime.signal, controller);
    let timedOut = false;
    const timer = this.timers.set(() => {
      timedOut = true;
      controller.abort();
    }, this.requestTimeoutMs);
    try {
      const headers: Record<string, string> = { accept: 'application/json', ...this.headers };
      if (this.etag) headers['if-none-match'] = this.etag;
      const res = await this.fetchImpl(this.rulesetUrl, { headers, signal: controller.signal });
      if (res.status === 304) {
        await res.body?.cancel().catch(() => {});
      } else if (!res.ok) {
        throw await httpError(res, 'ruleset');
      } else {
        let body: unknown;
        try {
          body = await res.json();
        } catch (err) {
          if (controller.signal.aborted) throw err;
          throw new FlagClientError('invalid_response', `ruleset: the body is not JSON (${String(err)})`, { source: 'ruleset', status: res.status, cause: err });
        }
        const problem = rulesetProblem(body);
        if (problem) throw new FlagClientError('invalid_response', `ruleset: the body is not a ruleset (${problem})`, { source: 'ruleset', status: res.status });
        if (this.closed) return { ok: true };
        try {
          // The ruleset as the API describes it (generated from openapi.yaml) is what the evaluator
          // compiles: the assignment fails to compile if the two ever disagree.
          const served: Ruleset = body as ServedRuleset;
          this.install(served, 'server');
        } catch (err) {
          throw new FlagClientError('invalid_response', `ruleset: cannot compile it (${String(err)})`, { source: 'ruleset', status: res.status, cause: err });
        }
        this.etag = res.headers.get('etag');
      }
      this.markHealthy();
      return { ok: true };
    } catch (caught) {
      if (this.closed) return { ok: true };
      const err =
        caught instanceof FlagClientError
          ? caught
          : timedOut
            ? new FlagClientError('timeout', `ruleset: no answer within ${this.requestTimeoutMs} ms`, { source: 'ruleset', cause: caught })
            : networkError(caught, 'ruleset');
      this.reportError(err);
      return { ok: false, error: err };
    } finally {
      this.timers.clear(timer);
      unlink();
    }
  }

  // ── event stream ─────────────────────────────────────────────────────────

  private async runStream(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      const { delivered, error } = await this.streamOnce();
      this.streamUp = false;
      if (this.closed) break;
      if (delivered) failures = 0;
      // Poll while the stream is down (unless a GET or a retry is already on its way).
      if (!this.syncTask && this.syncTimer === null) this.scheduleSync(this.pollIntervalMs);
      let delay: number;
      if (!error) {
        delay = this.streamRetryMs; // clean end (deploy, proxy timeout): the server's retry hint
      } else {
        if (error.fatal) delay = this.maxBackoffMs;
        else delay = Math.max(backoffDelay(failures, this.initialBackoffMs, this.maxBackoffMs), Math.min(error.retryAfterMs ?? 0, this.maxBackoffMs));
        failures++;
      }
      await this.timers.sleep(delay);
    }
  }

  /** One connection: resolves when it ends. `delivered`: it announced at least one version. */
  private async streamOnce(): Promise<{ delivered: boolean; error?: FlagClientError }> {
    const controller = new AbortController();
    const unlink = link(this.lifetime.signal, controller);
    let idle: TimerHandle | null = null;
    let idleFired = false;
    const armIdle = () => {
      this.timers.clear(idle);
      idle = this.timers.set(() => {
        idleFired = true;
        controller.abort();
      }, this.streamIdleTimeoutMs);
    };
    let delivered = false;
    try {
      armIdle(); // also bounds the connect
      const res = await this.fetchImpl(this.streamUrl, {
        headers: { accept: 'text/event-stream', 'cache-control': 'no-cache', ...this.headers },
        signal: controller.signal,
      });
      if (!res.ok) {
        const error = await httpError(res, 'stream');
        this.reportError(error);
        return { delivered, error };
      }
      if (!res.body) {
        const error = new FlagClientError('invalid_response', 'ruleset stream: no body', { source: 'stream', status: res.status });
        this.reportError(error);
        return { delivered, error };
      }
      const parser = createParser({
        onEvent: (event) => {
          if (event.event !== 'ruleset') return;
          let version: unknown;
          try {
            version = (JSON.parse(event.data) as { version?: unknown }).version;
          } catch {
            return;
          }
          if (typeof version !== 'number' || !Number.isInteger(version)) return;
          if (!delivered) {
            delivered = true;
            this.streamUp = true;
          }
          this.onAnnounced(version);
        },
        onRetry: (ms) => {
          this.streamRetryMs = Math.min(Math.max(ms, 100), this.maxBackoffMs);
        },
      });
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done || this.closed) break;
        armIdle();
        parser.feed(decoder.decode(value, { stream: true }));
      }
      if (delivered || this.closed) return { delivered };
      const error = new FlagClientError('invalid_response', 'ruleset stream: ended before announcing a version', { source: 'stream', status: res.status });
      this.reportError(error);
      return { delivered, error };
    } catch (caught) {
      if (this.closed) return { delivered };
      const error = idleFired
        ? new FlagClientError('stream_idle', `ruleset stream: silent for ${this.streamIdleTimeoutMs} ms`, { source: 'stream' })
        : networkError(caught, 'stream');
      this.reportError(error);
      return { delivered, error };
    } finally {
      this.timers.clear(idle);
      controller.abort(); // releases the connection whatever happened
      unlink();
    }
  }

  private onAnnounced(version: number): void {
    if (version > this.announcedVersion) this.announcedVersion = version;
    if (this.needsFetch()) {
      void this.sync();
      return;
    }
    // The stream says we are current: no fallback poll or retry is needed.
    if (!this.syncTask) {
      this.timers.clear(this.syncTimer);
      this.syncTimer = null;
      if (this.held) this.markHealthy();
    }
  }
}
