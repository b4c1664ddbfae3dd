import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, jsonb, timestamp } from './common.js';
import { ProjectEntity } from './project.js';

/** A ramp step as plans and rollouts' plan snapshots store it (domain/rollouts/types.ts RampStep). */
export interface StoredRampStep {
  percent: number;
  holdForSeconds: number;
  requiresApproval?: boolean;
  guard?: { metrics: Array<{ key: string; margin: number; action: 'rollback' | 'pause' }>; minUnitsPerArm: number; maxHoldFactor: number };
  holdFromConvergence?: { instancesPercent: number; timeoutSeconds: number };
}

/** A project-scoped ramp template. Deleting soft-deletes, so the key can be reused and DELETE stays idempotent. */
export const RolloutPlanEntity = defineEntity({
  name: 'RolloutPlan',
  tableName: 'rollout_plans',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid(),
    projectId: p.manyToOne(ProjectEntity).mapToPk().fieldName('project_id').deleteRule('cascade'),
    key: p.text(),
    name: p.text(),
    description: p.text().nullable(),
    rampSteps: jsonb<StoredRampStep[]>(),
    cadence: p.enum(['auto', 'manual']),
    blackoutDaysOfWeek: jsonb<number[]>(),
    blackoutTimezone: p.text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    deletedAt: timestamp().nullable(),
  }),
  indexes: [
    {
      name: 'rollout_plans_live_key_unique',
      expression: 'create unique index "rollout_plans_live_key_unique" on "rollout_plans" ("project_id", "key") where "deleted_at" is null',
    },
  ],
});
export type RolloutPlan = InferEntity<typeof RolloutPlanEntity>;
