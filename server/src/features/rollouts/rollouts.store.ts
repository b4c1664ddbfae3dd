import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { EnvironmentEntity, LIVE_STATUSES_SQL, PrimitiveEntity, RolloutEntity, type Environment, type Primitive, type PrimitiveKind, type Rollout } from '../../db/entities/index.js';
import { isUuid } from '../common/lookup.js';
import { BoundRows, hotQuery, preparedQuery, rawQuery } from '../common/sql.js';

/**
 * A new, detached rollout row for (primitive, env). Its state fields are placeholders: the
 * caller applies the state machine's `createRollout` transition to it, and commitTransition
 * inserts it.
 */
export function newRolloutRow(env: Pick<Environment, 'id' | 'orgId' | 'projectId'>, primitive: Pick<Primitive, 'id' | 'kind' | 'key'>, now: Date): Rollout {
  return {
    id: randomUUID(),
    orgId: env.orgId,
    projectId: env.projectId,
    envId: env.id,
    primitiveId: primitive.id,
    primitiveKind: primitive.kind,
    primitiveKey: primitive.key,
    status: 'active',
    percent: 0,
    pausedAtPercent: null,
    pausedReason: null,
    rolledBackFromPercent: null,
    seed: '',
    bucketField: '',
    newValue: null,
    gatesRules: true,
    planKey: null,
    plan: null,
    rampStepIdx: null,
    nextStepAt: null,
    stepStartedAt: null,
    guardCheckAt: null,
    stepVersion: null,
    awaitingConvergenceUntil: null,
    rolledBackAt: null,
    rollbackWatchUntil: null,
    rollbackConvergence: null,
    targetIdsCount: 0,
    targetIdsVersion: 0,
    targetListId: null,
    lastAutoRollback: null,
    lastGuardStop: null,
    createdAt: now,
    updatedAt: now,
  };
}

const boundRollouts = (em: EntityManager) => BoundRows.of<Rollout>(em, RolloutEntity.meta.className);

/** A detached rollout with its row version (PostgreSQL's xmin: every update of the row changes it) for commitIfUnchanged. */
export interface ReadRollout {
  row: Rollout;
  rowVersion: string;
}

/**
 * The one definition of a (primitive, environment) pair's current rollout: the live one (active
 * or paused; at most one exists), else the most recent ended one. A subquery over `rollouts x`
 * for the environment and primitive ids given as SQL expressions, answering all of the row's
 * columns and its xmin; every current-rollout lookup embeds it (lateral joins included).
 */
export const currentRolloutSql = (envId: string, primitiveId: string) =>
  `select x.*, x.xmin from rollouts x where x.env_id = ${envId} and x.primitive_id = ${primitiveId}
    order by (x.status in ${LIVE_STATUSES_SQL}) desc, x.created_at desc, x.id desc limit 1`;

/**
 * The current rollout (currentRolloutSql), detached, with its row version. `lock` (inside a
 * transaction) takes the row lock, so concurrent commands on one rollout take turns; the row
 * is then written back through the change set (commitTransition).
 */
export async function readCurrentRollout(em: EntityManager, envId: string, primitiveId: string, opts: { lock?: boolean } = {}): Promise<ReadRollout | null> {
  type Found = { row: Record<string, unknown>; row_version: string };
  const select = (env: string, primitive: string, lock: string) =>
    `select to_jsonb(r) as row, r.xmin::text as row_version from (${currentRolloutSql(env, primitive)}${lock}) r`;
  const [found] = opts.lock
    ? (await rawQuery<Found>(em, select('?', '?', ' for update'), [envId, primitiveId])).rows
    : await hotQuery<Found>(em, 'gradual_current_rollout', select('$1', '$2', ''), [envId, primitiveId]);
  return found ? { row: boundRollouts(em).fromRow(found.row), rowVersion: found.row_version } : null;
}

/** readCurrentRollout's row alone. */
export async function findCurrentRollout(em: EntityManager, envId: string, primitiveId: string, lock = false): Promise<Rollout | null> {
  return (await readCurrentRollout(em, envId, primitiveId, { lock }))?.row ?? null;
}

/**
 * The scheduler's claim: up to `limit` active rollouts whose next step is due at `now`, oldest
 * due first, then (to fill the batch) those whose guarded step's check is due, then those whose
 * step waits for the fleet to converge; row-locked and skipping rows another instance holds (each step applied once). Detached, for commitTransition
 * to write back.
 */
export async function claimDueRollouts(tx: EntityManager, now: Date, limit: number): Promise<Rollout[]> {
  const rows = boundRollouts(tx);
  // Oldest due first, straight from rollouts_due_index. (A tie-break on id made PostgreSQL read
  // and sort every due row, on disk, for each batch: rows due at the same instant are common.)
  const { rows: due } = await rawQuery(
    tx,
    `select ${rows.selectList} from rollouts x where x.status = 'active' and x.next_step_at <= ?
      order by x.next_step_at asc limit ? for update skip locked`,
    [now, limit],
  );
  const claimed = due.map((row) => rows.fromRow(row));
  if (claimed.length >= limit) return claimed;
  // The same from rollouts_guard_check_index; a row due both ways is already claimed (and locked by this transaction).
  const { rows: checks } = await rawQuery(
    tx,
    `select ${rows.selectList} from rollouts x where x.status = 'active' and x.guard_check_at <= ?
      order by x.guard_check_at asc limit ? for update skip locked`,
    [now, limit],
  );
  const ids = new Set(claimed.map((r) => r.id));
  const add = (found: Array<Record<string, unknown>>) => {
    for (const row of found.map((r) => rows.fromRow(r))) {
      if (claimed.length >= limit) break;
      if (!ids.has(row.id)) claimed.push(row);
      ids.add(row.id);
    }
  };
  add(checks);
  if (claimed.length >= limit) return claimed;
  // Steps waiting for the fleet (rollouts_convergence_wait_index): each tick looks at every one.
  const { rows: waiting } = await rawQuery(
    tx,
    `select ${rows.selectList} from rollouts x where x.status = 'active' and x.awaiting_convergence_until is not null
      order by x.awaiting_convergence_until asc limit ? for update skip locked`,
    [limit],
  );
  add(waiting);
  return claimed;
}

