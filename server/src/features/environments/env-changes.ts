import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditEventEntity, PENDING_VERSION, RolloutEntity, type AuditEvent, type Rollout } from '../../db/entities/index.js';
import type { Actor, Caller } from '../access/authorize.js';
import { auditRow, type AuditEntry } from '../audit/audit.store.js';
import { orgChangesOf, projectChangesOf, type LiveChangeRow, type OrgChange, type OrgChangePublisher } from '../audit/org-changes.js';
import { deliveryInsertParameter, deliveryInsertStatement, enqueueWebhookEvents, planWebhookDeliveries } from '../audit/webhook-outbox.js';
import { BoundRows, builtOnce, hotQuery, numbered, rawQuery } from '../common/sql.js';
import { transaction } from '../../db/transaction.js';

/*
 * The one module that changes environments. A change to what an SDK evaluates in an environment
 * (a flag's or config's value or rules, a rollout, an allow-list, a new environment's states)
 * happens inside a transaction with an EnvChangeSet: the caller applies its change, tells the set
 * which environments it changed and what to audit, and the set writes the version bump (once per
 * environment per transaction) and the audit rows in the same transaction, then announces the
 * new versions on the bus after the commit.
 *
 *   changeEnvironments(em, bus, now, async (changes) => { …; changes.change(envId); changes.audit(caller, actor, entry); })
 *
 * The scheduler's tick is the bulk form: one set for a batch of rollouts across many
 * environments, written with one statement. changeRolloutIfUnchanged is the same write without
 * a transaction, for an optimistic rollout edit.
 */

export interface EnvChange {
  envId: string;
  version: number;
  /**
   * The project-level audited changes (no environment) of the write that produced this version
   * (a flag created, archived or restored), which the environment's event streams list with its own.
   */
  projectChanges?: LiveChangeRow[];
}

/**
 * Committed writes, for live consumers (the ruleset and event streams): environment versions,
 * and the audited changes that move no environment's version (OrgChange, features/audit/org-changes.ts).
 * Services publish only after their transaction commits. This in-process
 * implementation serves the embedded mode; a PostgreSQL LISTEN/NOTIFY one
 * implements the same interface for several instances.
 */
export interface EnvChangeBus extends OrgChangePublisher {
  publish(change: EnvChange): void;
  subscribe(listener: (change: EnvChange) => void): () => void;
  subscribeOrg(listener: (change: OrgChange) => void): () => void;
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

  publishOrg(change: OrgChange): void {
    this.emitter.emit('org-change', change);
  }

  subscribeOrg(listener: (change: OrgChange) => void): () => void {
    this.emitter.on('org-change', listener);
    return () => this.emitter.off('org-change', listener);
  }
}

/**
 * Publishes a committed change set: its environments' versions (with the project-level changes of
 * the write), then its changes that moved no version (outside any environment, or of an environment
 * it did not move), so that each row is announced once.
 */
function publishCommitted(bus: EnvChangeBus, changes: EnvChangeSet): void {
  const projectChanges = projectChangesOf(changes.written);
  for (const change of changes.changes()) bus.publish(projectChanges.length ? { ...change, projectChanges } : change);
  for (const change of orgChangesOf(changes.written)) bus.publishOrg(change);
}

/**
 * Runs `work` in a transaction of `em` (a savepoint when `em` is in one already) with a change
 * set; writes the set before the commit and publishes the versions it produced, and the audited
 * changes that moved no version, on `bus` after.
 */
export async function changeEnvironments<T>(em: EntityManager, bus: EnvChangeBus, now: Date, work: (changes: EnvChangeSet) => Promise<T>): Promise<T> {
  let changes!: EnvChangeSet;
  const result = await transaction(em, async (tx) => {
    changes = new EnvChangeSet(tx, now);
    const result = await work(changes);
    await changes.write();
    return result;
  });
  publishCommitted(bus, changes);
  return result;
}

const boundRows = (em: EntityManager) => ({
  rollouts: BoundRows.of<Rollout>(em, RolloutEntity.meta.className),
  audits: BoundRows.of<AuditEvent>(em, AuditEventEntity.meta.className),
});

