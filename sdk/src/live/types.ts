/** The live client's public types. */
import type { GradualApiError } from '../errors.js';
import type { EvaluationBranch, EvaluationContext, EvaluationReason, EvaluationVariant, FlagMetadata, GuardArm, PrimitiveKind, Ruleset } from '../evaluation/index.js';
import type { RulesetSource } from './cache.js';
import type { ExposureOptions } from './exposures.js';

export type { RulesetSource } from './cache.js';

export type FlagClientMode = 'stream' | 'poll';

export interface FlagClientLogger {
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

/** Called after each evaluation (`get*`, `evaluate`); an exception it throws is logged, never thrown to the caller. */
export type EvaluationHook = (key: string, context: EvaluationContext, result: FlagEvaluation) => void;

export interface FlagClientOptions {
  /** Origin of the Gradual server, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** An API key with the `read` action on this environment, sent as `Authorization: Bearer`. */
  token?: string | undefined;
  envId: string;
  /** `stream` (default): server-sent events announce new versions. `poll`: a conditional GET every `pollIntervalMs`. */
  mode?: FlagClientMode | undefined;
  /** Poll mode's interval, and stream mode's fallback polling while the stream is down. Default 30 000. */
  pollIntervalMs?: number | undefined;
  /**
   * A ruleset to serve until the server answers (e.g. one saved from a
   * previous run, or shipped with the app): the client is ready at once.
   * Must be for `envId`. Replaced by the server's first answer, whatever its version.
   */
  bootstrap?: Ruleset | undefined;
  /** Retry delays after failures (full jitter): ceilings from `initialMs` doubling up to `maxMs`. Defaults 1 000 and 30 000. */
  backoff?: { initialMs?: number | undefined; maxMs?: number | undefined } | undefined;
  /** Timeout of one ruleset GET. Default 10 000. */
  requestTimeoutMs?: number | undefined;
  /** A stream silent this long is reopened. Default 45 000 (three missed heartbeats). */
  streamIdleTimeoutMs?: number | undefined;
  /** Custom fetch (tests, proxies, instrumentation). Used for the stream too. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined;
  /**
   * Where problems are reported when nobody listens for `error` events (the
   * first error after a healthy period, and every fatal one), and where
   * exceptions thrown by listeners, hooks and `track` go. Default `console`; `null` silences it.
   */
  logger?: FlagClientLogger | null | undefined;
  /** Called after every evaluation with its key, context and result (e.g. to record exposures). */
  onEvaluation?: EvaluationHook | undefined;
  /** Batched, de-duplicated exposure delivery (evaluations that served a value from the ruleset). */
  exposures?: ExposureOptions | undefined;
  /**
   * Report how many evaluations each flag and config answered, per variant, to
   * `POST /envs/{envId}/usage` (the server's usage insights: which flags are in use or stale).
   * Counted: `evaluate` and the `get*` calls that served a value from the ruleset (not errors,
   * not `allFlags`). Default true.
   */
  sendUsage?: boolean | undefined;
  /**
   * Milliseconds between usage reports (one request per interval, when anything was
   * evaluated; another on `close()` and `flush()`). Default 60 000, at most 3 600 000; 0 turns
   * usage reporting off.
   */
  usageIntervalMs?: number | undefined;
  /**
   * Milliseconds between guard reports (docs/guards.md): while a rollout holds at a guarded step,
   * the units each arm exposed and the events `track` attributed to it, pre-aggregated, go to
   * `POST /envs/{envId}/guard-metrics` (one request per interval when anything was counted, another
   * on `close()` and `flush()`). Default 10 000, at most 300 000; 0 turns guard reporting off.
   */
  guardIntervalMs?: number | undefined;
  /**
   * Milliseconds between ruleset acknowledgements (docs/convergence.md): the version this client
   * serves goes to `POST /envs/{envId}/ruleset-acks` as soon as it applies a new one, and at this
   * interval besides. Default 30 000, at most 300 000; 0 turns acknowledgements off.
   */
  ackIntervalMs?: number | undefined;
  /** The application this instance belongs to, as the convergence ledger names it (`checkout`). */
  serviceName?: string | undefined;
}

/** `track`'s options. */
export interface TrackOptions {
  /** The event's value (a latency, an amount) for a `mean` metric; 0 when absent. */
  value?: number | undefined;
  /** Sets the bucketing attribute of each guarded rollout, as in `evaluate`. */
  targetingKey?: string | undefined;
}

/**
 * - `not_ready`: no ruleset yet (evaluation returns the fallback);
 * - `ready`: serving a ruleset, and the last contact with the server went well;
 * - `stale`: serving the last good ruleset, but the last contact failed;
 * - `closed`: `close()` was called (evaluation still serves the last ruleset).
 */
export type FlagClientStatus = 'not_ready' | 'ready' | 'stale' | 'closed';

/**
 * The evaluator's reasons (OpenFeature's names: `STATIC`, `TARGETING_MATCH`, `SPLIT`, `DEFAULT`,
 * `DISABLED`; docs/bucketing.md), plus `ERROR` when the fallback was served.
 */
export type FlagReason = EvaluationReason | 'ERROR';

/**
 * Named like OpenFeature's error codes, which they map to one to one. `GENERAL`: the flag's
 * rules (in practice, the segments they name) needed more than the evaluation's work budget (docs/segments.md).
 */
export type FlagErrorCode = 'FLAG_NOT_FOUND' | 'TYPE_MISMATCH' | 'PROVIDER_NOT_READY' | 'GENERAL';

/** Expected value type: `json` accepts any value the primitive may hold. */
export type EvaluationValueType = 'boolean' | 'string' | 'number' | 'json';

export interface FlagEvaluation<T = unknown> {
  key: string;
  value: T;
  reason: FlagReason;
  /**
   * The name of the served value among the flag's declared variants; when it declares none, or
   * the value is none of them, the branch. Null when `reason` is `ERROR` (the fallback was served).
   */
  variant: EvaluationVariant | null;
  /**
   * The branch that served the value: `default`, `rule-<n>` (from 1), `target-id`, `rollout-new`
   * or `rollout-base`; null when `reason` is `ERROR`.
   */
  branch: EvaluationBranch | null;
  /** Set exactly when `reason` is `ERROR`. */
  errorCode?: FlagErrorCode;
  errorMessage?: string;
  /** Flag or config; null when the key is unknown or there is no ruleset yet. */
  kind: PrimitiveKind | null;
  /** The context's rollout bucket (0–100), when the primitive has a live rollout and the context the bucket field. */
  bucket: number | null;
  /** The percentage of the primitive's live (active or paused) rollout; null without one, or when the key is unknown. */
  rolloutPercent: number | null;
  /** Version of the ruleset that answered; null before the first ruleset. */
  version: number | null;
  /** The flag's or config's custom metadata; empty when it has none or the key is unknown. */
  metadata: FlagMetadata;
}

export interface EvaluateOptions<T = unknown> {
  /** Served when the result is an error (unknown key, wrong type, no ruleset yet). */
  fallback?: T | undefined;
  /** A value of another type is a `TYPE_MISMATCH` error (and the fallback is served). */
  type?: EvaluationValueType | undefined;
  /**
   * Stands in for the rollout's bucket field (e.g. `userId`) when the
   * context does not carry it: OpenFeature's `targetingKey`.
   */
  targetingKey?: string | undefined;
}

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
  error: GradualApiError;
  status: { status: FlagClientStatus; previous: FlagClientStatus; error?: GradualApiError };
}

