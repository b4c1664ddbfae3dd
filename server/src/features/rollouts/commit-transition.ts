import type { EntityManager } from '@mikro-orm/postgresql';
import type { Rollout as RolloutDto } from '@gradual/contract';
import { AuditEventEntity, PrimitiveStateEntity, RolloutEntity, type AuditEvent, type Primitive, type Rollout } from '../../db/entities/index.js';
import type { Transition } from '../../domain/rollouts/types.js';
import type { Actor, Caller } from '../access/authorize.js';
import { auditRow } from '../audit/audit.store.js';
import type { EnvWriteBatch } from '../environments/env-changes.js';
import { BoundRows } from '../common/bound-rows.js';
import { hotQuery, rawQuery } from '../common/raw-sql.js';
import { applyState, toRolloutDto } from './rollout.mapper.js';

export interface TransitionContext {
  tx: EntityManager;
  batch: EnvWriteBatch;
  actor: Actor;
  caller: Pick<Caller, 'reason' | 'now'>;
  /**
   * Where the rollout row and its audit rows go. Default: written by commitTransition itself,
   * before it returns. The scheduler passes one TransitionWrites for a whole batch of
   * transitions and writes it once.
   */
  writes?: TransitionWrites;
}

/**
 * Persists one state-machine transition of `row` in the caller's transaction:
 * the row, the env version bump and one audit row per action. A rollout that
 * completes makes its candidate the primitive's base value in the same
 * transaction (a rollout gating rules simply stops gating). A transition that
 * changed only scheduling metadata (a blackout deferral) is saved without an
 * audit row or version bump: nothing an SDK evaluates has changed.
 *
 * `row` is a detached row (lockCurrentRollout, claimDueRollouts, newRolloutRow), written with
 * bound SQL (TransitionWrites), never through the unit of work.
 */
export async function commitTransition(
  ctx: TransitionContext,
  row: Rollout,
  /** Only its identity is used: the scheduler builds it from the row's copy (keys never change). */
  primitive: Pick<Primitive, 'id' | 'kind' | 'key'>,
  transition: Transition,
  /** The representation before the command; null for a new rollout (inserted, not updated). */
  before: RolloutDto | null,
): Promise<void> {
  if (!transition.changed) return;
  const { tx, batch, actor, caller } = ctx;
  const writes = ctx.writes ?? new TransitionWrites();
  applyState(row, transition.rollout, caller.now);
  writes.rollout(row, before === null);
  for (const audit of rolloutAuditRows(actor, caller, row, transition, before)) writes.audit(audit);
  if (completesWithValue(row, transition)) {
    // Rare (once per rollout): the primitive's state goes through the unit of work, flushed at commit.
    const state = await tx.findOneOrFail(PrimitiveStateEntity, { primitiveId: primitive.id, envId: row.envId });
    const previous = state.value;
    state.value = row.newValue ?? null;
    state.updatedAt = caller.now;
    writes.audit(
      auditRow(caller, actor, {
        orgId: row.orgId,
        projectId: row.projectId,
        envId: row.envId,
        action: `${primitive.kind}.update_value`,
        resourceType: primitive.kind,
        resourceKey: primitive.key,
        resourceId: primitive.id,
        previousValue: previous,
        newValue: state.value,
      }),
    );
  }
  if (!ctx.writes) await writes.write(tx, batch);
}

/** Whether the transition (already applied to `row`) completes a rollout whose candidate becomes the primitive's value. */
function completesWithValue(row: Rollout, transition: Transition): boolean {
  return transition.actions.includes('rollout.completed') && !row.gatesRules;
}

/**
 * One audit row per state-machine action, `row` already in its new state. No `version`: they
 * carry the environment version that the statement inserting them bumps.
 */
function rolloutAuditRows(actor: Actor, caller: Pick<Caller, 'reason' | 'now'>, row: Rollout, transition: Transition, before: RolloutDto | null): AuditEvent[] {
  if (!transition.actions.length) return [];
  const after = toRolloutDto(row);
  return transition.actions.map((action) =>
    auditRow(caller, actor, {
      orgId: row.orgId,
      projectId: row.projectId,
      envId: row.envId,
      action,
      resourceType: 'rollout',
      resourceKey: row.primitiveKey,
      resourceId: row.id,
      previousValue: before ?? undefined,
      newValue: after,
    }),
  );
}

const boundRows = (em: EntityManager) => ({
  rollouts: BoundRows.of<Rollout>(em, RolloutEntity.meta.className),
  audits: BoundRows.of<AuditEvent>(em, AuditEventEntity.meta.className),
});

let cachedStatements: { ifUnchanged: string; batch: string } | undefined;

