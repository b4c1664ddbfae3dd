import type { EntityManager } from '@mikro-orm/postgresql';
import { KEY_MAX_LENGTH, TARGET_ID_MAX_LENGTH } from '@gradual/contract';
import type { PrimitiveKind, Rollout } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, type Caller } from '../access/authorize.js';
import { changeEnvironments, type EnvChangeBus, type EnvChangeSet } from '../environments/env-changes.js';
import type { EnvDirectory } from '../environments/env-directory.js';
import { DEFAULT_TARGET_ID_PAGE, decodeCursor, editAction, editList, pageOf, type EditRecord, type EditResults, type ListOwner, type ListState, type TargetIdEdit } from '../common/target-lists.js';
import { ROLLOUT_SPARE_LISTS } from '../common/target-lists.store.js';
import type { TargetIdIndex } from './target-id-index.js';
import { resolveTarget, type RolloutTarget } from './rollouts.service.js';
import { findCurrentRollout, findRolloutPath } from './rollouts.store.js';
import * as store from './target-ids.store.js';

export type { TargetIdEdit };

const noRollout = () => new DomainError('not_found', 'There is no rollout for this primitive in this environment.');

/** The current rollout's list as the shared list edits see it. */
const stateOf = (rollout: Rollout): ListState => ({
  ownerId: rollout.id,
  listId: store.listIdOf(rollout),
  count: rollout.targetIdsCount,
  version: rollout.targetIdsVersion,
});

/**
 * Changes the allow-list of the current rollout and answers what changed (the shared list edit,
 * common/target-lists.ts: small edits in one transaction, large ones in slices into a new list).
 * The commit points the current rollout at the list, bumps its environment's version and writes
 * the `rollout.target_ids_*` audit row.
 */
export async function editTargetIds<E extends TargetIdEdit>(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  kind: PrimitiveKind,
  envId: string,
  key: string,
  edit: E,
  ids: string[],
): Promise<EditResults[E]> {
  const target = await resolveTarget(em, caller, kind, envId, key, 'write');
  const owner: ListOwner = {
    em,
    lockKey: `gradual.target-ids.${target.env.id}.${target.primitive.id}`,
    spares: ROLLOUT_SPARE_LISTS,
    async read(em) {
      const rollout = await findCurrentRollout(em, target.env.id, target.primitive.id);
      if (!rollout) throw noRollout();
      return stateOf(rollout);
    },
    transaction: (first, work) =>
      changeEnvironments(em, bus, caller.now, async (changes) => {
        const { tx } = changes;
        await first(tx);
        const rollout: Rollout | null = await findCurrentRollout(tx, target.env.id, target.primitive.id, true);
        if (!rollout) throw noRollout();
        return work({
          tx,
          state: stateOf(rollout),
          commit: (listId, count, record) => {
            recordEdit(changes, caller, target, rollout, listId, count, record);
            return Promise.resolve();
          },
        });
      }),
  };
  return editList(owner, edit, ids);
}

/** Points the rollout at its new list, and the edit's version bump and audit row. */
function recordEdit(changes: EnvChangeSet, caller: Caller, target: RolloutTarget, rollout: Rollout, listId: string, count: number, record: EditRecord): void {
  const { edit, requested, changed, before } = record;
  rollout.targetListId = listId;
  rollout.targetIdsCount = count;
  rollout.updatedAt = caller.now;
  rollout.targetIdsVersion += 1; // in-memory copies of the list are stale from this commit
  changes.rollout(rollout, false);
  changes.change(target.env.id);
  changes.audit(caller, target.actor, {
    orgId: target.env.orgId,
    projectId: target.env.projectId,
    envId: target.env.id,
    action: `rollout.target_ids_${editAction(edit)}`,
    resourceType: 'rollout',
    resourceKey: target.primitive.key,
    resourceId: rollout.id,
    previousValue: { targetIdsCount: before },
    newValue: {
      targetIdsCount: count,
      requested,
      ...(edit !== 'replace' ? { [edit === 'add' ? 'added' : 'removed']: changed } : {}),
    },
  });
}

export async function listTargetIds(
  em: EntityManager,
  caller: Caller,
  kind: PrimitiveKind,
  envId: string,
  key: string,
  query: { cursor?: string | undefined; limit?: number | undefined },
): Promise<{ items: string[]; nextCursor?: string }> {
  const { env, primitive } = await resolveTarget(em, caller, kind, envId, key, 'read');
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  const rollout = await findCurrentRollout(em, env.id, primitive.id);
  if (!rollout) throw noRollout();
  const limit = query.limit ?? DEFAULT_TARGET_ID_PAGE;
  return pageOf(await store.pageTargetIds(em, rollout.id, after, limit), limit);
}

/** What a contains check can answer from besides the database (AppDeps provides both). */
export interface ContainsSources {
  envs: EnvDirectory;
  targetIds: TargetIdIndex;
}

/**
 * The hot read path (SDK-side checks against million-ID lists). From memory when this instance
 * holds the allow-list as of the environment's current version (only the access check remains);
 * otherwise one statement finds environment, primitive, current rollout and the membership, and
 * the checks run in resolveTarget's order (environment, access, primitive, rollout), so the
 * answers match every other rollout path. `source` says which answered (the route counts them).
 */
export async function containsTargetId(
  em: EntityManager,
  caller: Caller,
  sources: ContainsSources,
  kind: PrimitiveKind,
  envId: string,
  key: string,
  targetId: string,
): Promise<{ contains: boolean; source: 'memory' | 'database' }> {
  // Longer keys name nothing and longer IDs are never on a list (the add endpoints reject them).
  const askable = targetId.length <= TARGET_ID_MAX_LENGTH;
  const env = sources.envs.peek(envId);
  const known = env && askable && key.length <= KEY_MAX_LENGTH ? sources.targetIds.lookup(envId, kind, key, env.version, targetId) : undefined;
  if (known) {
    await authorize(em, caller, known.orgId, {
      action: 'read',
      envId,
      resourceKey: key,
    });
    return { contains: known.contains, source: 'memory' };
  }
  const path = await findRolloutPath(em, envId, kind, key, askable ? targetId : null);
  if (!path) throw new DomainError('not_found', 'Environment not found.');
  await authorize(em, caller, path.orgId, {
    action: 'read',
    envId,
    resourceKey: key,
  });
  if (!path.primitiveId || key.length > KEY_MAX_LENGTH) throw new DomainError('not_found', `No ${kind} "${key}" in this project.`);
  if (!path.rolloutId) throw noRollout();
  // The memory path needs the environment's version: the directory learns an environment checked before it was polled.
  if (!env) void sources.envs.get(em, envId).catch(() => undefined);
  return { contains: path.contains === true, source: 'database' };
}
