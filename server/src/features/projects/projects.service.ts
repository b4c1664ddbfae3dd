import { isDeepStrictEqual } from 'node:util';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Project as ProjectDto } from '@gradual/contract';
import { EnvironmentEntity, ProjectEntity, type Project } from '../../db/entities/index.js';
import { authorize, tokenScope, type Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { findOrgBySlug, findProject, iso, keyInUse, mapUniqueViolation } from '../common/lookup.js';
import { DomainError } from '../../domain/errors.js';
import { checkConfirmation, deleteEnvironmentRows, type EnvironmentsDeleted } from '../environments/env-delete.js';
import { transaction } from '../../db/transaction.js';

export const DEFAULT_TARGET_ID_FIELD = 'userId';

export const toProjectDto = (p: Project): ProjectDto => ({
  id: p.id,
  orgId: p.orgId,
  key: p.key,
  name: p.name,
  targetIdField: p.targetIdField,
  createdAt: iso(p.createdAt),
  updatedAt: iso(p.updatedAt),
});

const snapshot = (p: Project) => ({ key: p.key, name: p.name, targetIdField: p.targetIdField });

export async function createProject(
  em: EntityManager,
  caller: Caller,
  slug: string,
  input: { key: string; name: string; targetIdField?: string | undefined },
): Promise<ProjectDto> {
  const org = await findOrgBySlug(em, slug);
  const actor = await authorize(em, caller, org.id, { action: 'write', role: 'admin', allEnvironments: true, allResources: true });
  const now = caller.now;
  const project = await mapUniqueViolation(
    () =>
      transaction(em, async (tx) => {
        if (await tx.findOne(ProjectEntity, { orgId: org.id, key: input.key })) throw keyInUse('project', input.key);
        const project = tx.create(ProjectEntity, {
          orgId: org.id,
          key: input.key,
          name: input.name,
          targetIdField: input.targetIdField ?? DEFAULT_TARGET_ID_FIELD,
          createdAt: now,
          updatedAt: now,
        });
        recordAudit(tx, caller, actor, {
          orgId: org.id,
          projectId: project.id,
          action: 'project.created',
          resourceType: 'project',
          resourceKey: project.key,
          resourceId: project.id,
          newValue: snapshot(project),
        });
        return project;
      }),
    () => keyInUse('project', input.key),
  );
  return toProjectDto(project);
}

/** An API key restricted to environments lists the projects those environments belong to. */
export async function listProjects(em: EntityManager, caller: Caller, slug: string): Promise<ProjectDto[]> {
  const org = await findOrgBySlug(em, slug);
  await authorize(em, caller, org.id, { action: 'read' });
  const environments = tokenScope(caller)?.environments;
  const where: Record<string, unknown> = { orgId: org.id };
  if (environments) {
    const held = environments.length ? await em.find(EnvironmentEntity, { orgId: org.id, id: { $in: environments } }, { fields: ['projectId'] }) : [];
    if (!held.length) return [];
    where.id = { $in: [...new Set(held.map((e) => e.projectId))] };
  }
  const projects = await em.find(ProjectEntity, where, { orderBy: { key: 'asc' } });
  return projects.map(toProjectDto);
}

export async function getProject(em: EntityManager, caller: Caller, id: string): Promise<ProjectDto> {
  const project = await findProject(em, id);
  await authorize(em, caller, project.orgId, { action: 'read', projectId: project.id });
  return toProjectDto(project);
}

export async function updateProject(
  em: EntityManager,
  caller: Caller,
  id: string,
  patch: { name?: string | undefined; targetIdField?: string | undefined },
): Promise<ProjectDto> {
  const found = await findProject(em, id);
  // The target ID field and the name hold for every environment: no key restricted to some environments or resources may change them.
  const actor = await authorize(em, caller, found.orgId, { action: 'write', role: 'admin', projectId: found.id, allEnvironments: true, allResources: true });
  const updated = await transaction(em, async (tx) => {
    const project = await tx.findOneOrFail(ProjectEntity, { id });
    const before = snapshot(project);
    const after = { ...before, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
    if (isDeepStrictEqual(before, after)) return project;
    tx.assign(project, { ...after, updatedAt: caller.now });
    recordAudit(tx, caller, actor, {
      orgId: project.orgId,
      projectId: project.id,
      action: 'project.updated',
      resourceType: 'project',
      resourceKey: project.key,
      resourceId: project.id,
      previousValue: before,
      newValue: after,
    });
    return project;
  });
  return toProjectDto(updated);
}

/**
 * DELETE /projects/{id}: an admin or owner, or an API key restricted neither to environments nor
 * to resources, with the project's key typed again as `confirm`. One transaction, the project
 * and its environments locked: its environments go as DELETE /envs/{envId} deletes one
 * (deleteEnvironmentRows: proposals, rollback fire history, API keys' environment lists, and
 * through the foreign keys states, rollouts, target IDs, rollback secrets, usage), then the
 * project row, whose foreign keys cascade to its flags and configs, rollout plans, segments
 * (their target-ID lists by trigger) and webhook subscriptions with their deliveries. The audit
 * row `project.deleted` names the project and its environments; the organization's audit log
 * keeps the project's history. Answers what the route must forget.
 */
export async function deleteProject(em: EntityManager, caller: Caller, id: string, confirm: string | undefined): Promise<EnvironmentsDeleted> {
  const found = await findProject(em, id);
  const actor = await authorize(em, caller, found.orgId, { action: 'write', role: 'admin', projectId: found.id, allEnvironments: true, allResources: true });
  checkConfirmation('project', found.key, confirm);
  return transaction(em, async (tx) => {
    const project = await tx.findOne(ProjectEntity, { id: found.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!project) throw new DomainError('not_found', 'Project not found.');
    const envs = await tx.find(EnvironmentEntity, { projectId: project.id }, { orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const deleted = await deleteEnvironmentRows(tx, caller, actor, project.orgId, envs);
    await tx.nativeDelete(ProjectEntity, { id: project.id });
    recordAudit(tx, caller, actor, {
      orgId: project.orgId,
      projectId: project.id,
      action: 'project.deleted',
      resourceType: 'project',
      resourceKey: project.key,
      resourceId: project.id,
      previousValue: { ...snapshot(project), environments: envs.map((e) => e.key).sort() },
      newValue: { revokedApiKeys: deleted.revokedKeyIds, narrowedApiKeys: deleted.narrowedKeyIds },
    });
    return deleted;
  });
}
