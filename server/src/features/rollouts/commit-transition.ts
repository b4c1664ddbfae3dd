import type { EntityManager } from '@mikro-orm/postgresql';
import type { Rollout as RolloutDto } from '@gradual/contract';
import { AuditEventEntity, PrimitiveStateEntity, RolloutEntity, type AuditEvent, type Primitive, type Rollout } from '../../db/entities/index.js';
import type { Transition } from '../../domain/rollouts/types.js';
import type { Actor, Caller } from '../access/authorize.js';
import { auditRow, type AuditEntry } from '../audit/audit.store.js';
import type { EnvWriteBatch } from '../environments/env-changes.js';
import { BoundRows } from '../shared/bound-rows.js';
import { rawQuery } from '../shared/raw-sql.js';
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
  const audit = (entry: AuditEntry) => writes.audit(auditRow(caller, actor, entry));
  applyState(row, transition.rollout, caller.now);
  writes.rollout(row, before === null);
  if (transition.actions.length) {
    // No `version` on these audit rows: they carry the environment's version that
    // TransitionWrites bumps in the same statement that inserts them.
    const after = toRolloutDto(row);
    for (const action of transition.actions) {
      audit({
        orgId: row.orgId,
        projectId: row.projectId,
        envId: row.envId,
        action,
        resourceType: 'rollout',
        resourceKey: row.primitiveKey,
        resourceId: row.id,
        previousValue: before ?? undefined,
        newValue: after,
      });
    }
    if (transition.actions.includes('rollout.completed') && !row.gatesRules) {
      // Rare (once per rollout): the primitive's state goes through the unit of work, flushed at commit.
      const state = await tx.findOneOrFail(PrimitiveStateEntity, { primitiveId: primitive.id, envId: row.envId });
      const previous = state.value;
      state.value = row.newValue ?? null;
      state.updatedAt = caller.now;
      audit({
        orgId: row.orgId,
        projectId: row.projectId,
        envId: row.envId,
        action: `${primitive.kind}.update_value`,
        resourceType: primitive.kind,
        resourceKey: primitive.key,
        resourceId: primitive.id,
        previousValue: previous,
        newValue: state.value,
      });
    }
  }
  if (!ctx.writes) await writes.write(tx, batch);
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
  private readonly inserted: Rollout[] = [];
  private readonly updated = new Set<Rollout>();
  private readonly auditRows: AuditEvent[] = [];

  rollout(row: Rollout, isNew: boolean): void {
    if (isNew) {
      if (!this.inserted.includes(row)) this.inserted.push(row);
    } else if (!this.inserted.includes(row)) {
      this.updated.add(row); // a row inserted by this batch goes in with its final state
    }
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
    const inserted = this.inserted.splice(0);
    const updated = [...this.updated];
    this.updated.clear();
    const audit = this.auditRows.splice(0);
    if (!inserted.length && !updated.length && !audit.length) return;
    const toBump = new Set<string>();
    for (const row of audit) {
      row.version ??= batch.known(row.envId!) ?? null;
      if (row.version === null) toBump.add(row.envId!);
    }
    const rollouts = BoundRows.of<Rollout>(tx, RolloutEntity.meta.className);
    const audits = BoundRows.of<AuditEvent>(tx, AuditEventEntity.meta.className);
    const { rows } = await rawQuery<{ id: string; version: number }>(
      tx,
      `with new_rollouts as (${rollouts.insertStatement()}),
            changed_rollouts as (${rollouts.updateStatement()}),
            locked as (select id from environments where id = any(?::uuid[]) order by id for update),
            bumped as (update environments e set version = e.version + 1, updated_at = ?::timestamptz from locked where e.id = locked.id returning e.id, e.version),
            audit as (${audits.insertStatement({ expressions: { version: 'coalesce(r."version", bumped.version)' }, join: 'left join bumped on bumped.id = r."env_id"' })})
       select id, version from bumped`,
      [rollouts.toJson(inserted), rollouts.toJson(updated), [...toBump], batch.now.toISOString(), audits.toJson(audit)],
    );
    for (const { id, version } of rows) batch.record(id, version);
    if (rows.length !== toBump.size) throw new Error('an environment vanished during a write');
  }
}
