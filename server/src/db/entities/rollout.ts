import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { LIVE_STATUSES, ROLLOUT_STATUSES, type GuardStop, type RollbackConvergence } from '@gradual/contract';
import { id, jsonb, timestamp, type JsonValue } from './common.js';
import { EnvironmentEntity } from './environment.js';
import { PrimitiveEntity, PRIMITIVE_KINDS } from './primitive.js';
import type { StoredRampStep } from './rollout-plan.js';

/** The live statuses as an SQL list, `('active', 'paused')`: the one live predicate of the index and the queries. */
export const LIVE_STATUSES_SQL = `(${LIVE_STATUSES.map((status) => `'${status}'`).join(', ')})`;
export const PAUSED_REASONS = ['user', 'approval_gate', 'auto_rollback', 'guard', 'convergence'] as const;

/** What a rollout copied from its plan at attach time (see domain/rollouts/types.ts PlanSnapshot). */
export interface StoredPlanSnapshot {
  key: string;
  rampSteps: StoredRampStep[];
  cadence: 'auto' | 'manual';
  blackoutDaysOfWeek: number[];
  blackoutTimezone: string;
}

/**
 * The env-scoped companion of a flag or config. At most one live (active or
 * paused) rollout per primitive and environment (partial unique index); ended
 * rollouts are kept for history.
 */
export const RolloutEntity = defineEntity({
  name: 'Rollout',
  tableName: 'rollouts',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid(),
    projectId: p.uuid(),
    envId: p.manyToOne(EnvironmentEntity).mapToPk().fieldName('env_id').deleteRule('cascade'),
    primitiveId: p.manyToOne(PrimitiveEntity).mapToPk().fieldName('primitive_id').deleteRule('cascade'),
    primitiveKind: p.enum([...PRIMITIVE_KINDS]),
    primitiveKey: p.text(),
    status: p.enum([...ROLLOUT_STATUSES]),
    percent: p.double().$type<number>(),
    pausedAtPercent: p.double().$type<number>().nullable(),
    pausedReason: p.enum([...PAUSED_REASONS]).nullable(),
    rolledBackFromPercent: p.double().$type<number>().nullable(),
    seed: p.text(),
    bucketField: p.text(),
    /** The candidate; meaningless when gatesRules is true. */
    newValue: jsonb<JsonValue>().nullable(),
    /** newValue was omitted: the rollout gates the primitive's rules instead of serving a value. */
    gatesRules: p.boolean(),
    planKey: p.text().nullable(),
    plan: jsonb<StoredPlanSnapshot>().nullable(),
    rampStepIdx: p.integer().nullable(),
    nextStepAt: timestamp().nullable(),
    /** When the current step's hold began (domain/rollouts/types.ts): a guarded step's analysis starts here. */
    stepStartedAt: timestamp().nullable(),
    /** When the scheduler next checks the guarded step this rollout holds at; null when it holds at none. */
    guardCheckAt: timestamp().nullable(),
    /**
     * The environment version of the rollout's latest audited change. A row written with
     * PENDING_VERSION takes the version its write gives the environment (features/environments/env-changes.ts).
     */
    stepVersion: p.integer().nullable(),
    /** While the current step holds from convergence and waits for the fleet: when it pauses if the fleet is not there. */
    awaitingConvergenceUntil: timestamp().nullable(),
    /** When the last rollback (an alert's, a guard's or a person's) committed. */
    rolledBackAt: timestamp().nullable(),
    /** While the scheduler watches the last rollback reach the fleet: until when. */
    rollbackWatchUntil: timestamp().nullable(),
    /** What the watch of the last rollback recorded (the contract's RollbackConvergence), or null. */
    rollbackConvergence: jsonb<RollbackConvergence>().nullable(),
    targetIdsCount: p.integer(),
    /**
     * Raised by every edit that changes the allow-list, in the edit's transaction: an in-memory
     * copy of the list (the target-ID index of the contains check) is current exactly while this is unchanged.
     */
    targetIdsVersion: p.integer().default(0),
    /** The allow-list's id in rollout_target_ids; null: the rollout's own id (a list never replaced). */
    targetListId: p.uuid().nullable(),
    /** The rollback fire that last paused this rollout (banner data), or null. */
    lastAutoRollback: jsonb<{ firedAt: string; secretId: string; secretName: string; parsedMonitorUrl: string | null }>().nullable(),
    /** The guarded step check that last stopped this rollout (the contract's GuardStop), or null. */
    lastGuardStop: jsonb<GuardStop>().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
  indexes: [
    {
      name: 'rollouts_live_unique',
      expression:
        `create unique index "rollouts_live_unique" on "rollouts" ("env_id", "primitive_id") where "status" in ${LIVE_STATUSES_SQL}`,
    },
    { properties: ['envId', 'primitiveId', 'createdAt'] },
    {
      // The scheduler's scan: due auto-cadence rollouts.
      name: 'rollouts_due_index',
      expression: 'create index "rollouts_due_index" on "rollouts" ("next_step_at") where "status" = \'active\' and "next_step_at" is not null',
    },
    {
      // The scheduler's other scan: guarded steps whose check is due.
      name: 'rollouts_guard_check_index',
      expression: 'create index "rollouts_guard_check_index" on "rollouts" ("guard_check_at") where "status" = \'active\' and "guard_check_at" is not null',
    },
    {
      // The scheduler's third scan: steps waiting for the fleet to converge.
      name: 'rollouts_convergence_wait_index',
      expression:
        'create index "rollouts_convergence_wait_index" on "rollouts" ("awaiting_convergence_until") where "status" = \'active\' and "awaiting_convergence_until" is not null',
    },
    {
      // The scheduler's watch of rollbacks until the fleet serves them.
      name: 'rollouts_rollback_watch_index',
      expression: 'create index "rollouts_rollback_watch_index" on "rollouts" ("rollback_watch_until") where "rollback_watch_until" is not null',
    },
    { properties: ['projectId', 'planKey'] },
  ],
});
export type Rollout = InferEntity<typeof RolloutEntity>;

/** A rollout's stepVersion before its write: the write gives it the environment's new version. */
export const PENDING_VERSION = -1;
