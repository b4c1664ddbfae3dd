import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment as EnvironmentDto } from '@gradual/contract';
import { EnvironmentEntity, PrimitiveEntity, PrimitiveStateEntity, type Environment } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, tokenSees, type Caller } from '../access/authorize.js';
import { findEnvironment, findProject, iso, keyInUse, mapUniqueViolation } from '../common/lookup.js';
import { recordAudit } from '../audit/audit.store.js';
import { changeEnvironments, type EnvChangeBus } from './env-changes.js';
import { checkConfirmation, deleteEnvironmentRows, type EnvironmentsDeleted } from './env-delete.js';
import { transaction } from '../../db/transaction.js';

export const toEnvironmentDto = (e: Environment): EnvironmentDto => ({
  id: e.id,
  projectId: e.projectId,
  key: e.key,
  name: e.name,
  version: e.version,
  createdAt: iso(e.createdAt),
});

/**
 * Creates an environment. It starts at version 0 ("nothing written yet": the
 * ruleset answers 503 until the first write); when the project already has
 * flags or configs their states are written here, which is that first write.
 */
export async function createEnvironment(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  projectId: string,
  input: { key: string; name: string },
): Promise<EnvironmentDto> {
  const project = await findProject(em, projectId);
  // A new environment is outside every key's environment list, and it gets the state of every flag and config.
  const actor = await authorize(em, caller, project.orgId, { action: 'write', role: 'admin', projectId, allEnvironments: true, allResources: true });
  const now = caller.now;
  const env = await mapUniqueViolation(
    () =>
      changeEnvironments(em, bus, now, async (changes) => {
        const { tx } = changes;
        if (await tx.findOne(EnvironmentEntity, { projectId, key: input.key })) throw keyInUse('environment', input.key);
        const env = tx.create(EnvironmentEntity, {
          projectId,
          orgId: project.orgId,
          key: input.key,
          name: input.name,
          version: 0,
          createdAt: now,
          updatedAt: now,
        });
        await tx.flush();
        const primitives = await tx.find(PrimitiveEntity, { projectId });
        for (const p of primitives) {
          tx.create(PrimitiveStateEntity, { primitiveId: p.id, envId: env.id, value: p.defaultValue, rules: [], createdAt: now, updatedAt: now });
        }
        if (primitives.length) {
          await tx.flush();
          changes.change(env.id);
          await changes.write();
          env.version = changes.version(env.id)!;
        }
        changes.audit(caller, actor, {
          orgId: project.orgId,
          projectId,
          envId: env.id,
          action: 'environment.created',
          resourceType: 'environment',
          resourceKey: env.key,
          resourceId: env.id,
          version: env.version,
          newValue: { key: env.key, name: env.name },
        });
        return env;
      }),
    () => keyInUse('environment', input.key),
  );
  return toEnvironmentDto(env);
}

export async function listEnvironments(em: EntityManager, caller: Caller, projectId: string): Promise<EnvironmentDto[]> {
  const project = await findProject(em, projectId);
  await authorize(em, caller, project.orgId, { action: 'read', projectId });
  const envs = await em.find(EnvironmentEntity, { projectId }, { orderBy: { createdAt: 'asc', key: 'asc' } });
  return envs.filter((e) => tokenSees(caller, e.id)).map(toEnvironmentDto);
}

export async function getEnvironment(em: EntityManager, caller: Caller, envId: string): Promise<EnvironmentDto> {
  const env = await findEnvironment(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id });
  return toEnvironmentDto(env);
}


/**
 * DELETE /envs/{envId}: an admin or owner, or an API key restricted neither to environments nor
 * to resources, with the environment's key typed again as `confirm`. The environment and
 * everything in it go in one transaction with the audit row `environment.deleted` (its key,
 * name and last version; the API keys it revoked or narrowed): see deleteEnvironmentRows. The
 * definitions stay in the project's other environments. Answers what the route must forget.
 */
export async function deleteEnvironment(em: EntityManager, caller: Caller, envId: string, confirm: string | undefined): Promise<EnvironmentsDeleted> {
  const found = await findEnvironment(em, envId);
  const actor = await authorize(em, caller, found.orgId, { action: 'write', role: 'admin', envId: found.id, projectId: found.projectId, allEnvironments: true, allResources: true });
  checkConfirmation('environment', found.key, confirm);
  return transaction(em, async (tx) => {
    const env = await tx.findOne(EnvironmentEntity, { id: found.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!env) throw new DomainError('not_found', 'Environment not found.');
    const deleted = await deleteEnvironmentRows(tx, caller, actor, env.orgId, [env]);
    recordAudit(tx, caller, actor, {
      orgId: env.orgId,
      projectId: env.projectId,
      envId: env.id,
      action: 'environment.deleted',
      resourceType: 'environment',
      resourceKey: env.key,
      resourceId: env.id,
      previousValue: { key: env.key, name: env.name, version: env.version },
      newValue: { revokedApiKeys: deleted.revokedKeyIds, narrowedApiKeys: deleted.narrowedKeyIds },
    });
    return deleted;
  });
}