export interface FlagClient {
  readonly envId: string;
  readonly mode: FlagClientMode;
  readonly status: FlagClientStatus;
  /** Version of the held ruleset, or null. */
  readonly version: number | null;
  /** The most recent sync error (kept after recovery, for diagnostics). */
  readonly lastError: GradualApiError | undefined;
  /** The held ruleset (e.g. to save as a future `bootstrap`). Treat as read-only. */
  ruleset(): Ruleset | undefined;
  /** Keys of the held flags and configs. */
  keys(): readonly string[];

  getBoolean(key: string, context: EvaluationContext, fallback: boolean): boolean;
  getString(key: string, context: EvaluationContext, fallback: string): string;
  getNumber(key: string, context: EvaluationContext, fallback: number): number;
  /** Any JSON value (object, array, scalar, null); `T` is not checked. */
  getJson<T = unknown>(key: string, context: EvaluationContext, fallback: T): T;
  /** The value with its reason, variant, bucket, rollout percent and, on error, the error code. Never throws. */
  evaluate<T>(key: string, context: EvaluationContext | undefined, options: EvaluateOptions<T> & { fallback: T }): FlagEvaluation<T>;
  evaluate(key: string, context?: EvaluationContext, options?: EvaluateOptions): FlagEvaluation<unknown>;
  /** Every flag's and config's value for `context` (empty before the first ruleset). Not reported to hooks or exposures. */
  allFlags(context?: EvaluationContext, options?: { targetingKey?: string | undefined }): Record<string, unknown>;
  /** Like `allFlags`, with each value's reason, variant, kind, bucket, rollout percent and version. */
  allFlagsDetail(context?: EvaluationContext, options?: { targetingKey?: string | undefined }): Record<string, FlagEvaluation>;

  /** Resolves once a ruleset is held; rejects on a fatal error before that, or when closed. */
  ready(): Promise<void>;
  /** Like `ready()`, also rejecting with a `GradualApiError` after `timeoutMs`, or with the signal's reason. */
  waitForReady(options?: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined }): Promise<void>;
  /** One conditional GET now (joins one in flight). Resolves when done; failures are reported as events, not thrown. */
  refresh(): Promise<void>;
  /**
   * Records one event of `context` (an error, a checkout, a latency as `value`) for the guarded
   * steps that watch it (docs/guards.md): attributed to the arm of each guarded rollout the context
   * is in, and sent as sums with the next guard report. Nothing is recorded while no rollout holds
   * at a guarded step watching `event`. Never sends the context.
   */
  track(event: string, context?: EvaluationContext, options?: TrackOptions): void;

  /**
   * The arm of a guarded step that `context` is in for `key` (docs/guards.md): `treatment`
   * (admitted), `control` (the mirror band, served the base value), or null (in neither, a
   * target-ID match, or the rollout holds at no guarded step). For labelling the application's own
   * metrics, read by a guard metric's Prometheus source (`{{arm}}`).
   */
  guardArm(key: string, context?: EvaluationContext): GuardArm | null;
  /** Delivers pending exposures and sends the usage and guard sums counted so far now; resolves when all have settled. */
  flush(): Promise<void>;

  on<K extends keyof FlagClientEvents>(event: K, listener: (payload: FlagClientEvents[K]) => void): () => void;
  off<K extends keyof FlagClientEvents>(event: K, listener: (payload: FlagClientEvents[K]) => void): void;
  /**
   * Stops syncing (aborts the stream and any request, clears every timer),
   * delivers pending exposures, sends the usage and guard sums counted so far, and resolves when all of it has ended.
   * Idempotent. Evaluation keeps answering from the last ruleset.
   */
  close(): Promise<void>;
}
