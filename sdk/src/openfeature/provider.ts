/**
 * An OpenFeature provider (server paradigm, `@openfeature/server-sdk`) backed
 * by the live flags client: flags are evaluated locally and synchronously
 * against the held ruleset; the provider only translates.
 *
 * Resolution:
 * - `reason`: the evaluator's reason, which is already an OpenFeature one
 *   (STATIC, TARGETING_MATCH, SPLIT, DEFAULT, DISABLED; docs/bucketing.md),
 *   except while the flag client is `stale` (the server could not be reached
 *   after it had served a ruleset): then CACHED, since the value comes from
 *   the last good ruleset. Errors → ERROR with FLAG_NOT_FOUND (unknown key),
 *   TYPE_MISMATCH (the value is not of the requested type; `object` means a
 *   JSON object or array) or PROVIDER_NOT_READY (no ruleset yet). Errors are
 *   returned as resolution details (not thrown), so the SDK serves the
 *   caller's default and still runs error hooks.
 * - `variant`, on every successful resolution (CACHED included) but DISABLED:
 *   the served value's name among the flag's declared variants; without
 *   them (or for a value that is none of them) the branch that served it:
 *   `default`, `rule-<n>` (from 1), `target-id`, `rollout-new` or `rollout-base`.
 * - An archived flag or config resolves to the caller's default with reason
 *   DISABLED and no variant, as OpenFeature defines a disabled flag (the
 *   flag client's own `evaluate` serves its base value, reason DISABLED).
 * - `flagMetadata`: the flag's custom metadata; `rolloutPercent` when the
 *   primitive has a live (active or paused) rollout; `bucket` (0–100) when,
 *   in addition, the context carries the rollout's bucket field. Empty for a
 *   flag without metadata or a live rollout.
 * - Context: passed through as Gradual attributes (rules read top-level keys).
 *   `targetingKey` stands in for the rollout's bucket field (e.g. `userId`)
 *   when the context does not carry that attribute itself, so
 *   `{ targetingKey: 'u-1' }` buckets like `{ userId: 'u-1' }`.
 *
 * Lifecycle and events:
 * - `initialize()` waits for the first ruleset (the SDK then emits
 *   PROVIDER_READY). It fails with PROVIDER_FATAL on a 4xx other than 429
 *   (401/403/404: token, scope or environment id; the `GradualApiError` is
 *   the cause) and with a
 *   general error after `initTimeoutMs`; the client keeps trying, and the
 *   provider emits PROVIDER_READY once it gets a ruleset after all.
 * - PROVIDER_CONFIGURATION_CHANGED after each new ruleset that changes
 *   anything this token can see, with `flagsChanged` (added, removed or
 *   changed keys) and `metadata.version`.
 * - PROVIDER_STALE when the server cannot be reached (the last good ruleset is
 *   still served), PROVIDER_ERROR when it rejects the token (still served: the
 *   error is not reported as PROVIDER_FATAL, which would make the SDK stop
 *   asking), PROVIDER_READY when it answers well again.
 * - `onClose()` closes the flag client when the provider created it.
 */
import {
  ErrorCode,
  GeneralError,
  OpenFeatureEventEmitter,
  ProviderEvents,
  ProviderFatalError,
  StandardResolutionReasons,
  type EvaluationContext,
  type FlagMetadata,
  type JsonValue,
  type Provider,
  type ResolutionDetails,
  type ResolutionReason,
  type TrackingEventDetails,
} from '@openfeature/server-sdk';
import { GradualApiError } from '../errors.js';
import { createFlagClient, type FlagClient, type FlagClientOptions, type FlagErrorCode } from '../live/index.js';
import { isFatal } from '../retry.js';

export interface GradualProviderSettings {
  /** How long `initialize()` waits for the first ruleset. Default 10 000 ms. */
  initTimeoutMs?: number | undefined;
}

/** Either the flag client's options (the provider creates and owns the client) … */
export type GradualProviderOptions =
  | (FlagClientOptions & GradualProviderSettings)
  /** … or an existing client, which stays open on `onClose()` unless `closeClient` is true. */
  | ({ client: FlagClient; closeClient?: boolean | undefined } & GradualProviderSettings);

type ValueType = 'boolean' | 'string' | 'number' | 'object';

const ERROR_CODES: Record<FlagErrorCode, ErrorCode> = {
  FLAG_NOT_FOUND: ErrorCode.FLAG_NOT_FOUND,
  TYPE_MISMATCH: ErrorCode.TYPE_MISMATCH,
  PROVIDER_NOT_READY: ErrorCode.PROVIDER_NOT_READY,
  GENERAL: ErrorCode.GENERAL,
};