/**
 * The set's write: the bumps, new and changed rollouts and the audit rows, an env-scoped audit
 * row without a version and a rollout stamped PENDING_VERSION taking their environment's new one.
 *
 * The environments are locked in id order, so two writers never wait on each other's
 * environments crosswise, and FOR NO KEY UPDATE, the lock the bump itself takes: rows this
 * transaction inserted earlier (a flag's states, a rollout) hold KEY SHARE locks on their
 * environments through their foreign keys, and so do a concurrent writer's. FOR UPDATE would
 * conflict with those, and two writers that had each inserted into the same environments would
 * deadlock; FOR NO KEY UPDATE does not.
 */
const writeStatement = (em: EntityManager) =>
  builtOnce('env_change_write', () => {
    const { rollouts, audits } = boundRows(em);
    const withVersion = { expressions: { step_version: STAMPED_STEP_VERSION }, join: 'left join bumped on bumped.id = r."env_id"' };
    return `with locked as (select id from environments where id = any(?::uuid[]) order by id for no key update),
            bumped as (update environments e set version = e.version + 1, updated_at = ?::timestamptz from locked where e.id = locked.id returning e.id, e.version),
            new_rollouts as (${rollouts.insertStatement(withVersion)}),
            changed_rollouts as (${rollouts.updateStatement(withVersion)}),
            audit as (${audits.insertStatement({ expressions: { version: 'coalesce(r."version", bumped.version)' }, join: 'left join bumped on bumped.id = r."env_id"' })})
       select id, version from bumped`;
  });

/** A rollout row's step_version as written: PENDING_VERSION takes its environment's new version (`bumped`). */
const STAMPED_STEP_VERSION = `case when r."step_version" = ${PENDING_VERSION} then bumped.version else r."step_version" end`;

/**
 * One transaction's environment changes (see the file comment). The caller applies its own
 * change in `tx` (entities through the unit of work, or rollout rows handed to `rollout`); the
 * set bumps each changed environment's version once and writes the audit rows, all with one
 * statement when written.
 */
export class EnvChangeSet {
  private readonly versions = new Map<string, number>();
  private readonly toBump = new Set<string>();
  private readonly inserted = new Set<Rollout>();
  private readonly updated = new Set<Rollout>();
  private readonly auditRows: AuditEvent[] = [];
  /** The audit rows written so far, for the announcements after the commit. */
  readonly written: AuditEvent[] = [];

  constructor(
    readonly tx: EntityManager,
    readonly now: Date,
  ) {}

  /** The environment's ruleset changed: its version advances (once in this transaction). */
  change(envId: string): void {
    if (!this.versions.has(envId)) this.toBump.add(envId);
  }

  /** An audit row, written with the change. An env-scoped row without a version carries its changed environment's new version. */
  audit(caller: Pick<Caller, 'reason' | 'now' | 'approverUserId'>, actor: Actor, entry: AuditEntry): void {
    this.auditRows.push(auditRow(caller, actor, entry));
  }

  /** An audit row already built (auditRow). */
  auditEvent(row: AuditEvent): void {
    this.auditRows.push(row);
  }

  /** A detached rollout row (read with BoundRows) to insert or write back with the change. */
  rollout(row: Rollout, isNew: boolean): void {
    if (isNew) this.inserted.add(row);
    else if (!this.inserted.has(row)) this.updated.add(row); // a row inserted by this set goes in with its final state
  }

