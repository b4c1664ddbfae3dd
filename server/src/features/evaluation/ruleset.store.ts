import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LiveStatus, Rule, Ruleset } from '@gradual/contract';
import { GuardMetricEntity, LIVE_STATUSES_SQL, SegmentEntity, type JsonValue, type PrimitiveKind, type StoredPlanSnapshot } from '../../db/entities/index.js';
import { guardedStep } from '../../domain/rollouts/ramp-position.js';
import { hotQuery } from '../common/sql.js';
import { readLists } from '../common/target-lists.store.js';
import { reachableSegments, segmentKeysOf, type RuleConditions } from '../../domain/segments/references.js';
import { transaction } from '../../db/transaction.js';

/** A ruleset as read, with what the server keeps beside it: which primitives client keys may evaluate. */
export interface RulesetRead {
  ruleset: Ruleset;
  /** The client-visible primitives, as clientVisibleId names them. */
  clientVisible: ReadonlySet<string>;
}

/** How a ruleset primitive is named in RulesetRead.clientVisible (a flag and a config may share a key). */
export const clientVisibleId = (p: { kind: string; key: string }) => `${p.kind}:${p.key}`;

/**
 * The segments of the project that `rules` use, directly or through other segments, with their
 * rules and target IDs, by key.
 */
async function readSegmentsUsedBy(tx: EntityManager, projectId: string, rules: readonly RuleConditions[]): Promise<NonNullable<Ruleset['segments']>> {
  const named = segmentKeysOf(rules);
  if (!named.length) return [];
  const rows = await tx.find(SegmentEntity, { projectId }, { orderBy: { key: 'asc' } });
  const used = reachableSegments(new Map(rows.map((s) => [s.key, s.segmentRefs])), named);
  const segments = rows.filter((s) => used.has(s.key));
  const lists = await readLists(tx, segments.flatMap((s) => [...(s.includedCount > 0 ? [s.includedListId] : []), ...(s.excludedCount > 0 ? [s.excludedListId] : [])]));
  return segments.map((s) => ({ key: s.key, rules: s.rules, included: lists.get(s.includedListId) ?? [], excluded: lists.get(s.excludedListId) ?? [] }));
}

/**
 * The ruleset with only `primitives` (a client key's or a resource-restricted key's view) and the
 * segments those use; `segments` is left out when they use none.
 */
export function rulesetOf(ruleset: Ruleset, primitives: Ruleset['primitives']): Ruleset {
  const { segments: all, ...rest } = ruleset;
  if (!all?.length) return { ...rest, primitives };
  const used = reachableSegments(new Map(all.map((s) => [s.key, segmentKeysOf(s.rules)])), segmentKeysOf(primitives.flatMap((p) => p.rules)));
  const segments = all.filter((s) => used.has(s.key));
  return { ...rest, primitives, ...(segments.length ? { segments } : {}) };
}

/** A rollout as the ruleset read takes it: what the ruleset shows, and what finds its guarded step. */
interface RolloutRow {
  id: string;
  primitiveId: string;
  status: LiveStatus;
  percent: number;
  seed: string;
  bucketField: string;
  gatesRules: boolean;
  newValue: JsonValue | null;
  targetIds: string[];
  plan: StoredPlanSnapshot | null;
  rampStepIdx: number | null;
  /** When the current step's analysis began (its hold, else the last update), in ms since the epoch. */
  sinceMs: number;
}

/** A flag or config with its state in the environment (one without a state is not in the ruleset). */
interface PrimitiveRow {
  id: string;
  kind: PrimitiveKind;
  key: string;
  clientVisible: boolean;
  archived: boolean;
  metadata: Record<string, string | number | boolean>;
  variants: Record<string, unknown>;
  value: JsonValue | null;
  rules: Rule[];
}

interface RulesetRow {
  version: number;
  projectId: string;
  primitives: PrimitiveRow[];
  rollouts: RolloutRow[];
}

/**
 * An environment's version with its flags and configs, their states and their live rollouts (each
 * with its allow-list, sorted): one statement, so one snapshot, and one round trip.
 */
const RULESET_READ = `
  select e.version, e.project_id::text as "projectId",
    coalesce((
      select json_agg(json_build_object(
               'id', p.id, 'kind', p.kind, 'key', p.key, 'clientVisible', p.client_visible, 'archived', p.archived_at is not null,
               'metadata', p.metadata, 'variants', p.variants, 'value', s.value, 'rules', s.rules)
             order by p.kind, p.key)
        from primitives p
        join primitive_states s on s.primitive_id = p.id and s.env_id = e.id
       where p.project_id = e.project_id), '[]'::json) as primitives,
    coalesce((
      select json_agg(json_build_object(
               'id', r.id, 'primitiveId', r.primitive_id, 'status', r.status, 'percent', r.percent, 'seed', r.seed,
               'bucketField', r.bucket_field, 'gatesRules', r.gates_rules, 'newValue', r.new_value,
               'plan', r.plan, 'rampStepIdx', r.ramp_step_idx,
               'sinceMs', floor(extract(epoch from coalesce(r.step_started_at, r.updated_at)) * 1000),
               'targetIds', case when r.target_ids_count > 0 then coalesce((
                 select json_agg(t.target_id order by t.target_id) from rollout_target_ids t where t.list_id = coalesce(r.target_list_id, r.id)
               ), '[]'::json) else '[]'::json end))
        from rollouts r
       where r.env_id = e.id and r.status in ${LIVE_STATUSES_SQL}), '[]'::json) as rollouts
  from environments e
  where e.id = $1`;

