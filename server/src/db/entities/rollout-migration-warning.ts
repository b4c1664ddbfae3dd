import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, jsonb, timestamp } from './common.js';

/** A flag imported with several per-rule rollout percentages: only the first could become the env-scoped rollout. */
export const RolloutMigrationWarningEntity = defineEntity({
  name: 'RolloutMigrationWarning',
  tableName: 'rollout_migration_warnings',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid().index(),
    envId: p.uuid(),
    flagKey: p.text(),
    rolloutId: p.uuid(),
    ruleIndices: jsonb<number[]>(),
    hoistedRuleIndex: p.integer(),
    createdAt: timestamp(),
  }),
});
export type RolloutMigrationWarning = InferEntity<typeof RolloutMigrationWarningEntity>;
