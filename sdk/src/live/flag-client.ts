/**
 * The live flags client: holds an environment's ruleset in memory (cache.ts),
 * keeps it in sync with the server, and evaluates synchronously with the
 * shared evaluator.
 *
 * - `poll`: a conditional GET (poller.ts) every `pollIntervalMs`.
 * - `stream` (default): the ruleset stream (stream.ts) announces versions and
 *   each one newer than the held ruleset triggers one GET; while the stream is
 *   down the client also polls, so a proxy that breaks SSE only costs freshness.
 *
 * Failures never drop the held ruleset ("last good"): evaluation keeps
 * serving it, the status turns `stale`, and an `error` event carries the
 * `GradualApiError`. Retries follow ../retry.ts.
 *
 * Browser-compatible: fetch, web streams, AbortController and timers only.
 */
import { GradualApiError } from '../errors.js';
import type { EvaluationContext, GuardArm, Ruleset } from '../evaluation/index.js';
import { isFatal } from '../retry.js';
import { RulesetCache, type RulesetSource } from './cache.js';
import { TypedEmitter } from './emitter.js';
import { ExposureQueue } from './exposures.js';
import { Poller } from './poller.js';
import { RulesetStream } from './stream.js';
import { evaluateHeld, type ServedListener } from './evaluate.js';
import { Readiness } from './readiness.js';
import { settingsOf } from './settings.js';
import { GuardReporter, guardSender, servedArm } from './guards.js';
import { AckReporter, ackSender } from './acks.js';
import { TimerSet } from './timers.js';
import { createHttp } from './transport.js';
import { USAGE_ENTRIES_MAX, UsageReporter, usageSender } from './usage.js';
import type {
  EvaluateOptions,
  EvaluationHook,
  FlagClient,
  FlagClientEvents,
  FlagClientLogger,
  FlagClientMode,
  FlagClientOptions,
  FlagClientStatus,
  FlagEvaluation,
  TrackOptions,
} from './types.js';

export function createFlagClient(options: FlagClientOptions): FlagClient {
  return new LiveFlagClient(options);
}

/** Errors of the client itself (closed, timed out waiting): no response, so status 0. */
function clientError(message: string, cause?: GradualApiError): GradualApiError {
  return new GradualApiError(cause?.status ?? 0, { code: cause?.code ?? 'service_unavailable', message }, cause?.response, cause ? { cause } : undefined);
}

/** One listener for what `evaluate` served: the usage count and the guard arms, whichever are on. */
function servedListener(usage: UsageReporter | null, guards: GuardReporter | null): ServedListener | undefined {
  if (usage !== null && guards !== null) {
    return (held, primitive, result) => {
      usage.countServed(held.compiled, primitive, result.branch);
      guards.exposed(held, primitive, result);
    };
  }
  if (usage !== null) return (held, primitive, result) => usage.countServed(held.compiled, primitive, result.branch);
  if (guards !== null) return guards.exposed;
  return undefined;
}

class LiveFlagClient implements FlagClient {
  readonly envId: string;
  readonly mode: FlagClientMode;

  private readonly logger: FlagClientLogger | null;
  private readonly emitter: TypedEmitter<FlagClientEvents>;
  private readonly timers = new TimerSet();
  private readonly lifetime = new AbortController();
  private readonly cache = new RulesetCache();
  private readonly poller: Poller;
  private readonly stream: RulesetStream | null = null;
  private readonly exposures: ExposureQueue | null = null;
  private readonly usage: UsageReporter | null = null;
  private readonly guards: GuardReporter | null = null;
  private readonly acks: AckReporter | null = null;
  /** Counts what `evaluate` served (usage, guard arms), from the compiled primitive's slot. */
  private readonly served: ServedListener | undefined;
  private readonly hooks: EvaluationHook[] = [];
  private closing: Promise<void> | null = null;

  private etag: string | null = null;
  /** Version of the last ruleset the server sent (-1: none yet; a bootstrap does not count). */
  private confirmedVersion = -1;
  /** Highest version the stream announced. */
  private announcedVersion = -1;
  private currentStatus: FlagClientStatus = 'not_ready';
  private latestError: GradualApiError | undefined;
  /** A fatal error while nothing is held: waiters are rejected until a sync succeeds. */
  private blockingError: GradualApiError | null = null;
  /** An error was logged since the last healthy moment (log the first one only). */
  private loggedSinceHealthy = false;
  private hookFailed = false;
  private readonly readiness = new Readiness(this.timers);

