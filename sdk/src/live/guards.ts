/**
 * Guard reporting (docs/guards.md): while a rollout holds at a guarded step (its ruleset entry
 * carries `guard`), the live client counts, per arm, the contexts it exposed and the events they
 * tracked, and sends the sums to `POST /envs/{envId}/guard-metrics` every `guardIntervalMs`. No
 * context and no single event leaves the process.
 *
 * - **Arms** come from the context's bucket and the step's percent (`armOf`); a context in no arm
 *   (between the bands, a target-ID match, no bucket field) is not counted.
 * - **Units** are the contexts first exposed at the step: each arm remembers the bucket hashes it
 *   counted (30 bits), so summed over the step's reports they are distinct contexts. An exact
 *   direct-mapped filter per step in front of the arm check makes a context seen again cost one
 *   typed-array read on the evaluation path.
 *   A new step, a resume (a new `guard.since`) or a rollout leaving its guarded step starts over.
 * - **Events** (`track`) are attributed to each guarded rollout whose step watches them, by the
 *   same arm rule: count, Σ value and Σ value² per (rollout, arm, event).
 */
import { reportGuardMetrics } from '../generated/sdk.gen.js';
import type { Client as FetchClient } from '../generated/client/index.js';
import type { GuardReport } from '../generated/types.gen.js';
import { armOf, type GuardArm } from '../evaluation/arms.js';
import type { CompiledPrimitive, EvaluationContext, EvaluationResult, PrimitiveKind } from '../evaluation/index.js';
import { withTargetingKey } from '../evaluation/targeting-key.js';
import type { HeldRuleset } from './cache.js';
import { reportSender, WindowReporter, type CollectedReport, type ReportSender } from './reporter.js';
import type { TimerSet } from './timers.js';

/** The contract's limits: exposures and events per report, one entry's count, the longest window. */
export const GUARD_REPORT_ENTRIES_MAX = 1000;
const COUNT_MAX = 10_000_000;
const WINDOW_MAX_MS = 300_000;
/** Contexts one arm of one step remembers; past this it starts over (a context may then count twice). */
const UNITS_REMEMBERED_MAX = 250_000;
/**
 * The direct-mapped filter of the contexts a step has seen: a context's 30-bit id picks a slot by
 * its low RECENT_BITS bits and is stored there as its high bits (so the filter is exact), in
 * 16 bits (128 KiB a step). Large enough that a working set of a few thousand contexts rarely
 * evicts itself: a repeat then costs one read and a branch the processor predicts.
 */
const RECENT_BITS = 16;
const RECENT_MASK = (1 << RECENT_BITS) - 1;
/** No id's high bits (30 − RECENT_BITS = 14 bits): an empty slot. */
const RECENT_EMPTY = 0xffff;
/** 2^30 / 100: a bucket (0–100, from a 32-bit hash) back to 30 bits of its hash. */
const BUCKET_TO_ID = 10_737_418.24;

/** `POST /envs/{envId}/guard-metrics` through the live client's fetch client. */
export function guardSender(http: FetchClient): ReportSender<GuardReport> {
  return reportSender('guard report', http, (client, envId, body, signal) => reportGuardMetrics({ client, path: { envId }, body, signal }));
}

/**
 * The arm of a served evaluation at `percent`, or null: none without a bucket or for a target-ID
 * match. A rollout that gates its rules (no `newValue`) serves a target-ID match outside the
 * admitted band its rules, not `rollout-base`, which is how it is told apart there.
 */
export function servedArm(branch: string, bucket: number | null, percent: number, gatesRules: boolean): GuardArm | null {
  if (bucket === null || branch === 'target-id') return null;
  if (gatesRules && bucket >= percent && branch !== 'rollout-base') return null;
  return armOf(bucket, percent);
}

/** The contexts one arm counted at one step. */
class ArmUnits {
  private readonly seen = new Set<number>();
  /** Counted since the last report. */
  pending = 0;

  add(id: number): void {
    if (this.seen.has(id)) return;
    if (this.seen.size >= UNITS_REMEMBERED_MAX) this.seen.clear();
    this.seen.add(id);
    this.pending++;
  }
}

interface EventSums {
  count: number;
  sum: number;
  sumSquares: number;
}

