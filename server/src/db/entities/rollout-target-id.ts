import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * One allow-listed ID of a rollout. Written and read only with set-based SQL
 * (target-ids.store.ts); the entity exists so the schema lives with the others.
 */
export const RolloutTargetIdEntity = defineEntity({
  name: 'RolloutTargetId',
  tableName: 'rollout_target_ids',
  properties: (p) => ({
    // Deliberately no foreign key: its per-row check doubled the cost of a 100,000-ID add.
    // Every writer holds the rollout's row lock (so the rollout exists), and a statement-level
    // trigger on rollouts deletes a deleted rollout's IDs (migration ..._target_ids_no_fk).
    rolloutId: p.uuid().fieldName('rollout_id').primary(),
    // Bytewise (C) order: the list endpoint pages by ID identically on every backend and locale.
    targetId: p.text().columnType('text collate "C"').primary(),
  }),
});
export type RolloutTargetId = InferEntity<typeof RolloutTargetIdEntity>;
