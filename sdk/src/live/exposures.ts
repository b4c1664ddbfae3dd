/**
 * Batched, de-duplicated delivery of exposures (which value a context was
 * served), for experiment analysis and audit: for each (key, context identity)
 * among the last `dedupeCapacity` remembered, an exposure is delivered when its
 * value, reason or variant differs from the last one delivered; batches go to `track` every `flushIntervalMs` or as
 * soon as `batchSize` are waiting, never from inside an evaluation.
 */
import type { EvaluationContext, EvaluationReason, EvaluationVariant, PrimitiveKind } from '../evaluation/index.js';
import type { TimerHandle, TimerSet } from './timers.js';
import type { EvaluationHook } from './types.js';

export interface Exposure {
  key: string;
  value: unknown;
  reason: EvaluationReason;
  /** The served value's declared variant name, else the branch that served it (`rollout-new`, `rule-2`, …). */
  variant: EvaluationVariant;
  kind: PrimitiveKind;
  /** The context's rollout bucket (0–100), when it has one. */
  bucket: number | null;
  /** The live rollout's percentage at the time; null without a live rollout. */
  rolloutPercent: number | null;
  /** Version of the ruleset that answered. */
  version: number;
  /** The context as the application passed it. */
  context: EvaluationContext;
  /** When the first such evaluation happened (ms since the epoch). */
  timestamp: number;
}

export interface ExposureOptions {
  /** Receives each batch; a rejection or exception is logged and the batch dropped. */
  track: (batch: Exposure[]) => void | Promise<void>;
  /** Longest wait before a pending exposure is delivered. Default 10 000. */
  flushIntervalMs?: number | undefined;
  /** Delivered as soon as this many are pending. Default 100. */
  batchSize?: number | undefined;
  /** How many (key, context identity) pairs are remembered for de-duplication (the oldest forgotten first); 0 turns it off. Default 10 000. */
  dedupeCapacity?: number | undefined;
}

/** A string that identifies an object or array value for de-duplication. */
function valueId(value: unknown): string {
  return JSON.stringify(value) ?? '';
}

/** What the last exposure delivered for one (key, identity) served. */
interface Served {
  reason: string;
  variant: string;
  value: unknown;
}

export class ExposureQueue {
  private pending: Exposure[] = [];
  /**
   * Key → identity → the last exposure delivered for it; a ring buffer of the same (key, identity)
   * pairs forgets the oldest first. Lookups of strings the application already holds (its keys and
   * ids) allocate nothing, so a repeated exposure costs two map reads.
   */
  private readonly seen = new Map<string, Map<string, Served>>();
  private readonly ringKeys: (string | undefined)[];
  private readonly ringIds: string[];
  private ringPos = 0;
  private timer: TimerHandle | null = null;
  /** The timer is set to deliver at once (a full batch is waiting). */
  private immediate = false;
  private readonly inflight = new Set<Promise<void>>();
  private readonly flushIntervalMs: number;
  private readonly batchSize: number;
  private readonly dedupeCapacity: number;
  private stopped = false;

  constructor(
    private readonly options: ExposureOptions,
    private readonly timers: TimerSet,
    private readonly onTrackError: (err: unknown) => void,
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 10_000;
    this.batchSize = options.batchSize ?? 100;
    this.dedupeCapacity = options.dedupeCapacity ?? 10_000;
    this.ringKeys = new Array<string | undefined>(this.dedupeCapacity);
    this.ringIds = new Array<string>(this.dedupeCapacity);
  }

  /** False when the last exposure remembered for (key, identity) had the same reason, variant and value. */
  private remember(key: string, identity: string, reason: string, variant: string, value: unknown): boolean {
    if (this.dedupeCapacity === 0) return true;
    let byId = this.seen.get(key);
    const last = byId?.get(identity);
    if (last !== undefined) {
      if (
        last.reason === reason &&
        last.variant === variant &&
        (last.value === value || (typeof value === 'object' && valueId(last.value) === valueId(value)))
      ) {
        return false;
      }
      last.reason = reason;
      last.variant = variant;
      last.value = value;
      return true;
    }
    const oldKey = this.ringKeys[this.ringPos];
    if (oldKey !== undefined) {
      const old = this.seen.get(oldKey);
      old?.delete(this.ringIds[this.ringPos]!);
      if (old?.size === 0) this.seen.delete(oldKey);
    }
    this.ringKeys[this.ringPos] = key;
    this.ringIds[this.ringPos] = identity;
    this.ringPos = (this.ringPos + 1) % this.dedupeCapacity;
    if (!byId) this.seen.set(key, (byId = new Map<string, Served>()));
    byId.set(identity, { reason, variant, value });
    return true;
  }

  private push(exposure: Exposure): void {
    this.pending.push(exposure);
    if (this.pending.length >= this.batchSize) {
      if (!this.immediate) this.arm(0);
    } else if (this.timer === null) {
      this.arm(this.flushIntervalMs);
    }
  }

  /**
   * The evaluation hook that records exposures: evaluations that served a value from the
   * ruleset (not errors). A context is identified by the rollout's bucket field (e.g. `userId`)
   * when it has one, else by its JSON.
   */
  hook(bucketFieldOf: (key: string) => string | undefined): EvaluationHook {
    return (key, context, r) => {
      if (r.reason === 'ERROR' || r.variant === null || r.kind === null || r.version === null) return;
      const field = bucketFieldOf(key);
      const v = field === undefined ? undefined : context[field];
      // A string id is its own identity; anything else is told apart from strings by a prefix.
      const identity = v == null ? `\u0000c${JSON.stringify(context)}` : typeof v === 'string' ? v : `\u0000j${JSON.stringify(v)}`;
      if (this.stopped || !this.remember(key, identity, r.reason, r.variant, r.value)) return;
      this.push({
        key,
        value: r.value,
        reason: r.reason,
        variant: r.variant,
        kind: r.kind,
        bucket: r.bucket,
        rolloutPercent: r.rolloutPercent,
        version: r.version,
        context,
        timestamp: Date.now(),
      });
    };
  }

  get size(): number {
    return this.pending.length;
  }

  /** Delivers what is pending now; resolves when every delivery started so far has settled. */
  async flush(): Promise<void> {
    this.timers.clear(this.timer);
    this.timer = null;
    this.immediate = false;
    this.deliver();
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** Flushes, then accepts no more exposures. */
  async close(): Promise<void> {
    await this.flush();
    this.stopped = true;
  }

  private arm(ms: number): void {
    this.timers.clear(this.timer);
    this.immediate = ms === 0;
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.immediate = false;
      this.deliver();
    }, ms);
  }

  private deliver(): void {
    const all = this.pending;
    this.pending = [];
    for (let i = 0; i < all.length; i += this.batchSize) {
      const batch = all.slice(i, i + this.batchSize);
      let delivery: Promise<void>;
      try {
        delivery = Promise.resolve(this.options.track(batch)).catch(this.onTrackError);
      } catch (err) {
        this.onTrackError(err);
        continue;
      }
      this.inflight.add(delivery);
      void delivery.finally(() => this.inflight.delete(delivery));
    }
  }
}
