import { z } from 'zod';
import { named } from '../openapi-meta.js';
import { Id, JsonValue } from './common.js';
import { Rule } from './primitives.js';
import { PrimitiveKind, RolloutStatus } from './rollouts.js';

export const RulesetRollout = named(
  'RulesetRollout',
  z.object({
    id: Id,
    status: RolloutStatus,
    percent: z.number(),
    seed: z.string(),
    bucketField: z.string(),
    newValue: JsonValue.optional(),
    targetIds: z.array(z.string()),
  }),
  '`newValue` absent: the rollout gates the primitive’s rules instead of serving a value.',
);

export const RulesetPrimitive = named(
  'RulesetPrimitive',
  z.object({
    kind: PrimitiveKind,
    key: z.string(),
    value: JsonValue,
    rules: z.array(Rule),
    rollout: RulesetRollout.nullable(),
  }),
);

export const Ruleset = named(
  'Ruleset',
  z.object({ envId: Id, version: z.number().int(), primitives: z.array(RulesetPrimitive) }),
  'Everything an SDK needs to evaluate the environment locally (live rollouts only).',
);
export type Ruleset = z.infer<typeof Ruleset>;

export const EvaluateRequest = named(
  'EvaluateRequest',
  z.object({
    context: z.record(JsonValue),
    keys: z.array(z.string().min(1).max(128)).max(1000).optional(),
  }),
  'Omit `keys` to evaluate every flag and config of the environment.',
);

export const EvaluationReason = named('EvaluationReason', z.enum(['target_id', 'rollout', 'rule', 'default']));

export const EvaluationResult = named(
  'EvaluationResult',
  z.object({
    kind: PrimitiveKind,
    value: JsonValue,
    reason: EvaluationReason,
    bucket: z.number().nullable(),
  }),
);

export const EvaluateResponse = named(
  'EvaluateResponse',
  z.object({ version: z.number().int(), results: z.record(EvaluationResult) }),
  'Keys that name no flag or config are left out of `results`.',
);
