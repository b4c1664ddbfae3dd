import { z } from 'zod';
import {
  ATTRIBUTE_NAME_MAX_LENGTH,
  FLAG_METADATA_KEY_MAX_LENGTH,
  FLAG_METADATA_MAX_ENTRIES,
  FLAG_METADATA_RESERVED_KEYS,
  FLAG_METADATA_STRING_MAX_LENGTH,
  CONFIG_SCHEMA_MAX_LENGTH,
} from '../limits.js';
import { example, named } from '../openapi-meta.js';
import { Id, JsonValue, Name, ResourceKey, Timestamp } from './common.js';
import { Percent, Rollout } from './rollouts.js';
import { VARIANT_REFERENCE, VariantName, Variants } from './variants.js';

export const ConditionOperator = named(
  'ConditionOperator',
  z.enum(['in', 'not_in', 'starts_with', 'ends_with', 'contains', 'gt', 'gte', 'lt', 'lte', 'in_segment', 'not_in_segment']),
  '`in_segment` / `not_in_segment`: `values` are segment keys of the project (the condition holds when the context is in any of them / in none of them); `attribute` is the context attribute matched against the segments\' included and excluded target IDs (usually the project\'s `targetIdField`).',
);

export const Condition = example(
  named(
    'Condition',
    z.object({
      attribute: z.string().min(1).max(ATTRIBUTE_NAME_MAX_LENGTH),
      operator: ConditionOperator,
      values: z.array(z.union([z.string().max(1024), z.number()])).min(1).max(1000),
    }),
  ),
  { attribute: 'email', operator: 'ends_with', values: ['@acme.test'] },
);

export const Rule = example(
  named(
    'Rule',
    z.object({
      description: z.string().max(500).optional(),
      conditions: z.array(Condition).max(50),
      value: JsonValue,
      variant: VariantName.optional().describe(VARIANT_REFERENCE),
    }),
    'All conditions must match (AND); the first matching rule wins. Rules as read carry `value` (a `variant` given on write is stored as its value).',
  ),
  { description: 'Staff first', conditions: [{ attribute: 'email', operator: 'ends_with', values: ['@acme.test'] }], value: true },
);
export type Rule = z.infer<typeof Rule>;
export const Rules = z.array(Rule).max(200);

/** Rules as older flag definitions carried them, with a per-rule rollout percentage (import only). */
export const LegacyRule = named(
  'LegacyRule',
  Rule.extend({ rolloutPercent: Percent.optional() }),
  '`rolloutPercent` is accepted on import only: the first rule with one is hoisted into an env-scoped rollout (see migration warnings).',
);

const RESERVED_METADATA_KEYS: ReadonlySet<string> = new Set(FLAG_METADATA_RESERVED_KEYS);

export const FlagMetadata = example(
  named(
    'FlagMetadata',
    z
      .record(
        z
          .string()
          .min(1)
          .max(FLAG_METADATA_KEY_MAX_LENGTH)
          .regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'a letter, then letters, digits and ".", "_", "-"'),
        z.union([z.string().max(FLAG_METADATA_STRING_MAX_LENGTH), z.number().finite(), z.boolean()]),
      )
      .refine((m) => Object.keys(m).length <= FLAG_METADATA_MAX_ENTRIES, `At most ${FLAG_METADATA_MAX_ENTRIES} entries.`)
      .refine((m) => !Object.keys(m).some((k) => RESERVED_METADATA_KEYS.has(k)), `${FLAG_METADATA_RESERVED_KEYS.join(' and ')} are set by evaluation, not by hand.`),
    `Custom metadata, returned with every evaluation as OpenFeature \`flagMetadata\` and OFREP \`metadata\` (docs/openfeature.md): up to ${FLAG_METADATA_MAX_ENTRIES} entries of strings (up to ${FLAG_METADATA_STRING_MAX_LENGTH} characters), numbers and booleans.`,
  ),
  { owner: 'team-checkout', ticket: 'CHK-123', experiment: false },
);
export type FlagMetadata = z.infer<typeof FlagMetadata>;

export const ConfigSchema = example(
  named(
    'ConfigSchema',
    z.record(z.unknown()),
    `A JSON Schema (draft 2020-12; up to ${CONFIG_SCHEMA_MAX_LENGTH} characters as JSON) that every value of the config must satisfy: its default value, each environment's value and rules, a rollout's candidate and its variants (docs/configs.md). References stay inside the schema (\`#/$defs/…\`); \`pattern\` and \`patternProperties\` are not accepted, and neither is an unknown keyword or \`format\`.`,
  ),
  { type: 'object', properties: { maxItems: { type: 'integer', minimum: 1, maximum: 100 } }, required: ['maxItems'], additionalProperties: false },
);
export type ConfigSchema = z.infer<typeof ConfigSchema>;

export const FlagValueType = named('FlagValueType', z.enum(['boolean', 'string', 'number']));
export type FlagValueType = z.infer<typeof FlagValueType>;

