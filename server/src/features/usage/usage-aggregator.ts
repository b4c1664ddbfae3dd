import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { PeriodicJob } from '../common/periodic-job.js';
import { addUsage, deleteUsageBefore, deleteUsageBudgetsBefore, emptyColumns, type UsageColumns } from './usage.store.js';
import { startOfHour, USAGE_REPORT_HOURS_BACK, USAGE_RETENTION_MS } from './usage.service.js';

/** Distinct (environment, flag or config, variant) counts one instance holds between flushes; further ones are dropped until the next flush. */
export const AGGREGATOR_MAX_ENTRIES = 50_000;
/** How often an instance writes its counts. */
export const USAGE_FLUSH_INTERVAL_MS = 60_000;

type Variants = Map<string, number>;
interface EnvCounts {
  flag: Map<string, Variants>;
  config: Map<string, Variants>;
}

export interface UsageAggregatorDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
}

/**
 * Evaluations this instance answered (`POST /envs/{envId}/evaluate`, OFREP, also when answered
 * from memory), counted in memory and written as one usage upsert per flush: every minute, on
 * shutdown, and in tests on every move of the test clock. Counting is a few map lookups and an
 * increment; at most `maxEntries` distinct counts are held per flush window.
 */
export class UsageAggregator {
  private counts = new Map<string, EnvCounts>();
  private entries = 0;
  private dropped = 0;
  /** Flushes never overlap: a flush asked for during one runs after it. */
  private readonly job = new PeriodicJob(
    () => this.write(),
    (err) => this.deps.logger.error({ err }, 'usage flush failed'),
  );
  /** The hour whose retention pass has run (one delete per hour is enough). */
  private retainedHour = 0;

  constructor(
    private readonly deps: UsageAggregatorDeps,
    private readonly maxEntries = AGGREGATOR_MAX_ENTRIES,
  ) {}

  /** Counts `n` evaluations of one flag or config's variant in `envId`. */
  count(envId: string, kind: PrimitiveKind, key: string, variant: string, n = 1): void {
    let env = this.counts.get(envId);
    if (!env) {
      if (this.entries >= this.maxEntries) return void (this.dropped += n);
      env = { flag: new Map(), config: new Map() };
      this.counts.set(envId, env);
    }
    const byKey = env[kind];
    let variants = byKey.get(key);
    if (!variants) {
      if (this.entries >= this.maxEntries) return void (this.dropped += n);
      variants = new Map();
      byKey.set(key, variants);
    }
    const before = variants.get(variant);
    if (before !== undefined) variants.set(variant, before + n);
    else if (this.entries < this.maxEntries) {
      variants.set(variant, n);
      this.entries++;
    } else this.dropped += n;
  }

  /** Counts one answer's results (`key → { kind, branch }`) under the branch that served each. */
  countResults(envId: string, results: Record<string, { kind: PrimitiveKind; branch: string }>): void {
    for (const key in results) {
      const r = results[key]!;
      this.count(envId, r.kind, key, r.branch);
    }
  }

  /** Distinct counts held now (tests and metrics). */
  get size(): number {
    return this.entries;
  }

  /** Writes the counts held so far (to the hour of the clock's now) and, once an hour, deletes hours past retention and the usage budgets of hours that take no more reports. */
  flush(): Promise<void> {
    return this.job.runNow();
  }

  start(intervalMs = USAGE_FLUSH_INTERVAL_MS): void {
    this.job.start(intervalMs);
  }

  /** Stops the timer and writes what is held. */
  stop(): Promise<void> {
    return this.job.stop();
  }

  private take(): UsageColumns {
    const columns = emptyColumns();
    for (const [envId, env] of this.counts) {
      for (const kind of ['flag', 'config'] as const) {
        for (const [key, variants] of env[kind]) {
          for (const [variant, n] of variants) {
            columns.envIds.push(envId);
            columns.kinds.push(kind);
            columns.keys.push(key);
            columns.variants.push(variant);
            columns.counts.push(n);
          }
        }
      }
    }
    this.counts = new Map();
    this.entries = 0;
    return columns;
  }

  private async write(): Promise<void> {
    const now = this.deps.clock.now();
    const columns = this.take();
    const dropped = this.dropped;
    this.dropped = 0;
    if (dropped) this.deps.logger.warn({ dropped, maxEntries: this.maxEntries }, 'usage counts over the per-minute cap were not counted');
    try {
      if (columns.envIds.length) await addUsage(this.deps.db.em(), columns, startOfHour(now), now);
    } catch (err) {
      // Kept for the next flush (as far as the cap allows): a database blip loses no counts.
      for (let i = 0; i < columns.envIds.length; i++) this.count(columns.envIds[i]!, columns.kinds[i]!, columns.keys[i]!, columns.variants[i]!, columns.counts[i]);
      this.deps.logger.warn({ err }, 'could not write usage counts; they are kept for the next flush');
      return;
    }
    const hour = startOfHour(now).getTime();
    if (hour !== this.retainedHour) {
      try {
        await deleteUsageBefore(this.deps.db.em(), new Date(now.getTime() - USAGE_RETENTION_MS));
        await deleteUsageBudgetsBefore(this.deps.db.em(), new Date(hour - USAGE_REPORT_HOURS_BACK * 3600_000));
        this.retainedHour = hour;
      } catch (err) {
        this.deps.logger.warn({ err }, 'could not delete usage past retention; the next flush tries again');
      }
    }
  }
}
