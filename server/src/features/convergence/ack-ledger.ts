import type { RulesetAck } from '@gradual/contract';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { PeriodicJob } from '../common/periodic-job.js';
import { deleteAcksBefore, writeAcks, type AckRow } from './convergence.store.js';

/** Instances with acknowledgements held between flushes; further ones wait for the next flush's room. */
export const LEDGER_PENDING_MAX = 100_000;
/** Instances whose served version this server remembers (to tell a move from a start). */
const KNOWN_MAX = 200_000;
/** How often an instance writes what it was told. */
export const LEDGER_FLUSH_INTERVAL_MS = 1000;
/** Acknowledgements older than this are deleted. */
export const LEDGER_RETENTION_MS = 24 * 3600_000;

export interface AckLedgerDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
}

/**
 * The convergence ledger's writes: acknowledgements are held in memory (the latest per instance)
 * and written in one statement per flush, every second, so an acknowledgement costs no database
 * write of its own. Several server instances write the same tables, in key order (no deadlock);
 * the ledger is read from the database, so it merges them.
 */
export class AckLedger {
  private pending = new Map<string, AckRow>();
  private dropped = 0;
  /** `env:instance` → the version it last acknowledged here (insertion order: the oldest is forgotten first). */
  private readonly known = new Map<string, number>();
  private retainedHour = 0;
  private readonly job = new PeriodicJob(
    () => this.write(),
    (err) => this.deps.logger.error({ err }, 'convergence ledger flush failed'),
  );

  constructor(private readonly deps: AckLedgerDeps) {}

  /** Records that `ack.instanceId` serves `ack.version` of `envId`, as of the clock's now. */
  ack(envId: string, ack: RulesetAck): void {
    const id = `${envId}:${ack.instanceId}`;
    const previous = this.known.get(id);
    const held = this.pending.get(id);
    if (held === undefined && this.pending.size >= LEDGER_PENDING_MAX) {
      this.dropped++;
      return;
    }
    const now = this.deps.clock.now();
    const sameAsHeld = held !== undefined && held.version === ack.version;
    // A move is a version after another one this server saw the instance serve (not a start).
    const moved = sameAsHeld ? held.moved : previous !== undefined && previous !== ack.version;
    this.pending.set(id, {
      envId,
      instanceId: ack.instanceId,
      sdkName: ack.sdk.name,
      sdkVersion: ack.sdk.version,
      service: ack.service ?? null,
      mode: ack.mode,
      version: ack.version,
      seenAt: now,
      firstAckedAt: sameAsHeld ? held.firstAckedAt : now,
      moved,
    });
    if (previous !== ack.version) {
      this.known.delete(id);
      if (this.known.size >= KNOWN_MAX) for (const oldest of this.known.keys()) if (this.known.delete(oldest)) break;
      this.known.set(id, ack.version);
    }
  }

  /** Writes what is held (also before a read of the ledger on this instance). */
  flush(): Promise<void> {
    return this.job.runNow();
  }

  start(intervalMs = LEDGER_FLUSH_INTERVAL_MS): void {
    this.job.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  private async write(): Promise<void> {
    const rows = [...this.pending.values()];
    this.pending = new Map();
    if (this.dropped > 0) this.deps.logger.warn({ dropped: this.dropped, max: LEDGER_PENDING_MAX }, 'ruleset acknowledgements over the per-flush cap were not recorded');
    this.dropped = 0;
    const now = this.deps.clock.now();
    if (rows.length > 0) await writeAcks(this.deps.db.em(), rows);
    const hour = Math.floor(now.getTime() / 3600_000);
    if (hour !== this.retainedHour) {
      await deleteAcksBefore(this.deps.db.em(), new Date(now.getTime() - LEDGER_RETENTION_MS));
      this.retainedHour = hour;
    }
  }
}