export const Flag = named(
  'Flag',
  z.object({
    id: Id,
    projectId: Id,
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    valueType: FlagValueType,
    defaultValue: JsonValue,
    clientVisible: z.boolean().describe('Client keys (`pub_…`, shipped in web pages) may evaluate it.'),
    tags: z.array(z.string()).describe('Free labels for finding and grouping flags (`team:checkout`, `experiment`).'),
    maintainer: z.string().nullable().describe('Who answers for it: a person\'s email or a team name.'),
    metadata: FlagMetadata,
    variants: Variants,
    archivedAt: Timestamp.nullable().describe('Set while archived: hidden from lists by default, no new rollouts, every environment serves its base value with reason `DISABLED`.'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);
export type Flag = z.infer<typeof Flag>;

export const Config = named(
  'Config',
  z.object({
    id: Id,
    projectId: Id,
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    defaultValue: JsonValue,
    clientVisible: z.boolean().describe('Client keys (`pub_…`, shipped in web pages) may evaluate it.'),
    tags: z.array(z.string()).describe('Free labels for finding and grouping flags (`team:checkout`, `experiment`).'),
    maintainer: z.string().nullable().describe('Who answers for it: a person\'s email or a team name.'),
    metadata: FlagMetadata,
    variants: Variants,
    schema: ConfigSchema.nullable(),
    archivedAt: Timestamp.nullable().describe('Set while archived: hidden from lists by default, no new rollouts, every environment serves its base value with reason `DISABLED`.'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);
export type Config = z.infer<typeof Config>;

const Description = z.string().max(2000);

/** A flag or config tag: lowercase, no spaces, so it can be typed in a filter. */
export const Tag = example(
  z.string().min(1).max(64).regex(/^[a-z0-9][a-z0-9._:/-]*$/, 'lowercase letters, digits and ".", "_", ":", "/", "-", starting with a letter or digit'),
  'team:checkout',
);
export const Tags = z.array(Tag).max(20);
export const Maintainer = z.string().trim().min(1).max(200);

export const CreateFlagRequest = named(
  'CreateFlagRequest',
  z.object({
    key: ResourceKey,
    name: Name,
    description: Description.optional(),
    valueType: FlagValueType.optional(),
    defaultValue: JsonValue,
    defaultVariant: VariantName.optional().describe(VARIANT_REFERENCE),
    variants: Variants.optional(),
    rules: z.array(LegacyRule).max(200).optional(),
    clientVisible: z.boolean().optional(),
    tags: Tags.optional(),
    maintainer: Maintainer.optional(),
    metadata: FlagMetadata.optional(),
  }),
  'Creates the flag and its state (value = defaultValue, the given rules) in every environment of the project. `valueType` defaults to boolean; `clientVisible` to false.',
);

export const CreateConfigRequest = named(
  'CreateConfigRequest',
  z.object({
    key: ResourceKey,
    name: Name,
    description: Description.optional(),
    defaultValue: JsonValue,
    defaultVariant: VariantName.optional().describe(VARIANT_REFERENCE),
    variants: Variants.optional(),
    schema: ConfigSchema.optional(),
    rules: Rules.optional(),
    clientVisible: z.boolean().optional(),
    tags: Tags.optional(),
    maintainer: Maintainer.optional(),
    metadata: FlagMetadata.optional(),
  }),
  'Creates the config and its state (value = defaultValue, the given rules) in every environment of the project. `clientVisible` defaults to false.',
);

export const UpdatePrimitiveRequest = named(
  'UpdatePrimitiveRequest',
  z
    .object({
      name: Name.optional(),
      description: Description.nullable().optional(),
      clientVisible: z.boolean().optional(),
      tags: Tags.optional(),
      maintainer: Maintainer.nullable().optional(),
      metadata: FlagMetadata.optional(),
      variants: Variants.optional(),
      schema: ConfigSchema.nullable().optional(),
    })
    .refine((body) => Object.values(body).some((v) => v !== undefined), 'Send at least one of name, description, clientVisible, tags, maintainer, metadata, variants, schema.'),
  'The definition\'s descriptive fields; omitted fields keep their value, a null `description` or `maintainer` clears it, `tags`, `metadata` and `variants` replace the whole list or map (`{}` clears the metadata or the variants). Changing `clientVisible` changes what client keys evaluate, and changing `metadata` or `variants` what evaluations return, so every environment of the project gets a new ruleset version. A variant in use keeps its name and value (`409 variant_in_use`). `schema` is a config\'s only (null removes it): every value the config holds must satisfy the new one (`400` naming each that does not).',
);

export const PrimitiveListQuery = z.object({
  archived: z
    .enum(['exclude', 'include', 'only'])
    .optional()
    .describe('`exclude` (default): live definitions only; `include`: all; `only`: archived ones.'),
  tag: Tag.optional().describe('Only definitions carrying this tag.'),
});

export const FlagState = named(
  'FlagState',
  z.object({
    key: z.string(),
    envId: Id,
    valueType: FlagValueType,
    value: JsonValue,
    rules: z.array(Rule),
    rollout: Rollout.nullable(),
    updatedAt: Timestamp,
  }),
);
export type FlagState = z.infer<typeof FlagState>;

export const ConfigState = named(
  'ConfigState',
  z.object({
    key: z.string(),
    envId: Id,
    value: JsonValue,
    rules: z.array(Rule),
    rollout: Rollout.nullable(),
    updatedAt: Timestamp,
  }),
);
export type ConfigState = z.infer<typeof ConfigState>;

export const SetValueRequest = named('SetValueRequest', z.object({ value: JsonValue, variant: VariantName.optional().describe(VARIANT_REFERENCE) }));
export const SetRulesRequest = named('SetRulesRequest', z.object({ rules: Rules }));