/** One rollout holding at a guarded step, as the held ruleset describes it. */
class GuardedStep {
  readonly units: Record<GuardArm, ArmUnits> = { treatment: new ArmUnits(), control: new ArmUnits() };
  /**
   * The arms' bands as bounds (armOf's rule unrolled): treatment is [0, treatmentEnd), control
   * [controlStart, 100). The evaluation path reads these and the arms below, never a keyed lookup.
   */
  readonly treatmentEnd: number;
  readonly controlStart: number;
  readonly treatment: ArmUnits;
  readonly control: ArmUnits;
  /**
   * A direct-mapped filter of the contexts (bucket ids) classified at this step since the held
   * ruleset last changed, in an arm or in none: a context seen again, the usual case, costs one
   * typed-array read here and nothing more on the evaluation path.
   */
  readonly recent = new Uint16Array(RECENT_MASK + 1).fill(RECENT_EMPTY);
  /** Event name → arm → sums since the last report. */
  events = new Map<string, Partial<Record<GuardArm, EventSums>>>();

  constructor(
    readonly kind: PrimitiveKind,
    readonly key: string,
    readonly rolloutId: string,
    readonly percent: number,
    readonly since: string,
    readonly gatesRules: boolean,
    readonly bucketField: string,
    readonly watched: ReadonlySet<string>,
    public primitive: CompiledPrimitive,
  ) {
    this.treatmentEnd = Math.min(percent, 50);
    this.controlStart = Math.max(100 - percent, percent);
    this.treatment = this.units.treatment;
    this.control = this.units.control;
  }
}

export interface GuardReporterOptions {
  intervalMs: number;
  requestTimeoutMs: number;
  timers: TimerSet;
  send: ReportSender<GuardReport>;
  /** The held ruleset, whose environment the report goes to. */
  held: () => HeldRuleset | null;
  warn: (message: string) => void;
}

export class GuardReporter {
  /** The held ruleset `slots` describe, and per primitive ordinal its guarded step. */
  private slotsOf: HeldRuleset | null = null;
  private slots: Array<GuardedStep | undefined> = [];
  private steps: GuardedStep[] = [];
  /** Steps the ruleset no longer holds at, with counts not reported yet. */
  private retired: GuardedStep[] = [];
  private eventEntries = 0;
  private droppedEvents = 0;
  private readonly reporter: WindowReporter<GuardReport>;

  constructor(private readonly options: GuardReporterOptions) {
    this.reporter = new WindowReporter({
      what: 'guard report',
      intervalMs: options.intervalMs,
      windowMaxMs: WINDOW_MAX_MS,
      requestTimeoutMs: options.requestTimeoutMs,
      timers: options.timers,
      collect: (windowStart, windowEnd) => this.collect(windowStart, windowEnd),
      send: options.send,
      warn: options.warn,
    });
  }

  /** Counts an evaluation that served `result` from `primitive` of the held ruleset: one unit of its arm, once per context and step. */
  readonly exposed = (held: HeldRuleset, primitive: CompiledPrimitive, result: EvaluationResult): void => {
    if (held !== this.slotsOf) this.follow(held);
    const step = this.slots[primitive.ordinal];
    if (step === undefined) return;
    const bucket = result.bucket;
    if (bucket === null) return;
    // The filter first: a context the step has seen since the ruleset changed serves the same
    // variant, so it is in the same arm, already counted, or in none.
    const id = (bucket * BUCKET_TO_ID) | 0;
    const slot = id & RECENT_MASK;
    const high = id >>> RECENT_BITS;
    if (step.recent[slot] === high) return;
    step.recent[slot] = high;
    // servedArm inlined.
    if (result.branch === 'target-id') return;
    if (step.gatesRules && bucket >= step.percent && result.branch !== 'rollout-base') return;
    const units = bucket < step.treatmentEnd ? step.treatment : bucket >= step.controlStart ? step.control : null;
    if (units !== null) units.add(id);
  };

