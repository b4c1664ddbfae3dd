import type { EntityManager } from '@mikro-orm/postgresql';
import { LIVE_STATUSES, type RolloutPlan as RolloutPlanDto } from '@gradual/contract';
import { RolloutEntity, RolloutPlanEntity, type Project, type RolloutPlan } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { validatePlan, type PlanInput } from '../../domain/rollouts/plan-validation.js';
import { checkIfMatch } from '../common/etag.js';
import { authorize, type Actor, type Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { findProject, iso, mapUniqueViolation } from '../common/lookup.js';
import { transaction } from '../../db/transaction.js';
import { checkGuardMetricKeys } from '../guards/guard-metrics.service.js';

export const toPlanDto = (p: RolloutPlan): RolloutPlanDto => ({
  id: p.id,
  projectId: p.projectId,
  key: p.key,
  name: p.name,
  ...(p.description != null ? { description: p.description } : {}),
  rampSteps: p.rampSteps,
  cadence: p.cadence,
  blackoutDaysOfWeek: p.blackoutDaysOfWeek,
  blackoutTimezone: p.blackoutTimezone,
  createdAt: iso(p.createdAt),
  updatedAt: iso(p.updatedAt),
});

const keyConflict = (key: string) =>
  new DomainError('rollout_plan_key_conflict', `A rollout plan with key "${key}" already exists in this project.`, {
    fields: { key: 'already in use' },
  });

/**
 * A plan belongs to the project, not to one environment or flag: API keys restricted to
 * environments read the plans of projects they hold an environment in, and no key restricted
 * to environments or resources changes them (a plan drives rollouts everywhere it is attached).
 */
async function projectFor(em: EntityManager, caller: Caller, projectId: string, action: 'read' | 'write'): Promise<{ project: Project; actor: Actor }> {
  const project = await findProject(em, projectId);
  const scope = action === 'write' ? { allEnvironments: true, allResources: true } : {};
  const actor = await authorize(em, caller, project.orgId, { action, projectId: project.id, ...scope });
  return { project, actor };
}

async function findPlan(em: EntityManager, projectId: string, key: string): Promise<RolloutPlan> {
  const plan = key.length <= 64 ? await em.findOne(RolloutPlanEntity, { projectId, key, deletedAt: null }) : null;
  if (!plan) throw new DomainError('not_found', `No rollout plan "${key}" in this project.`);
  return plan;
}

function planAudit(tx: EntityManager, caller: Caller, actor: Actor, plan: RolloutPlan, action: 'rollout_plan.created' | 'rollout_plan.updated' | 'rollout_plan.deleted', before: RolloutPlanDto | null, after: RolloutPlanDto | null) {
  recordAudit(tx, caller, actor, {
    orgId: plan.orgId,
    projectId: plan.projectId,
    action,
    resourceType: 'rollout_plan',
    resourceKey: plan.key,
    resourceId: plan.id,
    previousValue: before ?? undefined,
    newValue: after ?? undefined,
  });
}

export async function listPlans(em: EntityManager, caller: Caller, projectId: string): Promise<RolloutPlanDto[]> {
  const { project } = await projectFor(em, caller, projectId, 'read');
  const plans = await em.find(RolloutPlanEntity, { projectId: project.id, deletedAt: null }, { orderBy: { key: 'asc' } });
  return plans.map(toPlanDto);
}

export async function getPlan(em: EntityManager, caller: Caller, projectId: string, key: string): Promise<RolloutPlanDto> {
  const { project } = await projectFor(em, caller, projectId, 'read');
  return toPlanDto(await findPlan(em, project.id, key));
}

export async function createPlan(em: EntityManager, caller: Caller, projectId: string, input: PlanInput): Promise<RolloutPlanDto> {
  const { project, actor } = await projectFor(em, caller, projectId, 'write');
  const plan = validatePlan(input);
  const now = caller.now;
  const row = await mapUniqueViolation(
    () =>
      transaction(em, async (tx) => {
        if (await tx.findOne(RolloutPlanEntity, { projectId: project.id, key: plan.key, deletedAt: null })) throw keyConflict(plan.key);
        await checkGuardMetricKeys(tx, project.id, plan.rampSteps);
        const row = tx.create(RolloutPlanEntity, {
          orgId: project.orgId,
          projectId: project.id,
          key: plan.key,
          name: plan.name,
          description: plan.description ?? null,
          rampSteps: plan.rampSteps,
          cadence: plan.cadence,
          blackoutDaysOfWeek: plan.blackoutDaysOfWeek,
          blackoutTimezone: plan.blackoutTimezone,
          createdAt: now,
          updatedAt: now,
          deletedAt: null,
        });
        planAudit(tx, caller, actor, row, 'rollout_plan.created', null, toPlanDto(row));
        return row;
      }),
    () => keyConflict(plan.key),
  );
  return toPlanDto(row);
}

export type PlanPatch = Partial<Omit<PlanInput, 'key'>>;

/** Re-validates the merged plan. Rollouts keep the snapshot they took; only later attachments see the edit. */
export async function updatePlan(
  em: EntityManager,
  caller: Caller,
  projectId: string,
  key: string,
  patch: PlanPatch,
  ifMatch: string | undefined,
): Promise<RolloutPlanDto> {
  const { project, actor } = await projectFor(em, caller, projectId, 'write');
  const row = await transaction(em, async (tx) => {
    const row = await findPlan(tx, project.id, key);
    const before = toPlanDto(row);
    checkIfMatch(ifMatch, before);
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as PlanPatch;
    const merged = validatePlan({
      key: row.key,
      name: row.name,
      ...(row.description != null ? { description: row.description } : {}),
      rampSteps: row.rampSteps,
      cadence: row.cadence,
      blackoutDaysOfWeek: row.blackoutDaysOfWeek,
      blackoutTimezone: row.blackoutTimezone,
      ...defined,
    });
    const next = { ...before, name: merged.name, rampSteps: merged.rampSteps, cadence: merged.cadence, blackoutDaysOfWeek: merged.blackoutDaysOfWeek, blackoutTimezone: merged.blackoutTimezone };
    if (merged.description !== undefined) next.description = merged.description;
    if (JSON.stringify(next) === JSON.stringify(before)) return row;
    await checkGuardMetricKeys(tx, project.id, merged.rampSteps);
    tx.assign(row, {
      name: merged.name,
      description: merged.description ?? null,
      rampSteps: merged.rampSteps,
      cadence: merged.cadence,
      blackoutDaysOfWeek: merged.blackoutDaysOfWeek,
      blackoutTimezone: merged.blackoutTimezone,
      updatedAt: caller.now,
    });
    planAudit(tx, caller, actor, row, 'rollout_plan.updated', before, toPlanDto(row));
    return row;
  });
  return toPlanDto(row);
}

/** Soft delete: idempotent on an already-deleted plan; refused while a live rollout is attached to it. */
export async function deletePlan(em: EntityManager, caller: Caller, projectId: string, key: string): Promise<void> {
  const { project, actor } = await projectFor(em, caller, projectId, 'write');
  await transaction(em, async (tx) => {
    const row = key.length <= 64 ? await tx.findOne(RolloutPlanEntity, { projectId: project.id, key, deletedAt: null }) : null;
    if (!row) {
      const deleted = key.length <= 64 ? await tx.count(RolloutPlanEntity, { projectId: project.id, key }) : 0;
      if (deleted > 0) return;
      throw new DomainError('not_found', `No rollout plan "${key}" in this project.`);
    }
    const inUse = await tx.count(RolloutEntity, { projectId: project.id, planKey: key, status: { $in: [...LIVE_STATUSES] } });
    if (inUse > 0) {
      throw new DomainError('rollout_plan_in_use', `${inUse} live rollout(s) use plan "${key}"; cancel or detach them first.`, {
        details: { liveRollouts: inUse },
      });
    }
    const before = toPlanDto(row);
    row.deletedAt = caller.now;
    planAudit(tx, caller, actor, row, 'rollout_plan.deleted', before, null);
  });
}
