import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { jsonb, timestamp } from './common.js';
import { EnvironmentEntity } from './environment.js';
import { PrimitiveEntity } from './primitive.js';
import { ProjectEntity } from './project.js';

/** Evaluations of one flag or config variant in one environment during one hour (UTC), summed from reports. */
export const UsageHourEntity = defineEntity({
  name: 'UsageHour',
  tableName: 'usage_hours',
  properties: (p) => ({
    envId: p.manyToOne(EnvironmentEntity).mapToPk().fieldName('env_id').deleteRule('cascade').primary(),
    primitiveId: p.manyToOne(PrimitiveEntity).mapToPk().fieldName('primitive_id').deleteRule('cascade').primary(),
    variant: p.text().primary(),
    hour: timestamp().primary(),
    count: p.bigint('number'),
    /** The latest report's window end that counted here (the per-environment "last evaluated"). */
    lastSeenAt: timestamp(),
  }),
  indexes: [{ properties: ['primitiveId', 'hour'] }],
});
export type UsageHour = InferEntity<typeof UsageHourEntity>;

/**
 * How many evaluations one reporter's usage reports added to one hour (UTC): an API key's, a
 * client key's per client address, a signed-in user's. Reports stop counting at the hourly cap
 * (features/usage); hours before the previous one are deleted by the periodic usage write.
 */
export const UsageBudgetEntity = defineEntity({
  name: 'UsageBudget',
  tableName: 'usage_budgets',
  properties: (p) => ({
    /** `key:<api key id>`, `client:<client key id>:<client address>` or `user:<user id>`. */
    subject: p.text().primary(),
    hour: timestamp().primary(),
    used: p.bigint('number'),
  }),
  indexes: [{ properties: ['hour'] }],
});
export type UsageBudget = InferEntity<typeof UsageBudgetEntity>;

/** One key a code base's type check looked at: how many uses fail to compile without it. */
export interface CodeReferenceCheckRow {
  primitiveId: string;
  references: number;
  locations: string[];
}

/**
 * A code base's latest type check of keys of a project (`gradual flags stale --report`), one row
 * per repository, replaced by its next report. Keys are kept by primitive id, so a key deleted and
 * created again is not covered by an old check.
 */
export const CodeReferenceReportEntity = defineEntity({
  name: 'CodeReferenceReport',
  tableName: 'code_reference_reports',
  properties: (p) => ({
    projectId: p.manyToOne(ProjectEntity).mapToPk().fieldName('project_id').deleteRule('cascade').primary(),
    repository: p.text().primary(),
    commit: p.text().nullable(),
    checkedAt: timestamp(),
    checks: jsonb<CodeReferenceCheckRow[]>(),
  }),
});
export type CodeReferenceReport = InferEntity<typeof CodeReferenceReportEntity>;
