import type { TransactionOptions } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/*
 * The one way the server opens a transaction. On PostgreSQL, concurrent writers can lose a race
 * the database resolves by aborting one of them: a deadlock (40P01) or, in a REPEATABLE READ or
 * SERIALIZABLE transaction, a serialization failure (40001). Nothing of such a transaction was
 * committed, so it is run again, a bounded number of times with jittered waits, before any answer
 * is sent; the error handler answers one that still fails 503 with Retry-After
 * (http/errors.ts), never 500.
 *
 * A retried attempt starts from a clean unit of work (`clear: true`): entities the failed attempt
 * changed are not carried over, so `work` must read what it changes through `tx`, as every
 * transaction here does. A transaction opened inside another is a savepoint of it and is not
 * retried on its own: the outermost one is.
 */

/** SQLSTATEs of a transaction the database aborted to let a concurrent one through. */
const CONFLICT_SQLSTATES: ReadonlySet<string> = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

/** How often a conflicting transaction is tried in all, and its waits: full jitter on an exponential cap. */
export const CONFLICT_RETRY = { attempts: 6, baseMs: 4, maxMs: 250 } as const;

/** Told of every retried conflict (the server counts them: gradual_db_conflict_retries_total). */
export interface ConflictObserver {
  retried(sqlState: string): void;
  gaveUp(sqlState: string): void;
}
/** The MikroORM extension under which the server registers its ConflictObserver. */
export const CONFLICT_OBSERVER = 'gradual.conflictObserver';

/** The SQLSTATE when `err` (or an error it wraps) is a deadlock or a serialization failure, else null. */
export function conflictSqlState(err: unknown): string | null {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONFLICT_SQLSTATES.has(code)) return code;
  }
  return null;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` (one transaction, or one statement committing on its own) until it does not
 * fail with a conflict, at most CONFLICT_RETRY.attempts times; the last conflict is thrown.
 */
export async function retryConflicts<T>(em: EntityManager, attempt: (retry: number) => Promise<T>): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt(retry);
    } catch (err) {
      const sqlState = conflictSqlState(err);
      if (sqlState === null) throw err;
      const observer = em.config.getExtension<ConflictObserver>(CONFLICT_OBSERVER);
      if (retry + 1 >= CONFLICT_RETRY.attempts) {
        observer?.gaveUp(sqlState);
        throw err;
      }
      observer?.retried(sqlState);
      await pause(Math.random() * Math.min(CONFLICT_RETRY.maxMs, CONFLICT_RETRY.baseMs * 2 ** retry));
    }
  }
}

/**
 * `work` in a transaction of `em`, retried on a conflict (see the file comment); inside an open
 * transaction, a savepoint of it.
 */
export function transaction<T>(em: EntityManager, work: (tx: EntityManager) => T | Promise<T>, options: TransactionOptions = {}): Promise<T> {
  if (em.isInTransaction()) return em.transactional(work, options);
  return retryConflicts(em, (retry) => em.transactional(work, retry === 0 ? options : { ...options, clear: true }));
}