  /** Attributes one event of `context` to the arm it is in of every guarded step that watches `event`. */
  track(event: string, context: EvaluationContext, value: number, targetingKey: string | undefined): void {
    const held = this.options.held();
    if (held === null || this.reporter.stopped || !Number.isFinite(value)) return;
    if (held !== this.slotsOf) this.follow(held);
    for (const step of this.steps) {
      if (!step.watched.has(event)) continue;
      const ctx = targetingKey === undefined ? context : withTargetingKey(context, step.bucketField, targetingKey);
      const r = step.primitive.evaluate(ctx);
      if (r.reason === 'ERROR') continue;
      const arm = servedArm(r.branch, r.bucket, step.percent, step.gatesRules);
      if (arm === null) continue;
      let byArm = step.events.get(event);
      if (byArm === undefined) step.events.set(event, (byArm = {}));
      let sums = byArm[arm];
      if (sums === undefined) {
        if (this.eventEntries >= GUARD_REPORT_ENTRIES_MAX) {
          this.droppedEvents++;
          continue;
        }
        this.eventEntries++;
        byArm[arm] = sums = { count: 0, sum: 0, sumSquares: 0 };
      }
      sums.count++;
      sums.sum += value;
      sums.sumSquares += value * value;
    }
  }

  flush(): Promise<void> {
    return this.reporter.flush();
  }

  /** Sends what is counted, then counts nothing more: no guarded step is followed after. */
  async close(): Promise<void> {
    await this.reporter.close();
    this.slots = [];
    this.steps = [];
  }

  /** A new held ruleset: its guarded steps, keeping the counts of each step it still holds at. */
  private follow(held: HeldRuleset): void {
    const previous = new Map(this.steps.map((s) => [s.key, s]));
    this.slotsOf = held;
    this.slots = new Array<GuardedStep | undefined>(held.compiled.keys.length).fill(undefined);
    this.steps = [];
    if (this.reporter.stopped) return;
    for (const p of held.ruleset.primitives) {
      const r = p.rollout;
      if (!r?.guard || r.status !== 'active' || !(r.percent > 0 && r.percent < 100)) continue;
      const primitive = held.compiled.primitive(p.key);
      if (primitive === undefined || primitive.kind !== p.kind) continue;
      const old = previous.get(p.key);
      let step: GuardedStep;
      if (old !== undefined && old.rolloutId === r.id && old.percent === r.percent && old.since === r.guard.since) {
        // The rules may have changed, and with them which contexts a step that gates them admits.
        old.recent.fill(RECENT_EMPTY);
        old.primitive = primitive;
        previous.delete(p.key);
        step = old;
      } else {
        step = new GuardedStep(p.kind, p.key, r.id, r.percent, r.guard.since, r.newValue === undefined, r.bucketField, new Set(r.guard.events), primitive);
      }
      this.steps.push(step);
      this.slots[primitive.ordinal] = step;
    }
    this.retired.push(...previous.values());
  }

  /** Closes the window: the units and sums counted since the last report. */
  private collect(windowStart: number, windowEnd: number): CollectedReport<GuardReport> | null {
    const exposures: GuardReport['exposures'] = [];
    const events: GuardReport['events'] = [];
    for (const step of [...this.retired, ...this.steps]) {
      const { kind, key, percent } = step;
      for (const arm of ['treatment', 'control'] as const) {
        const units = step.units[arm];
        if (units.pending > 0) exposures.push({ kind, key, percent, arm, units: Math.min(units.pending, COUNT_MAX) });
        units.pending = 0;
      }
      for (const [event, byArm] of step.events) {
        for (const arm of ['treatment', 'control'] as const) {
          const sums = byArm[arm];
          if (sums === undefined || !Number.isFinite(sums.sum) || !Number.isFinite(sums.sumSquares)) continue;
          events.push({ kind, key, percent, arm, event, count: Math.min(sums.count, COUNT_MAX), sum: sums.sum, sumSquares: sums.sumSquares });
        }
      }
      step.events = new Map();
    }
    this.retired = [];
    this.eventEntries = 0;
    if (this.droppedEvents > 0) this.options.warn(`gradual: guard window full: ${this.droppedEvents} events were not counted`);
    this.droppedEvents = 0;
    const envId = this.options.held()?.ruleset.envId;
    if (envId === undefined || (exposures.length === 0 && events.length === 0)) return null;
    return {
      envId,
      entries: exposures.length + events.length,
      report: { windowStart: new Date(windowStart).toISOString(), windowEnd: new Date(windowEnd).toISOString(), exposures: exposures.slice(0, GUARD_REPORT_ENTRIES_MAX), events },
    };
  }
}