  constructor(options: FlagClientOptions) {
    const { mode, pollIntervalMs, backoff, requestTimeoutMs, idleTimeoutMs, logger, usageIntervalMs, guardIntervalMs, ackIntervalMs, serviceName } = settingsOf(options);
    this.envId = options.envId;
    this.mode = mode;
    this.logger = logger;
    this.emitter = new TypedEmitter<FlagClientEvents>((err, event) => {
      this.logger?.error(`gradual: a '${String(event)}' listener threw`, err);
    });
    const http = createHttp(options);
    const lifetime = this.lifetime.signal;

    this.poller = new Poller({
      http,
      envId: this.envId,
      timers: this.timers,
      lifetime,
      requestTimeoutMs,
      pollIntervalMs,
      backoff,
      polling: () => this.mode === 'poll' || !this.stream?.connected,
      behind: () => this.behind(),
      etag: () => this.etag,
      onRuleset: (ruleset, etag) => {
        this.install(ruleset, 'server');
        this.etag = etag;
      },
      onSuccess: () => this.markHealthy(),
      onError: (err) => this.reportError(err),
    });
    if (mode === 'stream') {
      this.stream = new RulesetStream({
        http,
        envId: this.envId,
        timers: this.timers,
        lifetime,
        idleTimeoutMs,
        backoff,
        onVersion: (version) => this.onAnnounced(version),
        // Poll while the stream is down (unless a GET or a retry is already on its way).
        onDown: () => {
          if (!this.poller.busy && !this.poller.scheduled) this.poller.schedule(pollIntervalMs);
        },
        onError: (err) => this.reportError(err),
      });
    }
    if (options.onEvaluation) this.hooks.push(options.onEvaluation);
    if (options.exposures) {
      const exposures = new ExposureQueue(options.exposures, this.timers, (err) => this.logger?.error('gradual: exposures.track failed', err));
      this.exposures = exposures;
      this.hooks.push(exposures.hook((key) => this.cache.held?.bucketFields.get(key)));
    }

    if (usageIntervalMs > 0) {
      this.usage = new UsageReporter({
        intervalMs: usageIntervalMs,
        maxEntries: USAGE_ENTRIES_MAX,
        requestTimeoutMs,
        timers: this.timers,
        send: usageSender(http),
        envId: () => this.cache.held?.ruleset.envId ?? null,
        warn: (message) => this.logger?.warn(message),
      });
    }
    if (guardIntervalMs > 0) {
      this.guards = new GuardReporter({
        intervalMs: guardIntervalMs,
        requestTimeoutMs,
        timers: this.timers,
        send: guardSender(http),
        held: () => this.cache.held,
        warn: (message) => this.logger?.warn(message),
      });
    }
    this.served = servedListener(this.usage, this.guards);
    if (ackIntervalMs > 0) {
      this.acks = new AckReporter({
        intervalMs: ackIntervalMs,
        requestTimeoutMs,
        timers: this.timers,
        send: ackSender(http),
        held: () => this.cache.held,
        mode,
        service: serviceName,
        warn: (message) => this.logger?.warn(message),
      });
    }

    if (options.bootstrap !== undefined) {
      this.install(options.bootstrap, 'bootstrap', false);
      const version = options.bootstrap.version;
      // Nobody can listen before creation returns: announce in a microtask.
      queueMicrotask(() => {
        if (!lifetime.aborted) this.emitter.emit('ready', { version, source: 'bootstrap' });
      });
    }

    void this.poller.sync();
    this.stream?.start();
  }

  // ── state ────────────────────────────────────────────────────────────────

  get status(): FlagClientStatus {
    return this.currentStatus;
  }

  get version(): number | null {
    return this.cache.held?.ruleset.version ?? null;
  }

  get lastError(): GradualApiError | undefined {
    return this.latestError;
  }

  ruleset(): Ruleset | undefined {
    return this.cache.held?.ruleset;
  }

  keys(): readonly string[] {
    return this.cache.held?.compiled.keys ?? [];
  }

  private setStatus(status: FlagClientStatus, error?: GradualApiError): void {
    const previous = this.currentStatus;
    if (previous === status) return;
    this.currentStatus = status;
    this.emitter.emit('status', error ? { status, previous, error } : { status, previous });
  }

  /** Makes `ruleset` the held one; emits ready (first) or change (later). */
  private install(ruleset: Ruleset, source: RulesetSource, announce = true): void {
    const r = this.cache.replace(ruleset, source);
    if (source === 'server') this.confirmedVersion = ruleset.version;
    if (r.kind !== 'same') this.acks?.applied();
    if (r.kind === 'first') {
      this.setStatus('ready');
      this.readiness.resolveAll();
      if (announce) this.emitter.emit('ready', { version: ruleset.version, source });
    } else if (r.kind === 'changed') {
      this.emitter.emit('change', { previousVersion: r.previousVersion, version: ruleset.version, changedKeys: r.changedKeys, source });
    }
  }

  /** The server answered well: a stale client is current again. */
  private markHealthy(): void {
    this.blockingError = null;
    this.loggedSinceHealthy = false;
    if (this.currentStatus === 'stale') this.setStatus('ready');
  }

  private reportError(err: GradualApiError): void {
    if (this.lifetime.signal.aborted) return;
    this.latestError = err;
    const fatal = isFatal(err);
    if (this.cache.held && this.currentStatus === 'ready') this.setStatus('stale', err);
    if (fatal && !this.cache.held) {
      this.blockingError = err;
      this.readiness.rejectAll(err);
    }
    if (this.emitter.listenerCount('error') > 0) {
      this.emitter.emit('error', err);
    } else if (this.logger && (!this.loggedSinceHealthy || fatal)) {
      this.loggedSinceHealthy = true;
      const held = this.cache.held;
      this.logger.warn(`gradual: ${err.message} (HTTP ${err.status}, ${err.code})${held ? ` (serving ruleset version ${held.ruleset.version})` : ''}`);
    }
  }

