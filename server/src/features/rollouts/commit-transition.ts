import type { EntityManager } from '@mikro-orm/postgresql';
import type { Rollout as RolloutDto } from '@gradual/contract';
import { AuditEventEntity, PrimitiveStateEntity, type AuditEvent, type Primitive, type Rollout } from '../../db/entities/index.js';
import type { Transition } from '../../domain/rollouts/types.js';
import type { Actor, Caller } from '../access/authorize.js';
import { recordAudit, type AuditEntry } from '../audit/audit.store.js';
import type { EnvWriteBatch } from '../environments/env-changes.js';
import { rawQuery } from '../shared/raw-sql.js';
import { applyState, toRolloutDto } from './rollout.mapper.js';

export interface TransitionContext {
  tx: EntityManager;
  batch: EnvWriteBatch;
  actor: Actor;
  caller: Pick<Caller, 'reason' | 'now'>;
  /**
   * Where the audit rows go. Default: recordAudit in `tx` (written by the unit of work's
   * flush). The scheduler passes an AuditRowBuffer and inserts the rows itself.
   */
  audit?: AuditRowBuffer;
}

/**
 * Persists one state-machine transition of `row` in the caller's transaction:
 * the row, the env version bump and one audit row per action. A rollout that
 * completes makes its candidate the primitive's base value in the same
 * transaction (a rollout gating rules simply stops gating). A transition that
 * changed only scheduling metadata (a blackout deferral) is saved without an
 * audit row or version bump: nothing an SDK evaluates has changed.
 */
export async function commitTransition(
  ctx: TransitionContext,
  row: Rollout,
  /** Only its identity is used: the scheduler builds it from the row's copy (keys never change). */
  primitive: Pick<Primitive, 'id' | 'kind' | 'key'>,
  transition: Transition,
  /** The representation before the command; null for a new rollout. */
  before: RolloutDto | null,
): Promise<void> {
  if (!transition.changed) return;
  const { tx, batch, actor, caller } = ctx;
  const audit = (entry: AuditEntry) => (ctx.audit ? ctx.audit.record(caller, actor, entry) : recordAudit(tx, caller, actor, entry));
  applyState(row, transition.rollout, caller.now);
  if (!transition.actions.length) return;
  const version = await batch.version(row.envId);
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
      version,
      previousValue: before ?? undefined,
      newValue: after,
    });
  }
  if (transition.actions.includes('rollout.completed') && !row.gatesRules) {
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
      version,
      previousValue: previous,
      newValue: state.value,
    });
  }
}

/** audit_events column types the bound insert below knows how to pass as JSON. */
const JSON_PASSABLE_COLUMNS = new Set(['uuid', 'text', 'int', 'integer', 'timestamptz', 'jsonb']);

/**
 * Audit rows of many transitions, inserted with one bound-parameter statement instead of by
 * the unit of work's flush (the scheduler's batches). A flush inlines every value into the
 * SQL text, and MikroORM escapes each string literal character by character (pg's
 * escapeLiteral): with two rollout snapshots (~2 KB of JSON) per audit row that was the largest
 * single cost of a scheduler batch, in CPU and in garbage. The rows are still built by
 * recordAudit, identically, in a scratch fork of the transaction's EntityManager that is never
 * flushed; insert() writes them in the caller's transaction.
 */
export class AuditRowBuffer {
  private readonly scratch: EntityManager;
  private readonly rows: AuditEvent[] = [];

  constructor(tx: EntityManager) {
    this.scratch = tx.fork({ clear: true });
  }

  record(caller: Parameters<typeof recordAudit>[1], actor: Actor, entry: AuditEntry): AuditEvent {
    const row = recordAudit(this.scratch, caller, actor, entry);
    this.rows.push(row);
    return row;
  }

  /** Inserts the recorded rows in `tx` (one statement, the rows as one jsonb parameter). */
  async insert(tx: EntityManager): Promise<number> {
    if (!this.rows.length) return 0;
    const meta = tx.getMetadata().get(AuditEventEntity.meta.className);
    // Column = the property's field, value = the property as JSON: Dates become ISO instants,
    // JSON properties stay nested (jsonb_to_recordset turns a JSON null into SQL NULL, as the
    // ORM writes a JS null). Refuse anything this mapping does not cover.
    const props = meta.props.filter((p) => p.persist !== false);
    for (const p of props) {
      if (p.kind !== 'scalar' || p.fieldNames.length !== 1 || !JSON_PASSABLE_COLUMNS.has(p.columnTypes[0]!)) {
        throw new Error(`AuditRowBuffer cannot write ${meta.className}.${p.name} (${p.kind}, ${p.columnTypes.join(', ')})`);
      }
    }
    const columns = props.map((p) => `"${p.fieldNames[0]}"`).join(', ');
    const definitions = props.map((p) => `"${p.fieldNames[0]}" ${p.columnTypes[0]}`).join(', ');
    const records = this.rows.map((row) => {
      const record: Record<string, unknown> = {};
      for (const p of props) record[p.fieldNames[0]!] = (row as Record<string, unknown>)[p.name] ?? null;
      return record;
    });
    const { rowCount } = await rawQuery(
      tx,
      `insert into "${meta.tableName}" (${columns}) select ${columns} from jsonb_to_recordset(?::jsonb) as r(${definitions})`,
      [JSON.stringify(records)],
    );
    this.rows.length = 0;
    return rowCount;
  }
}
