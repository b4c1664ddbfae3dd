import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment as EnvironmentDto } from '@gradual/contract';
import { EnvironmentEntity, PrimitiveEntity, PrimitiveStateEntity, type Environment } from '../../db/entities/index.js';
import { authorize, tokenSees, type Caller } from '../access/authorize.js';
import { findEnvironment, findProject, iso, keyInUse, mapUniqueViolation } from '../common/lookup.js';
import { changeEnvironments, type EnvChangeBus } from './env-changes.js';

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

