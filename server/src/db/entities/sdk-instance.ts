import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { EnvironmentEntity } from './environment.js';
import { timestamp } from './common.js';

/**
 * The convergence ledger (features/convergence): each SDK instance's latest acknowledgement in an
 * environment. Written and read with SQL (convergence.store.ts); defined here so the schema is the ORM's.
 */
export const SdkInstanceEntity = defineEntity({
  name: 'SdkInstance',
  tableName: 'sdk_instances',
  properties: (p) => ({
    envId: p.manyToOne(EnvironmentEntity).mapToPk().fieldName('env_id').deleteRule('cascade').primary(),
    instanceId: p.text().primary(),
    sdkName: p.text(),
    sdkVersion: p.text(),
    service: p.text().nullable(),
    mode: p.text(),
    version: p.integer(),
    lastSeen: timestamp(),
  }),
  indexes: [{ properties: ['envId', 'lastSeen'] }],
});
export type SdkInstance = InferEntity<typeof SdkInstanceEntity>;

/** When an SDK instance first acknowledged each version, and whether it moved to it from another (the time to converge). */
export const SdkInstanceVersionEntity = defineEntity({
  name: 'SdkInstanceVersion',
  tableName: 'sdk_instance_versions',
  properties: (p) => ({
    envId: p.manyToOne(EnvironmentEntity).mapToPk().fieldName('env_id').deleteRule('cascade').primary(),
    version: p.integer().primary(),
    instanceId: p.text().primary(),
    firstAckedAt: timestamp(),
    moved: p.boolean(),
  }),
});
export type SdkInstanceVersion = InferEntity<typeof SdkInstanceVersionEntity>;
