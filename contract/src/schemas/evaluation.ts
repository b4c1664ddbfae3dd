import { z } from 'zod';
import { EVALUATION_BRANCH_PATTERN, KEY_MAX_LENGTH, VARIANT_NAME_MAX_LENGTH } from '../limits.js';
import { example, named } from '../openapi-meta.js';
import { Id, JsonValue, Timestamp } from './common.js';
import { FlagMetadata, Rule } from './primitives.js';
import { SegmentRule } from './segments.js';
import { Variants } from './variants.js';
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
    guard: z
      .object({
        since: Timestamp.describe('When the step\'s analysis began (entering the step, or the last resume): a new value starts the SDK\'s unit counts over.'),
        events: z.array(z.string()).describe('The SDK events the step\'s metrics watch.'),
      })
      .optional()
      .describe('Present while the rollout holds at a guarded step (docs/guards.md): SDKs report its arms to `POST /envs/{envId}/guard-metrics`.'),
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
    archived: z.literal(true).optional().describe('Present on an archived flag or config: everyone gets `value`, reason `DISABLED`.'),
    metadata: FlagMetadata.optional(),
    variants: Variants.optional(),
  }),
);

export const RulesetSegment = named(
  'RulesetSegment',
  z.object({
    key: z.string(),
    rules: z.array(SegmentRule),
    included: z.array(z.string()),
    excluded: z.array(z.string()),
  }),
  'A segment used by the environment\'s rules, directly or through another segment.',
);

export const Ruleset = example(
  named(
    'Ruleset',
    z.object({ envId: Id, version: z.number().int(), primitives: z.array(RulesetPrimitive), segments: z.array(RulesetSegment).optional() }),
    'Everything an SDK needs to evaluate the environment locally (live rollouts only).',
  ),
  {
    envId: '3f1c1f0e-8a43-4f6e-9b1a-2c8a5d8f4b10',
    version: 42,
    primitives: [
      {
        kind: 'flag',
        key: 'new-checkout',
        value: false,
        rules: [{ description: 'Staff first', conditions: [{ attribute: 'email', operator: 'ends_with', values: ['@acme.test'] }], value: true }],
        rollout: {
          id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
          status: 'active',
          percent: 25,
          seed: 'new-checkout:production',
          bucketField: 'userId',
          newValue: true,
          targetIds: ['user-1', 'user-2'],
        },
      },
      { kind: 'config', key: 'checkout.limits', value: { maxItems: 10 }, rules: [], rollout: null },
    ],
  },
);
export type Ruleset = z.infer<typeof Ruleset>;

export const EvaluateRequest = example(
  named(
    'EvaluateRequest',
    z.object({
      context: z.record(JsonValue),
      keys: z.array(z.string().min(1).max(KEY_MAX_LENGTH)).max(1000).optional(),
    }),
    'Omit `keys` to evaluate every flag and config of the environment.',
  ),
  { context: { userId: 'user-1', email: 'ann@example.com', plan: 'pro' }, keys: ['new-checkout', 'checkout.limits'] },
);

export const EvaluationReason = named(
  'EvaluationReason',
  z.enum(['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DISABLED', 'DEFAULT', 'ERROR']),
  'OpenFeature resolution reasons: `STATIC` when the flag or config has no rule and no live rollout; `TARGETING_MATCH` for a matching rule or a target ID on the rollout\'s allow-list; `SPLIT` when the rollout\'s percentage decided (admitted: the new value; not admitted: the base value); `DEFAULT` for the base value after rules that did not match; `DISABLED` for an archived flag or config serving its last value; `ERROR` when its rules (in practice, the segments they name) needed more than the evaluation\'s work budget (the base value is served, variant `default`).',
);
export type EvaluationReason = z.infer<typeof EvaluationReason>;

/**
 * Which branch served the value: `default` (the base value), `rule-<n>` (the n-th rule, from 1),
 * `target-id` (the rollout's allow-list), `rollout-new` (admitted by percentage),
 * `rollout-base` (a live rollout's base value for a context it did not admit).
 */
export const EvaluationBranch = example(z.string().regex(EVALUATION_BRANCH_PATTERN), 'rollout-new');

/** The declared variant name of the served value, else the branch that served it. */
export const EvaluationVariant = example(z.string().min(1).max(VARIANT_NAME_MAX_LENGTH).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/), 'rollout-new');

export const EvaluationResult = named(
  'EvaluationResult',
  z.object({
    kind: PrimitiveKind,
    value: JsonValue,
    reason: EvaluationReason,
    variant: EvaluationVariant,
    branch: EvaluationBranch,
    bucket: z.number().nullable(),
    rolloutPercent: z.number().nullable().describe('The live rollout\'s percentage, null without a live rollout.'),
  }),
  '`branch` names the part of the definition that served the value: `default`, `rule-<n>` (from 1), `target-id`, `rollout-new` or `rollout-base`. `variant` is the name of the served value among the flag\'s or config\'s declared `variants`; when it declares none, or the value is none of them, it is the branch.',
);

export const EvaluateResponse = example(
  named(
    'EvaluateResponse',
    z.object({ version: z.number().int(), results: z.record(EvaluationResult) }),
    'Keys that name no flag or config are left out of `results`.',
  ),
  {
    version: 42,
    results: {
      'new-checkout': { kind: 'flag', value: true, reason: 'SPLIT', variant: 'rollout-new', branch: 'rollout-new', bucket: 12.3456, rolloutPercent: 25 },
      'checkout.limits': { kind: 'config', value: { maxItems: 10 }, reason: 'STATIC', variant: 'default', branch: 'default', bucket: null, rolloutPercent: null },
    },
  },
);
