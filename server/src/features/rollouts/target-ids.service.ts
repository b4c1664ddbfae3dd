import type { EntityManager } from '@mikro-orm/postgresql';
import { KEY_MAX_LENGTH, TARGET_ID_MAX_LENGTH, type TargetIdsAdded, type TargetIdsCount, type TargetIdsRemoved } from '@gradual/contract';
import type { PrimitiveKind, Rollout } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, type Caller } from '../access/authorize.js';
import { changeEnvironments, type EnvChangeBus } from '../environments/env-changes.js';
import type { EnvDirectory } from '../environments/env-directory.js';
import type { TargetIdIndex } from './target-id-index.js';
import { resolveTarget } from './rollouts.service.js';
import { findCurrentRollout, findRolloutPath } from './rollouts.store.js';
import * as store from './target-ids.store.js';

export const DEFAULT_TARGET_ID_PAGE = 1000;

const noRollout = () => new DomainError('not_found', 'There is no rollout for this primitive in this environment.');

export type TargetIdEdit = 'add' | 'remove' | 'replace';

/** What each edit answers: the IDs it changed (add, remove) and the list's new length. */
interface EditResults {
  add: TargetIdsAdded;
  remove: TargetIdsRemoved;
  replace: TargetIdsCount;
}
const editResult: { [E in TargetIdEdit]: (changed: number, count: number) => EditResults[E] } = {
  add: (added, count) => ({ added, count }),
  remove: (removed, count) => ({ removed, count }),
  replace: (_changed, count) => ({ count }),
};

/**
 * Changes the allow-list of the current rollout: the IDs, then (one statement, the change
 * set's) the rollout's targetIdsCount, the env version and an audit row (counts, not the IDs);
 * all commit together.
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
  const { env, primitive, actor } = await resolveTarget(em, caller, kind, envId, key, 'write');
  return changeEnvironments(em, bus, caller.now, async (changes) => {
    const { tx } = changes;
    const rollout: Rollout | null = await findCurrentRollout(tx, env.id, primitive.id, true);
    if (!rollout) throw noRollout();
    const before = rollout.targetIdsCount;
    let changed: number;
    if (edit === 'add') {
      changed = await store.addTargetIds(tx, rollout.id, ids, before === 0);
      rollout.targetIdsCount = before + changed;
    } else if (edit === 'remove') {
      changed = await store.removeTargetIds(tx, rollout.id, ids);
      rollout.targetIdsCount = before - changed;
    } else {
      rollout.targetIdsCount = await store.replaceTargetIds(tx, rollout.id, ids);
      changed = rollout.targetIdsCount === before && before === 0 ? 0 : 1;
    }
    if (changed > 0) {
      rollout.updatedAt = caller.now;
      rollout.targetIdsVersion += 1; // in-memory copies of the list are stale from this commit
      changes.rollout(rollout, false);
      changes.change(env.id);
      changes.audit(caller, actor, {
        orgId: env.orgId,
        projectId: env.projectId,
        envId: env.id,
        action: `rollout.target_ids_${edit === 'add' ? 'added' : edit === 'remove' ? 'removed' : 'replaced'}`,
        resourceType: 'rollout',
        resourceKey: primitive.key,
        resourceId: rollout.id,
        previousValue: { targetIdsCount: before },
        newValue: { targetIdsCount: rollout.targetIdsCount, requested: ids.length, ...(edit !== 'replace' ? { [edit === 'add' ? 'added' : 'removed']: changed } : {}) },
      });
    }
    return editResult[edit](changed, rollout.targetIdsCount);
  });
}

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!id || id.length > TARGET_ID_MAX_LENGTH || Buffer.from(id, 'utf8').toString('base64url') !== cursor) {
    throw new DomainError('invalid_request', 'The cursor is invalid.', { fields: { cursor: 'invalid cursor' } });
  }
  return id;
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
  const items = await store.pageTargetIds(em, rollout.id, after, limit);
  // nextCursor only when the page is full (the spec's rule): a full last page costs one empty request.
  return items.length === limit ? { items, nextCursor: Buffer.from(items[items.length - 1]!, 'utf8').toString('base64url') } : { items };
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
    await authorize(em, caller, known.orgId, { action: 'read', envId, resourceKey: key });
    return { contains: known.contains, source: 'memory' };
  }
  const path = await findRolloutPath(em, envId, kind, key, askable ? targetId : null);
  if (!path) throw new DomainError('not_found', 'Environment not found.');
  await authorize(em, caller, path.orgId, { action: 'read', envId, resourceKey: key });
  if (!path.primitiveId || key.length > KEY_MAX_LENGTH) throw new DomainError('not_found', `No ${kind} "${key}" in this project.`);
  if (!path.rolloutId) throw noRollout();
  // The memory path needs the environment's version: the directory learns an environment checked before it was polled.
  if (!env) void sources.envs.get(em, envId).catch(() => undefined);
  return { contains: path.contains === true, source: 'database' };
}
