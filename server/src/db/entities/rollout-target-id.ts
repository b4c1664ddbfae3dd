import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * One ID on an allow-list. Written and read only with set-based SQL (target-ids.store.ts); the
 * entity exists so the schema lives with the others.
 *
 * A list has an id of its own: a rollout's current list is `rollouts.target_list_id` (null: the
 * rollout's own id). A large edit writes a new list beside the current one in short slices and
 * then points the rollout at it in one short transaction, so readers see the old list or the new
 * one, never a part (target-ids.service.ts).
 */
export const RolloutTargetIdEntity = defineEntity({
  name: 'RolloutTargetId',
  tableName: 'rollout_target_ids',
  properties: (p) => ({
    // Deliberately no foreign key: its per-row check doubled the cost of a 100,000-ID add.
    // Every writer holds the list's lock, and a statement-level trigger on rollouts deletes a
    // deleted rollout's lists (migrations ..._target_ids_no_fk and ..._target_id_lists).
    listId: p.uuid().fieldName('list_id').primary(),
    // Bytewise (C) order: the list endpoint pages by ID identically on every backend and locale.
    targetId: p.text().columnType('text collate "C"').primary(),
  }),
});
export type RolloutTargetId = InferEntity<typeof RolloutTargetIdEntity>;

/**
 * A list of a rollout that is not its current one: being written by a large edit, left behind by
 * one that failed or whose process died, or replaced and waiting to be deleted. The next writer of
 * the rollout's list deletes them (target-ids.service.ts).
 */
export const RolloutSpareTargetListEntity = defineEntity({
  name: 'RolloutSpareTargetList',
  tableName: 'rollout_spare_target_lists',
  properties: (p) => ({
    listId: p.uuid().fieldName('list_id').primary(),
    rolloutId: p.uuid().fieldName('rollout_id').index(),
  }),
});
export type RolloutSpareTargetList = InferEntity<typeof RolloutSpareTargetListEntity>;