async function readRulesetRow(em: EntityManager, envId: string): Promise<RulesetRow> {
  const [row] = await hotQuery<RulesetRow>(em, 'ruleset_read', RULESET_READ, [envId]);
  if (!row) throw new Error(`readRuleset: no environment ${envId}`);
  return row;
}

/**
 * The `guard` of each rollout holding at a guarded step, by rollout id: when its analysis began and
 * the SDK events its metrics watch (one read of the project's metrics, only when a step is guarded).
 */
async function readGuards(tx: EntityManager, projectId: string, rollouts: readonly RolloutRow[]): Promise<Map<string, { since: string; events: string[] }>> {
  const steps = rollouts.flatMap((r) => {
    const step = guardedStep(r);
    return step ? [{ r, keys: step.guard.metrics.map((m) => m.key) }] : [];
  });
  const guards = new Map<string, { since: string; events: string[] }>();
  if (steps.length === 0) return guards;
  const metrics = await tx.find(GuardMetricEntity, { projectId, key: { $in: [...new Set(steps.flatMap((s) => s.keys))] } });
  // SDKs count only the events of metrics they report; a Prometheus metric is read by the server.
  const eventOf = new Map(metrics.filter((m) => !m.prometheus).map((m) => [m.key, m.event]));
  for (const { r, keys } of steps) {
    const events = [...new Set(keys.flatMap((k) => eventOf.get(k) ?? []))].sort();
    guards.set(r.id, { since: new Date(r.sinceMs).toISOString(), events });
  }
  return guards;
}

/**
 * Reads everything an SDK needs to evaluate one environment: every flag and
 * config with its base value and rules, and its live rollout with the
 * allow-list (an archived one marked `archived`: everyone gets its base value); the segments
 * their rules use (directly or through other segments) with their rules and target IDs; and
 * which of them are client-visible.
 *
 * One statement when no rule names a segment and no rollout holds at a guarded step (the
 * propagation of a change waits on this read); otherwise that statement and the segments' and
 * metrics' reads in one REPEATABLE READ transaction. Either way the version and the data it
 * describes are one consistent snapshot.
 */
export async function readRuleset(em: EntityManager, envId: string): Promise<RulesetRead> {
  const row = await readRulesetRow(em, envId);
  const needsMore = row.primitives.some((p) => segmentKeysOf(p.rules).length > 0) || row.rollouts.some((r) => guardedStep(r) !== undefined);
  if (!needsMore) return rulesetFrom(envId, row, [], new Map());
  return transaction(
    em,
    async (tx) => {
      const read = await readRulesetRow(tx, envId);
      const segments = await readSegmentsUsedBy(tx, read.projectId, read.primitives.flatMap((p) => p.rules));
      return rulesetFrom(envId, read, segments, await readGuards(tx, read.projectId, read.rollouts));
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
}

function rulesetFrom(envId: string, row: RulesetRow, segments: NonNullable<Ruleset['segments']>, guards: Map<string, { since: string; events: string[] }>): RulesetRead {
  const rolloutOf = new Map(row.rollouts.map((r) => [r.primitiveId, r]));
  const ruleset: Ruleset = {
    envId,
    version: row.version,
    primitives: row.primitives.map((p) => {
      const r = rolloutOf.get(p.id);
      return {
        kind: p.kind,
        key: p.key,
        value: p.value ?? null,
        rules: p.rules,
        rollout: r
          ? {
              id: r.id,
              status: r.status,
              percent: r.percent,
              seed: r.seed,
              bucketField: r.bucketField,
              ...(r.gatesRules ? {} : { newValue: r.newValue ?? null }),
              targetIds: r.targetIds,
              ...(guards.has(r.id) ? { guard: guards.get(r.id)! } : {}),
            }
          : null,
        ...(p.archived ? { archived: true as const } : {}),
        ...(Object.keys(p.metadata).length ? { metadata: p.metadata } : {}),
        ...(Object.keys(p.variants).length ? { variants: p.variants } : {}),
      };
    }),
    ...(segments.length ? { segments } : {}),
  };
  const clientVisible = new Set(row.primitives.filter((p) => p.clientVisible).map(clientVisibleId));
  return { ruleset, clientVisible };
}