function matches(value: unknown, type: ValueType): boolean {
  return type === 'object' ? value !== null && typeof value === 'object' : typeof value === type;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'no value';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export class GradualProvider implements Provider {
  readonly metadata = { name: 'Gradual' } as const;
  readonly runsOn = 'server' as const;
  readonly events = new OpenFeatureEventEmitter();
  /** The live flags client this provider evaluates with. */
  readonly client: FlagClient;

  private readonly ownsClient: boolean;
  private readonly initTimeoutMs: number;
  /** What the SDK was last told: `init` until initialize() settles. */
  private phase: 'init' | 'ready' | 'stale' | 'error' = 'init';
  private readonly unsubscribe: (() => void)[] = [];

  constructor(options: GradualProviderOptions) {
    this.initTimeoutMs = options.initTimeoutMs ?? 10_000;
    if ('client' in options && options.client) {
      this.client = options.client;
      this.ownsClient = options.closeClient === true;
    } else {
      const { initTimeoutMs: _ignored, ...clientOptions } = options as FlagClientOptions & GradualProviderSettings;
      this.client = createFlagClient(clientOptions);
      this.ownsClient = true;
    }
    this.unsubscribe.push(
      this.client.on('change', (change) => {
        if (this.phase === 'init' || change.changedKeys.length === 0) return;
        this.events.emit(ProviderEvents.ConfigurationChanged, {
          flagsChanged: change.changedKeys,
          metadata: { version: change.version },
        });
      }),
      this.client.on('status', ({ status }) => {
        if (status === 'ready' && (this.phase === 'stale' || this.phase === 'error')) {
          this.phase = 'ready';
          this.events.emit(ProviderEvents.Ready, { metadata: { version: this.client.version ?? -1 } });
        }
      }),
      this.client.on('error', (err) => this.onClientError(err)),
    );
  }

  private onClientError(err: GradualApiError): void {
    if (this.phase === 'init') return; // initialize() reports it
    if (isFatal(err)) {
      if (this.phase === 'error') return;
      this.phase = 'error';
      this.events.emit(ProviderEvents.Error, { message: err.message });
    } else if (this.phase === 'ready' && this.client.status === 'stale') {
      this.phase = 'stale';
      this.events.emit(ProviderEvents.Stale, { message: err.message });
    }
  }

  async initialize(_context?: EvaluationContext): Promise<void> {
    try {
      await this.client.waitForReady({ timeoutMs: this.initTimeoutMs });
      this.phase = 'ready';
    } catch (err) {
      this.phase = 'error';
      if (err instanceof GradualApiError && isFatal(err)) throw new ProviderFatalError(err.message, { cause: err });
      throw new GeneralError(err instanceof Error ? err.message : String(err), { cause: err });
    }
  }

  async onClose(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    if (this.ownsClient) await this.client.close();
  }

  resolveBooleanEvaluation(flagKey: string, defaultValue: boolean, context: EvaluationContext): Promise<ResolutionDetails<boolean>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'boolean'));
  }

  resolveStringEvaluation(flagKey: string, defaultValue: string, context: EvaluationContext): Promise<ResolutionDetails<string>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'string'));
  }

  resolveNumberEvaluation(flagKey: string, defaultValue: number, context: EvaluationContext): Promise<ResolutionDetails<number>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'number'));
  }

  resolveObjectEvaluation<T extends JsonValue>(flagKey: string, defaultValue: T, context: EvaluationContext): Promise<ResolutionDetails<T>> {
    return Promise.resolve(this.resolve(flagKey, defaultValue, context, 'object'));
  }

  /**
   * OpenFeature tracking: the event goes to the flag client's `track` (guarded steps watching it
   * count it for the context's arm, docs/guards.md); `trackingEventDetails.value` is its value.
   */
  track(trackingEventName: string, context: EvaluationContext, trackingEventDetails: TrackingEventDetails): void {
    const targetingKey = context.targetingKey;
    const value = trackingEventDetails.value;
    this.client.track(trackingEventName, context, {
      ...(typeof value === 'number' ? { value } : {}),
      ...(typeof targetingKey === 'string' ? { targetingKey } : {}),
    });
  }

  private resolve<T>(flagKey: string, defaultValue: T, context: EvaluationContext, type: ValueType): ResolutionDetails<T> {
    const targetingKey = context.targetingKey;
    const r = this.client.evaluate(flagKey, context, typeof targetingKey === 'string' ? { targetingKey } : {});
    const flagMetadata: FlagMetadata = { ...r.metadata };
    if (r.rolloutPercent !== null) flagMetadata.rolloutPercent = r.rolloutPercent;
    if (r.bucket !== null) flagMetadata.bucket = r.bucket;
    if (r.reason === 'ERROR' || r.variant === null) {
      return {
        value: defaultValue,
        reason: StandardResolutionReasons.ERROR,
        errorCode: r.errorCode === undefined ? ErrorCode.GENERAL : ERROR_CODES[r.errorCode],
        ...(r.errorMessage !== undefined ? { errorMessage: r.errorMessage } : {}),
        flagMetadata,
      };
    }
    // An archived flag is disabled, which OpenFeature answers with the caller's default (no variant).
    if (r.reason === 'DISABLED') return { value: defaultValue, reason: StandardResolutionReasons.DISABLED, flagMetadata };
    if (!matches(r.value, type)) {
      return {
        value: defaultValue,
        reason: StandardResolutionReasons.ERROR,
        errorCode: ErrorCode.TYPE_MISMATCH,
        errorMessage: `'${flagKey}' is ${describe(r.value)}, not ${type === 'object' ? 'an object' : `a ${type}`}`,
        flagMetadata,
      };
    }
    const reason: ResolutionReason = this.client.status === 'stale' ? StandardResolutionReasons.CACHED : r.reason;
    return { value: r.value as T, reason, variant: r.variant, flagMetadata };
  }
}
