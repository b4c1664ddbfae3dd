import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { SegmentRule } from '@gradual/contract';
import { id, jsonb, timestamp } from './common.js';
import { ProjectEntity } from './project.js';

/**
 * A project's named audience. Its two target-ID lists live in `rollout_target_ids` like a
 * rollout's allow-list (the list ids below are the current ones; a large edit builds a new list
 * and switches to it), so they share the bulk machinery and its speed.
 */
export const SegmentEntity = defineEntity({
  name: 'Segment',
  tableName: 'segments',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid(),
    projectId: p.manyToOne(ProjectEntity).mapToPk().fieldName('project_id').deleteRule('cascade'),
    key: p.text(),
    name: p.text(),
    description: p.text().nullable(),
    /** The contract's segment rules (checked by its schema on the way in). */
    rules: jsonb<SegmentRule[]>(),
    /** Keys of the segments its rules reference (kept with `rules`, for cycle checks and referrer lookups). */
    segmentRefs: jsonb<string[]>().default('[]'),
    includedListId: p.uuid(),
    includedCount: p.integer().default(0),
    excludedListId: p.uuid(),
    excludedCount: p.integer().default(0),
    /** Raised by every edit of either list, in the edit's transaction (in-memory copies are current while unchanged). */
    targetIdsVersion: p.integer().default(0),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
  uniques: [{ properties: ['projectId', 'key'] }],
});
export type Segment = InferEntity<typeof SegmentEntity>;

/** A list of a segment that is not one of its current two (see RolloutSpareTargetList). */
export const SegmentSpareTargetListEntity = defineEntity({
  name: 'SegmentSpareTargetList',
  tableName: 'segment_spare_target_lists',
  properties: (p) => ({
    listId: p.uuid().fieldName('list_id').primary(),
    segmentId: p.uuid().fieldName('segment_id').index(),
  }),
});
export type SegmentSpareTargetList = InferEntity<typeof SegmentSpareTargetListEntity>;
