import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TARGET_ID_MAX_LENGTH, type SegmentTargetList } from '@gradual/contract';
import { SegmentEntity, type Segment } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import type { Caller } from '../access/authorize.js';
import { DEFAULT_TARGET_ID_PAGE, decodeCursor, editAction, editList, pageOf, type EditResults, type ListOwner, type ListState, type TargetIdEdit } from '../common/target-lists.js';
import { SEGMENT_SPARE_LISTS } from '../common/target-lists.store.js';
import { changeEnvironments, type EnvChangeBus } from '../environments/env-changes.js';
import { changeEnvironmentsUsing, findSegment, segmentProject } from './segments.service.js';
import * as store from './segments.store.js';

/*
 * A segment's two target-ID lists (included, excluded), edited with the same machinery, limits
 * and atomicity as a rollout's allow-list (common/target-lists.ts); the commit raises the
 * segment's list version and bumps every environment that evaluates the segment.
 */

const stateOf = (segment: Segment, list: SegmentTargetList): ListState =>
  list === 'included'
    ? {
        ownerId: segment.id,
        listId: segment.includedListId,
        count: segment.includedCount,
        version: segment.targetIdsVersion,
      }
    : {
        ownerId: segment.id,
        listId: segment.excludedListId,
        count: segment.excludedCount,
        version: segment.targetIdsVersion,
      };

const gone = (key: string) => new DomainError('not_found', `No segment "${key}" in this project.`);

/** Adds, removes or replaces IDs of a segment's list (see editList). Audit actions `segment.target_ids_*`. */
export async function editSegmentList<E extends TargetIdEdit>(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  projectId: string,
  key: string,
  list: SegmentTargetList,
  edit: E,
  ids: string[],
): Promise<EditResults[E]> {
  const { project, actor } = await segmentProject(em, caller, projectId, 'write');
  const segment = await findSegment(em, project.id, key);
  const owner: ListOwner = {
    em,
    lockKey: `gradual.segment-ids.${segment.id}.${list}`,
    spares: SEGMENT_SPARE_LISTS,
    async read(em) {
      const current = await em.findOne(SegmentEntity, { id: segment.id }, { refresh: true });
      if (!current) throw gone(key);
      return stateOf(current, list);
    },
    transaction: (first, work) =>
      changeEnvironments(em, bus, caller.now, async (changes) => {
        const { tx } = changes;
        await first(tx);
        const current = await tx.findOne(SegmentEntity, { id: segment.id }, { refresh: true, lockMode: LockMode.PESSIMISTIC_WRITE });
        if (!current) throw gone(key);
        return work({
          tx,
          state: stateOf(current, list),
          commit: async (listId, count, { edit, requested, changed, before }) => {
            if (list === 'included') {
              current.includedListId = listId;
              current.includedCount = count;
            } else {
              current.excludedListId = listId;
              current.excludedCount = count;
            }
            current.targetIdsVersion += 1;
            current.updatedAt = caller.now;
            await tx.flush();
            await changeEnvironmentsUsing(changes, project.id, current.key);
            changes.audit(caller, actor, {
              orgId: current.orgId,
              projectId: current.projectId,
              action: `segment.target_ids_${editAction(edit)}`,
              resourceType: 'segment',
              resourceKey: current.key,
              resourceId: current.id,
              previousValue: { list, targetIdsCount: before },
              newValue: {
                list,
                targetIdsCount: count,
                requested,
                ...(edit !== 'replace' ? { [edit === 'add' ? 'added' : 'removed']: changed } : {}),
              },
            });
          },
        });
      }),
  };
  return editList(owner, edit, ids);
}

export async function listSegmentTargetIds(
  em: EntityManager,
  caller: Caller,
  projectId: string,
  key: string,
  list: SegmentTargetList,
  query: { cursor?: string | undefined; limit?: number | undefined },
): Promise<{ items: string[]; nextCursor?: string }> {
  const { project } = await segmentProject(em, caller, projectId, 'read');
  const segment = await findSegment(em, project.id, key);
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  const limit = query.limit ?? DEFAULT_TARGET_ID_PAGE;
  return pageOf(await store.pageSegmentList(em, segment.id, list, after, limit), limit);
}

export async function segmentListContains(em: EntityManager, caller: Caller, projectId: string, key: string, list: SegmentTargetList, targetId: string): Promise<{ contains: boolean }> {
  const { project } = await segmentProject(em, caller, projectId, 'read');
  const segment = await findSegment(em, project.id, key);
  // Longer IDs are never on a list (the add endpoints reject them).
  if (targetId.length > TARGET_ID_MAX_LENGTH) return { contains: false };
  return {
    contains: await store.segmentListContains(em, segment.id, list, targetId),
  };
}
