/**
 * Batched, de-duplicated delivery of exposures (which value a context was
 * served), for experiment analysis and audit: the same (key, identity, value,
 * reason) is delivered once while it stays among the last `dedupeCapacity`
 * distinct exposures; batches go to `track` every `flushIntervalMs` or as
 * soon as `batchSize` are waiting, never from inside an evaluation.
 */
import type { EvaluationContext, EvaluationReason, PrimitiveKind } from '../evaluation/index.js';
import type { TimerHandle, TimerSet } from './timers.js';
import type { EvaluationHook } from './types.js';

export interface Exposure {
  key: string;
  value: unknown;
  reason: EvaluationReason;
  kind: PrimitiveKind;
  /** The context's rollout bucket (0–100), when it has one. */
  bucket: number | null;
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
  /** How many distinct exposures are remembered for de-duplication (least recent forgotten first); 0 turns it off. Default 10 000. */
  dedupeCapacity?: number | undefined;
}

/** A string that identifies a value for de-duplication (cheap for scalars). */
function valueId(value: unknown): string {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : `${typeof value}:${String(value)}`;
}

export class ExposureQueue {
  private pending: Exposure[] = [];
  private readonly seen = new Map<string, true>();
  private timer: TimerHandle | null = null;
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
  }

  /** `identity` names the context for de-duplication (its bucket-field value, or its JSON). */
  record(exposure: Omit<Exposure, 'timestamp'>, identity: string): void {
    if (this.stopped) return;
    if (this.dedupeCapacity > 0) {
      const id = `${exposure.key}\u0000${identity}\u0000${exposure.reason}\u0000${valueId(exposure.value)}`;
      if (this.seen.has(id)) return;
      this.seen.set(id, true);
      if (this.seen.size > this.dedupeCapacity) this.seen.delete(this.seen.keys().next().value!);
    }
    this.pending.push({ ...exposure, timestamp: Date.now() });
    if (this.pending.length >= this.batchSize) this.arm(0);
    else if (this.timer === null) this.arm(this.flushIntervalMs);
  }

  /**
   * The evaluation hook that records exposures: evaluations that served a value from the
   * ruleset (not errors). A context is identified by the rollout's bucket field (e.g. `userId`)
   * when it has one, else by its JSON.
   */
  hook(bucketFieldOf: (key: string) => string | undefined): EvaluationHook {
    return (key, context, r) => {
      if (r.reason === 'error' || r.kind === null || r.version === null) return;
      const field = bucketFieldOf(key);
      const v = field === undefined ? undefined : context[field];
      const id = v == null ? `c${JSON.stringify(context)}` : typeof v === 'string' ? `s${v}` : `j${JSON.stringify(v)}`;
      this.record({ key, value: r.value, reason: r.reason, kind: r.kind, bucket: r.bucket, version: r.version, context }, id);
    };
  }

  get size(): number {
    return this.pending.length;
  }

  /** Delivers what is pending now; resolves when every delivery started so far has settled. */
  async flush(): Promise<void> {
    this.timers.clear(this.timer);
    this.timer = null;
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
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.deliver();
    }, ms);
  }

  private deliver(): void {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.batchSize);
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
