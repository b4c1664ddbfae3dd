import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { Rule } from '@gradual/contract';
import { id, jsonb, timestamp, type JsonValue } from './common.js';
import { EnvironmentEntity } from './environment.js';
import { PrimitiveEntity } from './primitive.js';

/** A primitive's value and rules in one environment. */
export const PrimitiveStateEntity = defineEntity({
  name: 'PrimitiveState',
  tableName: 'primitive_states',
  properties: (p) => ({
    id: id(),
    primitiveId: p.manyToOne(PrimitiveEntity).mapToPk().fieldName('primitive_id').deleteRule('cascade'),
    envId: p.manyToOne(EnvironmentEntity).mapToPk().fieldName('env_id').deleteRule('cascade').index(),
    /** Any JSON; see Primitive.defaultValue about null. */
    value: jsonb<JsonValue>().nullable(),
    /** The contract's rules (checked by its schema on the way in). */
    rules: jsonb<Rule[]>(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
  uniques: [{ properties: ['primitiveId', 'envId'] }],
});
export type PrimitiveState = InferEntity<typeof PrimitiveStateEntity>;