  /**
   * Writes what was recorded since the last write, as one statement. changeEnvironments calls
   * it before the commit; a caller that needs a version inside the transaction calls it first.
   */
  async write(): Promise<void> {
    const inserted = [...this.inserted];
    const updated = [...this.updated];
    const toBump = [...this.toBump];
    const audit = this.auditRows.splice(0);
    this.inserted.clear();
    this.updated.clear();
    this.toBump.clear();
    if (!inserted.length && !updated.length && !audit.length && !toBump.length) return;
    for (const row of audit) if (row.envId && row.version === null) row.version = this.versions.get(row.envId) ?? null;
    const { rollouts, audits } = boundRows(this.tx);
    const { rows } = await rawQuery<{ id: string; version: number }>(this.tx, writeStatement(this.tx), [
      toBump,
      this.now.toISOString(),
      rollouts.toJson(inserted),
      rollouts.toJson(updated),
      audits.toJson(audit),
    ]);
    for (const { id, version } of rows) this.versions.set(id, version);
    if (rows.length !== toBump.length) throw new Error('an environment vanished during a write');
    for (const row of audit) if (row.envId && row.version === null) row.version = this.versions.get(row.envId) ?? null;
    for (const row of [...inserted, ...updated]) if (row.stepVersion === PENDING_VERSION) row.stepVersion = this.versions.get(row.envId) ?? null;
    this.written.push(...audit);
    await enqueueWebhookEvents(this.tx, audit); // the outbound webhooks these rows call for, in the same transaction
  }

  /** The version this transaction gave the environment (after write), if it changed it. */
  version(envId: string): number | undefined {
    return this.versions.get(envId);
  }

  changes(): EnvChange[] {
    return [...this.versions].map(([envId, version]) => ({ envId, version }));
  }
}

/** The optimistic write: the rollout row only if it is still the version read; the bump and audit rows only if it was written. */
const ifUnchangedStatement = (em: EntityManager) =>
  builtOnce('env_change_if_unchanged', () => {
    const { rollouts, audits } = boundRows(em);
    // The row is locked first (and skipped when a concurrent write changed it: the lock re-checks
    // xmin on the row it waited for), so the bump can follow it and the row take the bumped version.
    return numbered(`with target as (select t.id from rollouts t where t.id = ?::uuid and t.xmin = ?::xid for no key update),
          bumped as (update environments e set version = e.version + 1, updated_at = ?::timestamptz
                      where e.id = ? and ?::boolean and exists (select 1 from target) returning e.version),
          changed as (${rollouts.updateStatement({ expressions: { step_version: STAMPED_STEP_VERSION }, join: 'left join bumped on true' })} and t.id in (select id from target) returning t.id),
          audit as (${audits.insertStatement({ expressions: { version: 'bumped.version' }, join: 'join bumped on true' })}),
          deliveries as (${deliveryInsertStatement(em)})
     select (select count(*) from changed)::int as changed, (select version from bumped) as version`);
  });

/**
 * A rollout edit without a transaction or a lock: one statement writes `row` (an existing
 * rollout, detached), bumps its environment and inserts `audit` (rows of that environment,
 * without a version: they take the new one), and does nothing at all unless the stored row is
 * still the version that was read (`rowVersion`, its xmin). No audit rows: the row is saved
 * without a bump (a change nothing evaluates). The outbound webhooks the audit rows call for are
 * queued by the same statement (features/audit/webhook-outbox.ts). Publishes the new version on `bus`.
 *
 * Returns null when the row changed since it was read (the caller reads it again), else the
 * environment version written (null when nothing was bumped).
 */
export async function changeRolloutIfUnchanged(
  em: EntityManager,
  bus: EnvChangeBus,
  now: Date,
  row: Rollout,
  rowVersion: string,
  audit: AuditEvent[],
): Promise<{ version: number | null } | null> {
  const { rollouts, audits } = boundRows(em);
  const deliveries = await planWebhookDeliveries(em, audit);
  const [written] = await hotQuery<{ changed: number; version: number | null }>(em, 'gradual_rollout_commit_if_unchanged', ifUnchangedStatement(em), [
    row.id,
    rowVersion,
    now.toISOString(),
    row.envId,
    audit.length > 0,
    rollouts.toJson([row]),
    audits.toJson(audit),
    deliveryInsertParameter(em, deliveries),
  ]);
  const result = written!; // the statement always answers one row
  if (result.changed === 0) return null;
  if (audit.length && result.version === null) throw new Error(`environment ${row.envId} vanished during a write`);
  if (row.stepVersion === PENDING_VERSION) row.stepVersion = result.version;
  if (result.version !== null) bus.publish({ envId: row.envId, version: result.version });
  return { version: result.version };
}
