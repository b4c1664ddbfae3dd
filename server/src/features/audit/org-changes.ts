import { ChangeSetType, type EventSubscriber, type FlushEventArgs, type TransactionEventArgs } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/postgresql';
import { AuditEventEntity, type AuditEvent } from '../../db/entities/index.js';

/*
 * What the event streams announce of the audit rows that move no environment's version, as
 * the organization stream's `org-change`: the rows of no environment (a flag's or config's
 * definition, segments, plans, webhook subscriptions, projects, members, API keys), and the rows
 * of an environment that leave its version as it is (an environment created or deleted, rollback
 * secrets, proposals made, cancelled or expired). The rows that moved a version are the
 * `change` events' (read by (env_id, version) after the version is announced), never both.
 * Every committed write's rows are announced after its commit, from the rows themselves, on
 * both ways rows are written:
 *   - recordAudit (the unit of work): orgChangeAnnouncer collects the rows each flush inserts
 *     and announces them once the outermost transaction commits;
 *   - an environment change set (environments/env-changes.ts): changeEnvironments announces the
 *     rows it wrote after its commit, and hands the project's rows to the streams of the
 *     environments the same write moved.
 */

/** One audited change, as an event stream lists it. */
export interface LiveChangeRow {
  resourceType: string;
  resourceKey: string | null;
  action: string;
}

/**
 * A committed write's audited changes that move no environment's version, of one project (null:
 * the organization's own rows) and environment (null: rows of no environment).
 */
export interface OrgChange {
  orgId: string;
  projectId: string | null;
  envId: string | null;
  changes: LiveChangeRow[];
}

/** Where committed org changes are announced (the change bus). */
export interface OrgChangePublisher {
  publishOrg(change: OrgChange): void;
}

type Row = Pick<AuditEvent, 'orgId' | 'projectId' | 'envId' | 'resourceType' | 'resourceKey' | 'action'> & { version?: number | null };

const liveChange = ({ resourceType, resourceKey, action }: Row): LiveChangeRow => ({ resourceType, resourceKey: resourceKey ?? null, action });

/**
 * Whether a row is announced as its environment's new version (a `change` event reads it). An
 * environment's version starts at 0 and every write that moves it leaves it at 1 or more, so a
 * row naming an environment and such a version is that write's (changes set it to the version
 * they produced); a row without one, or with 0 (an environment created empty), moved nothing.
 */
export function movedVersion(row: Row): boolean {
  return !!row.envId && row.version != null && row.version > 0;
}

/** The rows that move no environment's version, one OrgChange per (organization, project, environment), in the order written. */
export function orgChangesOf(rows: readonly Row[]): OrgChange[] {
  const grouped = new Map<string, OrgChange>();
  for (const row of rows) {
    if (movedVersion(row)) continue;
    const projectId = row.projectId ?? null;
    const envId = row.envId ?? null;
    const key = `${row.orgId}:${projectId ?? ''}:${envId ?? ''}`;
    let change = grouped.get(key);
    if (!change) grouped.set(key, (change = { orgId: row.orgId, projectId, envId, changes: [] }));
    change.changes.push(liveChange(row));
  }
  return [...grouped.values()];
}

/** The project-level rows (a project, no environment) among `rows`: what the environments moved by the same write announce besides their own. */
export function projectChangesOf(rows: readonly Row[]): LiveChangeRow[] {
  return rows.filter((row) => !row.envId && row.projectId).map(liveChange);
}

/** The outermost transaction of a (possibly nested) one: org changes are announced when it commits. */
function outermost(trx: Knex.Transaction): Knex.Transaction {
  let root = trx;
  while (root.parentTransaction) root = root.parentTransaction;
  return root;
}

/**
 * recordAudit's half of the announcements: the rows a flush inserts that move no environment's
 * version are announced on `publisher` after the commit (at once for a flush that is its own transaction,
 * else when the outermost transaction commits; never when it rolls back). Registered once per
 * ORM and server (server.ts); `detach` stops it when the server closes.
 */
export function orgChangeAnnouncer(publisher: OrgChangePublisher): EventSubscriber & { detach(): void } {
  const pending = new WeakMap<Knex.Transaction, AuditEvent[]>();
  let attached = true;
  const announce = (rows: readonly AuditEvent[]) => {
    if (attached) for (const change of orgChangesOf(rows)) publisher.publishOrg(change);
  };
  return {
    afterFlush({ em, uow }: FlushEventArgs): void {
      const rows = uow
        .getChangeSets()
        .filter((cs) => cs.type === ChangeSetType.CREATE && cs.meta.className === AuditEventEntity.meta.className)
        .map((cs) => cs.entity as AuditEvent)
        .filter((row) => !movedVersion(row));
      if (!rows.length) return;
      const trx = em.getTransactionContext<Knex.Transaction>();
      if (!trx) return announce(rows); // the flush was its own transaction, committed by now
      const root = outermost(trx);
      const held = pending.get(root);
      if (held) held.push(...rows);
      else pending.set(root, rows);
    },
    afterTransactionCommit({ transaction }: TransactionEventArgs): void {
      const rows = transaction ? pending.get(transaction as Knex.Transaction) : undefined;
      if (!rows) return;
      pending.delete(transaction as Knex.Transaction);
      announce(rows);
    },
    afterTransactionRollback({ transaction }: TransactionEventArgs): void {
      if (transaction) pending.delete(transaction as Knex.Transaction);
    },
    detach: () => {
      attached = false;
    },
  };
}