/** `?` placeholders (as the statement builders write them) numbered `$1…` in order, for a prepared statement. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The two write statements, built once from the entities' metadata (they never change at run time). */
function statements(em: EntityManager): { ifUnchanged: string; batch: string } {
  if (cachedStatements) return cachedStatements;
  const { rollouts, audits } = boundRows(em);
  cachedStatements = {
    // commitIfUnchanged: the row only if it is still the version read; the bump and audit rows only if it was written.
    // A named prepared statement ($n placeholders): PostgreSQL parses and plans this CTE once per connection.
    ifUnchanged: numbered(`with changed as (${rollouts.updateStatement()} and t.xmin = ?::xid returning t.id),
          bumped as (update environments e set version = e.version + 1, updated_at = ?::timestamptz
                      where e.id = ? and ?::boolean and exists (select 1 from changed) returning e.version),
          audit as (${audits.insertStatement({ expressions: { version: 'bumped.version' }, join: 'join bumped on true' })})
     select (select count(*) from changed)::int as changed, (select version from bumped) as version`),
    // TransitionWrites.write: new and changed rollouts, the bumps (environments locked in id order) and the audit rows.
    batch: `with new_rollouts as (${rollouts.insertStatement()}),
            changed_rollouts as (${rollouts.updateStatement()}),
            locked as (select id from environments where id = any(?::uuid[]) order by id for update),
            bumped as (update environments e set version = e.version + 1, updated_at = ?::timestamptz from locked where e.id = locked.id returning e.id, e.version),
            audit as (${audits.insertStatement({ expressions: { version: 'coalesce(r."version", bumped.version)' }, join: 'left join bumped on bumped.id = r."env_id"' })})
       select id, version from bumped`,
  };
  return cachedStatements;
}

/**
 * commitTransition without a transaction or a lock, for an edit of an existing rollout read
 * unlocked (readCurrentRollout): one statement writes the row, bumps the environment and
 * inserts the audit rows, and does nothing at all unless the row is still the version that was
 * read (`rowVersion`, its xmin). A rollout PUT is then two statements (the read and this)
 * instead of BEGIN, a locking read, the write and COMMIT; on the embedded database, where
 * every statement waits its turn in one session, that is what bounds the write rate.
 *
 * Returns null when the row changed since it was read (the caller reads it again), else the
 * environment version written (null when the transition changed nothing an SDK evaluates).
 * Not for a transition that completes a rollout with a candidate value: that rewrites the
 * primitive's state too (commitTransition, under the row lock).
 */
export async function commitIfUnchanged(
  em: EntityManager,
  actor: Actor,
  caller: Pick<Caller, 'reason' | 'now'>,
  row: Rollout,
  rowVersion: string,
  transition: Transition,
  before: RolloutDto,
): Promise<{ version: number | null } | null> {
  if (!transition.changed) return { version: null };
  const next = { ...row };
  applyState(next, transition.rollout, caller.now);
  if (completesWithValue(next, transition)) throw new Error('commitIfUnchanged cannot complete a rollout with a value');
  const audit = rolloutAuditRows(actor, caller, next, transition, before);
  const { rollouts, audits } = boundRows(em);
  const [written] = await hotQuery<{ changed: number; version: number | null }>(em, 'gradual_rollout_commit_if_unchanged', statements(em).ifUnchanged, [
    rollouts.toJson([next]),
    rowVersion,
    caller.now.toISOString(),
    row.envId,
    audit.length > 0,
    audits.toJson(audit),
  ]);
  const result = written!; // the statement always answers one row
  if (result.changed === 0) return null;
  if (audit.length && result.version === null) throw new Error(`environment ${row.envId} vanished during a write`);
  Object.assign(row, next);
  return { version: result.version };
}

/**
 * The rows of one or more transitions, written with one bound-parameter statement instead of
 * MikroORM's find/flush. On a rollout PUT the unit of work (change sets, a flush that inlines
 * and escapes every value, ~2 KB of JSON per audit row) cost more server CPU than the SQL
 * itself. And the environment's version bump, which every write in the environment waits
 * for, now happens in that same last statement: the row lock is held for it and the COMMIT
 * only, not for a flush's worth of JavaScript and three more round trips.
 */
export class TransitionWrites {
  private readonly inserted = new Set<Rollout>();
  private readonly updated = new Set<Rollout>();
  private readonly auditRows: AuditEvent[] = [];

  rollout(row: Rollout, isNew: boolean): void {
    if (isNew) this.inserted.add(row);
    else if (!this.inserted.has(row)) this.updated.add(row); // a row inserted by this batch goes in with its final state
  }

  /** An audit row of an env-scoped change; a null version is the batch's version of its environment. */
  audit(row: AuditEvent): void {
    this.auditRows.push(row);
  }

  /**
   * Writes what was recorded, in `tx`, as one statement: new rollouts, changed rollouts, the
   * version bump of every environment the batch has not bumped yet (in id order, so two
   * writers never wait on each other's environments crosswise) and the audit rows carrying
   * those versions. The bumped versions join `batch`, which announces them after commit.
   */
  async write(tx: EntityManager, batch: EnvWriteBatch): Promise<void> {
    const inserted = [...this.inserted];
    const updated = [...this.updated];
    this.inserted.clear();
    this.updated.clear();
    const audit = this.auditRows.splice(0);
    if (!inserted.length && !updated.length && !audit.length) return;
    const toBump = new Set<string>();
    for (const row of audit) {
      row.version ??= batch.known(row.envId!) ?? null;
      if (row.version === null) toBump.add(row.envId!);
    }
    const { rollouts, audits } = boundRows(tx);
    const { rows } = await rawQuery<{ id: string; version: number }>(
      tx,
      statements(tx).batch,
      [rollouts.toJson(inserted), rollouts.toJson(updated), [...toBump], batch.now.toISOString(), audits.toJson(audit)],
    );
    for (const { id, version } of rows) batch.record(id, version);
    if (rows.length !== toBump.size) throw new Error('an environment vanished during a write');
  }
}
