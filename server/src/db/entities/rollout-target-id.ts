import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { RolloutEntity } from './rollout.js';

/**
 * One allow-listed ID of a rollout. Written and read only with set-based SQL
 * (target-ids.store.ts); the entity exists so the schema lives with the others.
 */
export const RolloutTargetIdEntity = defineEntity({
  name: 'RolloutTargetId',
  tableName: 'rollout_target_ids',
  properties: (p) => ({
    rolloutId: p.manyToOne(RolloutEntity).mapToPk().fieldName('rollout_id').deleteRule('cascade').primary(),
    // Bytewise (C) order: the list endpoint pages by ID identically on every backend and locale.
    targetId: p.text().columnType('text collate "C"').primary(),
  }),
});
export type RolloutTargetId = InferEntity<typeof RolloutTargetIdEntity>;
