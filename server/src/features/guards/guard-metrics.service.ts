import type { EntityManager } from '@mikro-orm/postgresql';
import { GUARD_METRICS_PER_PROJECT_MAX, LIVE_STATUSES, type GuardMetric as GuardMetricDto, type PrometheusSource } from '@gradual/contract';
import { GuardMetricEntity, RolloutEntity, RolloutPlanEntity, type GuardMetric, type Project } from '../../db/entities/index.js';
import { transaction } from '../../db/transaction.js';
import { DomainError } from '../../domain/errors.js';
import type { RampStep } from '../../domain/rollouts/types.js';
import { authorize, type Actor, type Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { findProject, iso, mapUniqueViolation } from '../common/lookup.js';
import { rawQuery } from '../common/sql.js';

export interface CreateGuardMetricInput {
  key: string;
  name: string;
  description?: string | undefined;
  kind: 'count' | 'mean';
  worse: 'higher' | 'lower';
  event?: string | undefined;
  prometheus?: PrometheusSource | undefined;
}

/** What this server can read metrics from besides SDK events. */
export interface MetricSources {
  /** PROMETHEUS_URL is set. */
  prometheus: boolean;
}

/**
 * A Prometheus source fits its metric's kind and the server reads one: a count metric's events
 * are one counter; a mean metric needs its observations, their sum and their squares' sum.
 */
function checkPrometheusSource(input: CreateGuardMetricInput, sources: MetricSources): void {
  const source = input.prometheus;
  if (!source) return;
  if (!sources.prometheus) {
    throw new DomainError('invalid_request', 'This server reads no Prometheus.', { fields: { prometheus: 'needs the server setting PROMETHEUS_URL' } });
  }
  const fields: Record<string, string> = {};
  for (const part of ['sum', 'sumSquares'] as const) {
    if (input.kind === 'count' && source[part] !== undefined) fields[`prometheus.${part}`] = 'only for mean metrics: a count metric reads its events alone';
    if (input.kind === 'mean' && source[part] === undefined) fields[`prometheus.${part}`] = 'required for a mean metric (with events, the number of observations)';
  }
  if (Object.keys(fields).length > 0) throw new DomainError('invalid_request', 'The Prometheus source does not fit the metric\'s kind.', { fields });
}

export const toGuardMetricDto = (m: GuardMetric): GuardMetricDto => ({
  key: m.key,
  name: m.name,
  description: m.description,
  kind: m.kind,
  worse: m.worse,
  event: m.event,
  prometheus: m.prometheus ?? null,
  createdAt: iso(m.createdAt),
  updatedAt: iso(m.updatedAt),
});

/** The same permissions as rollout plans: metrics belong to the project, and plans in every environment name them. */
async function metricsProject(em: EntityManager, caller: Caller, projectId: string, action: 'read' | 'write'): Promise<{ project: Project; actor: Actor }> {
  const project = await findProject(em, projectId);
  const scope = action === 'write' ? { allEnvironments: true, allResources: true } : {};
  const actor = await authorize(em, caller, project.orgId, { action, projectId: project.id, ...scope });
  return { project, actor };
}

/**
 * Serializes, per project, what creates or deletes guard metrics and what makes a plan name them:
 * a metric is never deleted while a plan being written names it, and the per-project cap holds
 * across instances.
 */
export async function lockGuardMetrics(tx: EntityManager, projectId: string): Promise<void> {
  await rawQuery(tx, `select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`gradual.guard-metrics.${projectId}`]);
}

export async function listGuardMetrics(em: EntityManager, caller: Caller, projectId: string): Promise<GuardMetricDto[]> {
  const { project } = await metricsProject(em, caller, projectId, 'read');
  const rows = await em.find(GuardMetricEntity, { projectId: project.id }, { orderBy: { key: 'asc' } });
  return rows.map(toGuardMetricDto);
}

export async function createGuardMetric(em: EntityManager, caller: Caller, projectId: string, input: CreateGuardMetricInput, sources: MetricSources): Promise<GuardMetricDto> {
  const { project, actor } = await metricsProject(em, caller, projectId, 'write');
  checkPrometheusSource(input, sources);
  const conflict = () => new DomainError('guard_metric_key_conflict', `A guard metric with key "${input.key}" already exists in this project.`, { fields: { key: 'already in use' } });
  const row = await mapUniqueViolation(
    () =>
      transaction(em, async (tx) => {
        await lockGuardMetrics(tx, project.id);
        if (await tx.findOne(GuardMetricEntity, { projectId: project.id, key: input.key })) throw conflict();
        if ((await tx.count(GuardMetricEntity, { projectId: project.id })) >= GUARD_METRICS_PER_PROJECT_MAX) {
          throw new DomainError('quota_exceeded', `A project can have at most ${GUARD_METRICS_PER_PROJECT_MAX} guard metrics.`, {
            details: { dimension: 'guard_metrics_per_project', limit: GUARD_METRICS_PER_PROJECT_MAX },
          });
        }
        const row = tx.create(GuardMetricEntity, {
          orgId: project.orgId,
          projectId: project.id,
          key: input.key,
          name: input.name,
          description: input.description ?? '',
          kind: input.kind,
          worse: input.worse,
          event: input.event ?? input.key,
          prometheus: input.prometheus ?? null,
          createdAt: caller.now,
          updatedAt: caller.now,
        });
        metricAudit(tx, caller, actor, row, 'guard_metric.created', null, toGuardMetricDto(row));
        return row;
      }),
    conflict,
  );
  return toGuardMetricDto(row);
}

/** Idempotent on a metric already deleted; refused while a plan or a live rollout's plan watches it. */
export async function deleteGuardMetric(em: EntityManager, caller: Caller, projectId: string, key: string): Promise<void> {
  const { project, actor } = await metricsProject(em, caller, projectId, 'write');
  await transaction(em, async (tx) => {
    await lockGuardMetrics(tx, project.id);
    const row = await tx.findOne(GuardMetricEntity, { projectId: project.id, key });
    if (!row) return;
    const watching = (steps: readonly RampStep[] | undefined) => (steps ?? []).some((s) => s.guard?.metrics.some((m) => m.key === key));
    const plans = (await tx.find(RolloutPlanEntity, { projectId: project.id, deletedAt: null })).filter((p) => watching(p.rampSteps)).map((p) => p.key);
    const live = await tx.find(RolloutEntity, { projectId: project.id, status: { $in: [...LIVE_STATUSES] }, plan: { $ne: null } });
    const rollouts = live.filter((r) => watching(r.plan?.rampSteps)).map((r) => ({ envId: r.envId, kind: r.primitiveKind, key: r.primitiveKey }));
    if (plans.length > 0 || rollouts.length > 0) {
      throw new DomainError('guard_metric_in_use', `Guard metric "${key}" is watched by ${plans.length} plan(s) and ${rollouts.length} live rollout(s); remove it from their guards first.`, {
        details: { plans, rollouts },
      });
    }
    const before = toGuardMetricDto(row);
    tx.remove(row);
    metricAudit(tx, caller, actor, row, 'guard_metric.deleted', before, null);
  });
}

/**
 * A plan's guards may name only metrics the project defines: every unknown key is a field of
 * `400 rollout_plan_invalid_ramp`. Runs in the plan's transaction, under lockGuardMetrics.
 */
export async function checkGuardMetricKeys(tx: EntityManager, projectId: string, steps: readonly RampStep[]): Promise<void> {
  const named = steps.flatMap((s, i) => (s.guard?.metrics ?? []).map((m, j) => ({ key: m.key, field: `rampSteps.${i}.guard.metrics.${j}.key` })));
  if (named.length === 0) return;
  await lockGuardMetrics(tx, projectId);
  const known = new Set((await tx.find(GuardMetricEntity, { projectId, key: { $in: [...new Set(named.map((n) => n.key))] } })).map((m) => m.key));
  const fields = Object.fromEntries(named.filter((n) => !known.has(n.key)).map((n) => [n.field, `no guard metric "${n.key}" in this project`]));
  if (Object.keys(fields).length > 0) throw new DomainError('rollout_plan_invalid_ramp', 'The ramp steps are invalid.', { fields });
}

function metricAudit(tx: EntityManager, caller: Caller, actor: Actor, metric: GuardMetric, action: 'guard_metric.created' | 'guard_metric.deleted', before: GuardMetricDto | null, after: GuardMetricDto | null) {
  recordAudit(tx, caller, actor, {
    orgId: metric.orgId,
    projectId: metric.projectId,
    action,
    resourceType: 'guard_metric',
    resourceKey: metric.key,
    resourceId: metric.id,
    previousValue: before ?? undefined,
    newValue: after ?? undefined,
  });
}