/**
 * An environment, one of its project's primitives and that primitive's current rollout, in one
 * statement (the first read of every rollout request): null when the environment does not exist;
 * `primitive` null when the project has no such primitive, `current` when it has no rollout.
 * All detached; the rollout unlocked.
 */
export async function findRolloutTarget(
  em: EntityManager,
  envId: string,
  kind: PrimitiveKind,
  key: string | null,
): Promise<{ env: Environment; primitive: Primitive | null; current: ReadRollout | null } | null> {
  if (!isUuid(envId)) return null;
  const [row] = await hotQuery<{ env: Record<string, unknown>; primitive: Record<string, unknown> | null; rollout: Record<string, unknown> | null; row_version: string | null }>(
    em,
    'gradual_rollout_target',
    `select to_jsonb(e) as env, to_jsonb(p) as primitive, to_jsonb(r) as rollout, r.xmin::text as row_version
       from environments e
       left join primitives p on p.project_id = e.project_id and p.kind = $1 and p.key = $2::text
       left join lateral (${currentRolloutSql('e.id', 'p.id')}) r on true
      where e.id = $3`,
    [kind, key, envId],
  );
  if (!row) return null;
  return {
    env: BoundRows.of<Environment>(em, EnvironmentEntity.meta.className).fromRow(row.env),
    primitive: row.primitive ? BoundRows.of<Primitive>(em, PrimitiveEntity.meta.className).fromRow(row.primitive) : null,
    current: row.rollout ? { row: boundRollouts(em).fromRow(row.rollout), rowVersion: row.row_version! } : null,
  };
}

/** What a rollout path (`/envs/{envId}/{kind}s/{key}/rollout…`) points at, read in one round trip. */
export interface RolloutPathRow {
  orgId: string;
  projectId: string;
  /** null: no such primitive in the environment's project. */
  primitiveId: string | null;
  /** The current rollout (the live one, else the latest terminal one); null when there is none. */
  rolloutId: string | null;
  /** Whether `targetId` is on that rollout's allow-list; null when there is no rollout or no ID was asked. */
  contains: boolean | null;
  /** The environment's version in the same snapshot. */
  envVersion: number;
  /** The rollout's allow-list version and size (0 when there is no rollout). */
  targetIdsVersion: number;
  targetIdsCount: number;
}

/**
 * Environment, primitive, current rollout (currentRolloutSql) and (optionally) one allow-list
 * membership in a single statement: the hot read path of `contains`, which would otherwise cost
 * five sequential round trips. Returns null when the environment does not exist.
 */
export async function findRolloutPath(em: EntityManager, envId: string, kind: PrimitiveKind, key: string, targetId: string | null): Promise<RolloutPathRow | null> {
  if (!isUuid(envId)) return null;
  const rows = await preparedQuery<{
    org_id: string;
    project_id: string;
    version: number;
    primitive_id: string | null;
    rollout_id: string | null;
    target_ids_version: number | null;
    target_ids_count: number | null;
    contains: boolean | null;
  }>(
    em,
    'gradual_rollout_path',
    `select e.org_id, e.project_id, e.version, p.id as primitive_id, r.id as rollout_id, r.target_ids_version, r.target_ids_count,
            case when r.id is null or $1::text is null then null
                 else exists (select 1 from rollout_target_ids t where t.list_id = coalesce(r.target_list_id, r.id) and t.target_id = $1::text) end as contains
       from environments e
       left join primitives p on p.project_id = e.project_id and p.kind = $2 and p.key = $3
       left join lateral (${currentRolloutSql('e.id', 'p.id')}) r on true
      where e.id = $4`,
    [targetId, kind, key, envId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    orgId: row.org_id,
    projectId: row.project_id,
    primitiveId: row.primitive_id,
    rolloutId: row.rollout_id,
    contains: row.contains,
    envVersion: row.version,
    targetIdsVersion: row.target_ids_version ?? 0,
    targetIdsCount: row.target_ids_count ?? 0,
  };
}

/** Current rollouts (currentRolloutSql) of many primitives in one environment, for state lists; detached. */
export async function findCurrentRollouts(em: EntityManager, envId: string, primitiveIds: string[]): Promise<Map<string, Rollout>> {
  const out = new Map<string, Rollout>();
  if (!primitiveIds.length) return out;
  const { rows } = await rawQuery<{ row: Record<string, unknown> }>(
    em,
    `select to_jsonb(r) as row from unnest(?::uuid[]) as p(id) cross join lateral (${currentRolloutSql('?::uuid', 'p.id')}) r`,
    [primitiveIds, envId],
  );
  const mapping = boundRollouts(em);
  for (const { row } of rows) {
    const rollout = mapping.fromRow(row);
    out.set(rollout.primitiveId, rollout);
  }
  return out;
}
