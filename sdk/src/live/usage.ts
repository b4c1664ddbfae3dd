/**
 * Usage reporting: how many evaluations each flag and config answered, per variant, sent to
 * `POST /envs/{envId}/usage` every `usageIntervalMs` and on `close()` (the server's usage
 * insights: which flags are in use, which are stale).
 *
 * Counting is the only work on the evaluation path: one map lookup by the key the application
 * passed, a scan of that key's few variants by identity (the evaluator hands out the same
 * variant strings every time) and an increment; nothing is allocated for a (kind, key, variant)
 * already counted in the window. Reports are sent from a timer, never from inside an
 * evaluation. A window holds at most `maxEntries` distinct (kind, key, variant) entries; once
 * full, evaluations of new ones are counted as dropped (and logged at the flush) instead. A
 * report that fails is logged and its window dropped, not retried: a lost answer to a report
 * the server did count would otherwise be counted twice, and usage is a statistic.
 */
import { reportUsage } from '../generated/sdk.gen.js';
import type { Client as FetchClient } from '../generated/client/index.js';
import type { UsageEntry, UsageReport } from '../generated/types.gen.js';
import type { CompiledPrimitive, CompiledRuleset, PrimitiveKind } from '../evaluation/index.js';
import { reportSender, WindowReporter, type CollectedReport, type ReportSender } from './reporter.js';
import type { TimerSet } from './timers.js';

/** The contract's limits: entries per report, the count of one entry, the longest window. */
export const USAGE_ENTRIES_MAX = 10_000;
const COUNT_MAX = 1_000_000_000;
const WINDOW_MAX_MS = 3_600_000;

/** The variants counted for one key in the current window, and their counts (same index). */
interface KeyCounts {
  variants: string[];
  counts: number[];
}

/** Adds one to `variant`'s count when `counted` has the variant; false when it has not yet. */
function incremented(counted: KeyCounts, variant: string): boolean {
  const { variants, counts } = counted;
  for (let i = 0; i < variants.length; i++) {
    if (variants[i] === variant) {
      counts[i] = (counts[i] as number) + 1;
      return true;
    }
  }
  return false;
}

/** Sends one report; rejects with a `GradualApiError`. */
export type UsageSender = ReportSender<UsageReport>;

/** `POST /envs/{envId}/usage` through the live client's fetch client. */
export function usageSender(http: FetchClient): UsageSender {
  return reportSender('usage report', http, (client, envId, body, signal) => reportUsage({ client, path: { envId }, body, signal }));
}

export interface UsageReporterOptions {
  /** Milliseconds between reports. */
  intervalMs: number;
  /** Distinct (kind, key, variant) entries per window. */
  maxEntries: number;
  /** Timeout of one report. */
  requestTimeoutMs: number;
  timers: TimerSet;
  send: UsageSender;
  /** The environment of the held ruleset (null before the first one: nothing was counted then). */
  envId: () => string | null;
  warn: (message: string) => void;
}

export class UsageReporter {
  private flags = new Map<string, KeyCounts>();
  private configs = new Map<string, KeyCounts>();
  /** The held ruleset `slots` belong to, and per primitive ordinal its counts in `flags`/`configs`. */
  private slotsOf: CompiledRuleset | null = null;
  private slots: Array<KeyCounts | undefined> = [];
  private entries = 0;
  private dropped = 0;
  private readonly reporter: WindowReporter<UsageReport>;

  constructor(private readonly options: UsageReporterOptions) {
    this.reporter = new WindowReporter({
      what: 'usage report',
      intervalMs: options.intervalMs,
      windowMaxMs: WINDOW_MAX_MS,
      requestTimeoutMs: options.requestTimeoutMs,
      timers: options.timers,
      collect: (windowStart, windowEnd) => this.collect(windowStart, windowEnd),
      send: options.send,
      warn: options.warn,
    });
  }

  /**
   * Counts one served evaluation of `primitive` (held ruleset `compiled`). The counts of each
   * primitive seen in this window are remembered by its ordinal, so a repeat costs an array
   * read and the variant scan, without looking its key up; the slots are forgotten when the
   * ruleset changes and when a window closes (its counts then live in new maps).
   */
  readonly countServed = (compiled: CompiledRuleset, primitive: CompiledPrimitive, variant: string): void => {
    if (compiled !== this.slotsOf) {
      this.slotsOf = compiled;
      this.slots = new Array<KeyCounts | undefined>(compiled.keys.length).fill(undefined);
    }
    const counted = this.slots[primitive.ordinal];
    if (counted !== undefined && incremented(counted, variant)) return;
    this.count(primitive.kind, primitive.key, variant);
    this.slots[primitive.ordinal] = (primitive.kind === 'flag' ? this.flags : this.configs).get(primitive.key);
  };

  count(kind: PrimitiveKind, key: string, variant: string): void {
    const byKey = kind === 'flag' ? this.flags : this.configs;
    const counted = byKey.get(key);
    if (counted !== undefined && incremented(counted, variant)) return;
    this.countNew(byKey, counted, key, variant);
  }

  /** A (kind, key, variant) not counted yet in this window (or a variant string equal to, but not the same as, a counted one). */
  private countNew(byKey: Map<string, KeyCounts>, counted: KeyCounts | undefined, key: string, variant: string): void {
    if (this.reporter.stopped) return;
    if (counted !== undefined) {
      const i = counted.variants.indexOf(variant);
      if (i >= 0) {
        counted.counts[i] = (counted.counts[i] as number) + 1;
        return;
      }
    }
    if (this.entries >= this.options.maxEntries) {
      this.dropped++;
      return;
    }
    this.entries++;
    if (counted === undefined) byKey.set(key, { variants: [variant], counts: [1] });
    else {
      counted.variants.push(variant);
      counted.counts.push(1);
    }
  }

  /** Distinct entries counted in the current window. */
  get size(): number {
    return this.entries;
  }

  /** Sends the current window now (when it counted anything); resolves when every report started so far has settled. */
  flush(): Promise<void> {
    return this.reporter.flush();
  }

  /** Sends the current window, then counts nothing more. */
  close(): Promise<void> {
    return this.reporter.close();
  }

  /** Closes the window: its counts as one report. */
  private collect(windowStart: number, windowEnd: number): CollectedReport<UsageReport> | null {
    const { flags, configs, dropped } = this;
    this.flags = new Map();
    this.configs = new Map();
    this.slots.fill(undefined);
    this.entries = 0;
    this.dropped = 0;
    const entries: UsageEntry[] = [];
    let overflow = dropped;
    const collect = (kind: PrimitiveKind, byKey: Map<string, KeyCounts>) => {
      for (const [key, { variants, counts }] of byKey) {
        for (let i = 0; i < variants.length; i++) {
          const count = counts[i] as number;
          overflow += Math.max(0, count - COUNT_MAX);
          entries.push({ kind, key, variant: variants[i] as string, count: Math.min(count, COUNT_MAX) });
        }
      }
    };
    collect('flag', flags);
    collect('config', configs);
    if (overflow > 0) this.options.warn(`gradual: usage window full: ${overflow} evaluations were not counted`);
    const envId = this.options.envId();
    if (entries.length === 0 || envId === null) return null;
    return { envId, entries: entries.length, report: { windowStart: new Date(windowStart).toISOString(), windowEnd: new Date(windowEnd).toISOString(), entries } };
  }
}
