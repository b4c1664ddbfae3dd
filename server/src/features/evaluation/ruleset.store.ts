import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LIVE_STATUSES, type Ruleset } from '@gradual/contract';
import { EnvironmentEntity, GuardMetricEntity, PrimitiveEntity, PrimitiveStateEntity, RolloutEntity, SegmentEntity, type Environment, type Rollout } from '../../db/entities/index.js';
import { guardedStep } from '../../domain/rollouts/ramp-position.js';
import { rawQuery } from '../common/sql.js';
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

/**
 * The `guard` of each rollout holding at a guarded step, by rollout id: when its analysis began and
 * the SDK events its metrics watch (one read of the project's metrics, only when a step is guarded).
 */
async function readGuards(tx: EntityManager, projectId: string, rollouts: readonly Rollout[]): Promise<Map<string, { since: string; events: string[] }>> {
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
    guards.set(r.id, { since: (r.stepStartedAt ?? r.updatedAt).toISOString(), events });
  }
  return guards;
}

/**
 * Reads everything an SDK needs to evaluate one environment: every flag and
 * config with its base value and rules, and its live rollout with the
 * allow-list (an archived one marked `archived`: everyone gets its base value); the segments
 * their rules use (directly or through other segments) with their rules and target IDs; and
 * which of them are client-visible. One REPEATABLE READ transaction, so the version and the data it
 * describes are one consistent snapshot.
 */
export async function readRuleset(em: EntityManager, envId: string): Promise<RulesetRead> {
  return transaction(em, 
    async (tx) => {
      const env: Environment = await tx.findOneOrFail(EnvironmentEntity, { id: envId });
      const primitives = await tx.find(PrimitiveEntity, { projectId: env.projectId }, { orderBy: { kind: 'asc', key: 'asc' } });
      const states = await tx.find(PrimitiveStateEntity, { envId });
      const rollouts = await tx.find(RolloutEntity, { envId, status: { $in: [...LIVE_STATUSES] } });
      // Each rollout's current list (target_list_id, null: the rollout's own id), by list id.
      const listOf = new Map(rollouts.filter((r) => r.targetIdsCount > 0).map((r) => [r.targetListId ?? r.id, r.id]));
      const targets = new Map<string, string[]>();
      if (listOf.size) {
        const { rows } = await rawQuery<{ list_id: string; ids: string[] }>(
          tx,
          `select list_id, array_agg(target_id order by target_id) as ids from rollout_target_ids where list_id = any(?::uuid[]) group by list_id`,
          [[...listOf.keys()]],
        );
        for (const row of rows) targets.set(listOf.get(row.list_id)!, row.ids);
      }
      const stateOf = new Map(states.map((s) => [s.primitiveId, s]));
      const segments = await readSegmentsUsedBy(tx, env.projectId, primitives.flatMap((p) => stateOf.get(p.id)?.rules ?? []));
      const rolloutOf = new Map(rollouts.map((r) => [r.primitiveId, r]));
      const guards = await readGuards(tx, env.projectId, rollouts);
      const ruleset: Ruleset = {
        envId,
        version: env.version,
        primitives: primitives.flatMap((p) => {
          const state = stateOf.get(p.id);
          if (!state) return [];
          const r = rolloutOf.get(p.id);
          return [
            {
              kind: p.kind,
              key: p.key,
              value: state.value ?? null,
              rules: state.rules,
              rollout: r
                ? {
                    id: r.id,
                    status: r.status,
                    percent: r.percent,
                    seed: r.seed,
                    bucketField: r.bucketField,
                    ...(r.gatesRules ? {} : { newValue: r.newValue ?? null }),
                    targetIds: targets.get(r.id) ?? [],
                    ...(guards.has(r.id) ? { guard: guards.get(r.id)! } : {}),
                  }
                : null,
              ...(p.archivedAt ? { archived: true as const } : {}),
              ...(Object.keys(p.metadata).length ? { metadata: p.metadata } : {}),
              ...(Object.keys(p.variants).length ? { variants: p.variants } : {}),
            },
          ];
        }),
        ...(segments.length ? { segments } : {}),
      };
      const clientVisible = new Set(primitives.filter((p) => p.clientVisible && stateOf.has(p.id)).map(clientVisibleId));
      return { ruleset, clientVisible };
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
}
