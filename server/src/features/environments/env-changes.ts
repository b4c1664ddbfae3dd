import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Advances an environment's version inside the caller's transaction and returns
 * the new value. The row lock taken by the UPDATE serializes concurrent writers,
 * so versions are gap-free and every audit row gets a distinct one.
 */
export async function bumpEnvVersion(tx: EntityManager, envId: string, now: Date): Promise<number> {
  // tx.execute runs on the transaction's connection (getConnection().execute would not).
  const rows = await tx.execute<Array<{ version: number }>>(
    'update environments set version = version + 1, updated_at = ? where id = ? returning version',
    [now, envId],
  );
  const version = rows[0]?.version;
  if (version === undefined) throw new Error(`environment ${envId} vanished during a write`);
  return version;
}

export interface EnvChange {
  envId: string;
  version: number;
}

/**
 * Committed environment writes, for live consumers (the ruleset stream).
 * Services publish only after their transaction commits. This in-process
 * implementation serves the embedded mode; a PostgreSQL LISTEN/NOTIFY one
 * implements the same interface for several instances.
 */
export interface EnvChangeBus {
  publish(change: EnvChange): void;
  subscribe(listener: (change: EnvChange) => void): () => void;
}

export class InProcessEnvChangeBus implements EnvChangeBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  publish(change: EnvChange): void {
    this.emitter.emit('change', change);
  }

  subscribe(listener: (change: EnvChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}

/**
 * Env versions for one transaction: the first write to an environment bumps
 * its version, later writes in the same transaction share it (one commit is
 * one write). After commit, `publish` announces every touched environment.
 */
export class EnvWriteBatch {
  private readonly versions = new Map<string, number>();

  constructor(
    private readonly tx: EntityManager,
    readonly now: Date,
  ) {}

  async version(envId: string): Promise<number> {
    let version = this.versions.get(envId);
    if (version === undefined) {
      version = await bumpEnvVersion(this.tx, envId, this.now);
      this.versions.set(envId, version);
    }
    return version;
  }

  /** The version this transaction already gave the environment, if it wrote there. */
  known(envId: string): number | undefined {
    return this.versions.get(envId);
  }

  /** A version bumped by a statement of the caller's own (TransitionWrites folds the bump into its write). */
  record(envId: string, version: number): void {
    if (this.versions.has(envId)) throw new Error(`environment ${envId} bumped twice in one transaction`);
    this.versions.set(envId, version);
  }

  changes(): EnvChange[] {
    return [...this.versions].map(([envId, version]) => ({ envId, version }));
  }

  publishTo(bus: EnvChangeBus): void {
    for (const change of this.changes()) bus.publish(change);
  }
}
