import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, jsonb, timestamp, type JsonValue } from './common.js';
import { ProjectEntity } from './project.js';

export const PRIMITIVE_KINDS = ['flag', 'config'] as const;
export type PrimitiveKind = (typeof PRIMITIVE_KINDS)[number];
export const VALUE_TYPES = ['boolean', 'string', 'number', 'json'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

/** Flags and configs share one table: same lifecycle, states, rollouts and audit. */
export const PrimitiveEntity = defineEntity({
  name: 'Primitive',
  tableName: 'primitives',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid(),
    projectId: p.manyToOne(ProjectEntity).mapToPk().fieldName('project_id').deleteRule('cascade'),
    kind: p.enum([...PRIMITIVE_KINDS]),
    key: p.text(),
    name: p.text(),
    description: p.text().nullable(),
    valueType: p.enum([...VALUE_TYPES]),
    /** Any JSON. Nullable because MikroORM writes a JS `null` as SQL NULL (JSON null and SQL NULL read back alike). */
    defaultValue: jsonb<JsonValue>().nullable(),
    /** Client keys (shipped in web pages) may evaluate it. */
    clientVisible: p.boolean().default(false),
    /** Free labels (the contract's `Tag`s), in the order given. */
    tags: jsonb<string[]>().default('[]'),
    /** A person's email or a team name; free text. */
    maintainer: p.text().nullable(),
    /** Custom metadata (the contract's `FlagMetadata`): returned with every evaluation. */
    metadata: jsonb<Record<string, string | number | boolean>>().default('{}'),
    /** Declared variants (the contract's `Variants`, name → value): evaluation names the served value after them. */
    variants: jsonb<Record<string, unknown>>().default('{}'),
    /** A config's JSON Schema (the contract's `ConfigSchema`): every value written must satisfy it. Null: any JSON. */
    schema: jsonb<Record<string, unknown>>().nullable(),
    /** Set while archived: hidden from lists by default, every environment serves its base value (reason DISABLED). */
    archivedAt: timestamp().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
  uniques: [{ properties: ['projectId', 'kind', 'key'] }],
});
export type Primitive = InferEntity<typeof PrimitiveEntity>;