  // ── sync ─────────────────────────────────────────────────────────────────

  /** Stream mode: the stream announced a version we do not have. Version 0 has no ruleset (503 until the first write). */
  private behind(): boolean {
    return this.announcedVersion > 0 && this.announcedVersion > this.confirmedVersion;
  }

  private onAnnounced(version: number): void {
    if (version > this.announcedVersion) this.announcedVersion = version;
    if (this.behind()) {
      void this.poller.sync();
      return;
    }
    // The stream says we are current: no fallback poll or retry is needed.
    if (!this.poller.busy) {
      this.poller.cancel();
      if (this.cache.held) this.markHealthy();
    }
  }

  refresh(): Promise<void> {
    return this.poller.sync();
  }

  // ── evaluation ───────────────────────────────────────────────────────────

  evaluate<T>(key: string, context: EvaluationContext | undefined, options: EvaluateOptions<T> & { fallback: T }): FlagEvaluation<T>;
  evaluate(key: string, context?: EvaluationContext, options?: EvaluateOptions): FlagEvaluation<unknown>;
  evaluate(key: string, context: EvaluationContext = {}, options: EvaluateOptions = {}): FlagEvaluation<unknown> {
    const result = evaluateHeld(this.cache.held, key, context, options, this.served);
    if (this.hooks.length > 0) this.runHooks(key, context, result);
    return result;
  }

  private runHooks(key: string, context: EvaluationContext, result: FlagEvaluation): void {
    for (const hook of this.hooks) {
      try {
        hook(key, context, result);
      } catch (err) {
        // Logged once: a hook that throws on every evaluation would flood the log.
        if (!this.hookFailed) this.logger?.error('gradual: an onEvaluation hook threw (further failures are not logged)', err);
        this.hookFailed = true;
      }
    }
  }

  track(event: string, context: EvaluationContext = {}, options: TrackOptions = {}): void {
    if (typeof event !== 'string' || event === '') throw new TypeError('track: the event name must be a non-empty string');
    const value = options.value ?? 0;
    if (typeof value !== 'number') throw new TypeError('track: value must be a number');
    this.guards?.track(event, context, value, options.targetingKey);
  }

  guardArm(key: string, context: EvaluationContext = {}): GuardArm | null {
    const held = this.cache.held;
    const step = held?.guardedSteps.get(key);
    if (held == null || step === undefined) return null;
    const r = evaluateHeld(held, key, context, {});
    return r.branch === null ? null : servedArm(r.branch, r.bucket ?? null, step.percent, step.gatesRules);
  }

  private resolve(key: string, context: EvaluationContext, options: EvaluateOptions): FlagEvaluation<unknown> {
    return evaluateHeld(this.cache.held, key, context, options);
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

  allFlagsDetail(context: EvaluationContext = {}, options: { targetingKey?: string | undefined } = {}): Record<string, FlagEvaluation> {
    const out: Record<string, FlagEvaluation> = {};
    for (const key of this.keys()) out[key] = this.resolve(key, context, options);
    return out;
  }

  allFlags(context: EvaluationContext = {}, options: { targetingKey?: string | undefined } = {}): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const key of this.keys()) out[key] = this.resolve(key, context, options).value;
    return out;
  }

  // ── readiness, events, lifecycle ─────────────────────────────────────────

  ready(): Promise<void> {
    return this.waitForReady();
  }

  waitForReady(options: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined } = {}): Promise<void> {
    if (this.cache.held) return Promise.resolve();
    if (this.closing) return Promise.reject(clientError('the flag client is closed'));
    if (this.blockingError) return Promise.reject(this.blockingError);
    return this.readiness.wait(options.timeoutMs, options.signal, () => {
      const last = this.latestError;
      return clientError(`no ruleset within ${options.timeoutMs} ms${last ? ` (last error: ${last.message})` : ''}`, last);
    });
  }

  on<K extends keyof FlagClientEvents>(event: K, listener: (payload: FlagClientEvents[K]) => void): () => void {
    return this.emitter.on(event, listener);
  }

  off<K extends keyof FlagClientEvents>(event: K, listener: (payload: FlagClientEvents[K]) => void): void {
    this.emitter.off(event, listener);
  }

  async flush(): Promise<void> {
    await Promise.all([this.exposures?.flush(), this.usage?.flush(), this.guards?.flush()]);
  }

  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.lifetime.abort();
    this.timers.clearAll();
    const err = clientError('the flag client is closed');
    this.readiness.rejectAll(err);
    this.setStatus('closed');
    this.closing = Promise.allSettled([this.stream?.settled(), this.poller.settled(), this.exposures?.close(), this.usage?.close(), this.guards?.close(), this.acks?.close()]).then(() => {
      this.timers.clearAll();
      this.emitter.clear();
    });
    return this.closing;
  }
}
