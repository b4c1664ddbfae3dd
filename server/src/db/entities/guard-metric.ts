import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { PrometheusSource } from '@gradual/contract';
import { id, jsonb, timestamp } from './common.js';
import { ProjectEntity } from './project.js';
import { RolloutEntity } from './rollout.js';

/** A metric guarded ramp steps can watch (docs/guards.md); plans name it by key. */
export const GuardMetricEntity = defineEntity({
  name: 'GuardMetric',
  tableName: 'guard_metrics',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid(),
    projectId: p.manyToOne(ProjectEntity).mapToPk().fieldName('project_id').deleteRule('cascade'),
    key: p.text(),
    name: p.text(),
    description: p.text(),
    kind: p.enum(['count', 'mean']),
    worse: p.enum(['higher', 'lower']),
    /** The SDK event (`track(event, …)`) it counts or averages. */
    event: p.text(),
    /** Set: read from Prometheus instead (features/guards/prometheus-source.ts). */
    prometheus: jsonb<PrometheusSource>().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
  uniques: [{ properties: ['projectId', 'key'] }],
});
export type GuardMetric = InferEntity<typeof GuardMetricEntity>;

/**
 * What one arm of a guarded step did in one minute, summed from SDK reports (docs/guards.md): its
 * exposed units (metric ''), or one metric event's count, Σ value and Σ value². Keyed by the
 * rollout and the percent the reporting SDK evaluated with, so a report from before a step change
 * never counts for the new step.
 */
export const GuardSampleEntity = defineEntity({
  name: 'GuardSample',
  tableName: 'guard_samples',
  properties: (p) => ({
    rolloutId: p.manyToOne(RolloutEntity).mapToPk().fieldName('rollout_id').deleteRule('cascade').primary(),
    percent: p.double().$type<number>().primary(),
    minute: timestamp().primary(),
    arm: p.enum(['treatment', 'control']).primary(),
    /** The SDK event name; '' for the arm's exposed units. */
    metric: p.text().primary(),
    units: p.bigint('number'),
    events: p.bigint('number'),
    sum: p.double().$type<number>(),
    sumSquares: p.double().$type<number>(),
  }),
});
export type GuardSample = InferEntity<typeof GuardSampleEntity>;
