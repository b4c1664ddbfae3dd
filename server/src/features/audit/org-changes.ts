import { ChangeSetType, type EventSubscriber, type FlushEventArgs, type TransactionEventArgs } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/postgresql';
import { AuditEventEntity, type AuditEvent } from '../../db/entities/index.js';

/*
 * What the event streams announce of the audit rows that name no environment (a flag's or
 * config's definition, segments, plans, webhook subscriptions, projects, members, API keys).
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

/** A committed write's audited changes outside any environment, of one project (null: the organization's own rows). */
export interface OrgChange {
  orgId: string;
  projectId: string | null;
  changes: LiveChangeRow[];
}

/** Where committed org changes are announced (the change bus). */
export interface OrgChangePublisher {
  publishOrg(change: OrgChange): void;
}

type Row = Pick<AuditEvent, 'orgId' | 'projectId' | 'envId' | 'resourceType' | 'resourceKey' | 'action'>;

const liveChange = ({ resourceType, resourceKey, action }: Row): LiveChangeRow => ({ resourceType, resourceKey: resourceKey ?? null, action });

/** The rows of no environment, one OrgChange per (organization, project), in the order written. */
export function orgChangesOf(rows: readonly Row[]): OrgChange[] {
  const byProject = new Map<string, OrgChange>();
  for (const row of rows) {
    if (row.envId) continue;
    const projectId = row.projectId ?? null;
    const key = `${row.orgId}:${projectId ?? ''}`;
    let change = byProject.get(key);
    if (!change) byProject.set(key, (change = { orgId: row.orgId, projectId, changes: [] }));
    change.changes.push(liveChange(row));
  }
  return [...byProject.values()];
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
 * recordAudit's half of the announcements: the rows of no environment a flush inserts are
 * announced on `publisher` after the commit (at once for a flush that is its own transaction,
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
        .filter((row) => !row.envId);
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
