/**
 * Shapes of the ruleset (`GET /envs/{envId}/ruleset`, docs/bucketing.md) and of one
 * evaluation result (`POST /envs/{envId}/evaluate`).
 *
 * Written by hand so the evaluator has no dependency on generated code (and ships the status
 * lists at runtime); they
 * are meant to be structurally compatible with the types generated from
 * `openapi.yaml` (a generated `Ruleset` must be assignable to this one).
 * For that reason the JSON-valued fields (`value`, `newValue`) are optional:
 * a zod `z.unknown()` field is optional in the inferred type and usually not
 * listed as `required` in the generated OpenAPI, and a type with an optional
 * property is not assignable to one where it is required. An absent `value`
 * evaluates as `undefined`.
 */

export type PrimitiveKind = 'flag' | 'config';

/** Every status of a rollout (the contract's `RolloutStatus`). */
export const ROLLOUT_STATUSES = ['active', 'paused', 'completed', 'cancelled'] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

/**
 * The statuses of a live rollout, the one the ruleset serves and evaluation applies (the
 * contract's `LIVE_STATUSES`); completed and cancelled rollouts are history.
 */
export const LIVE_STATUSES = ['active', 'paused'] as const satisfies readonly RolloutStatus[];
export type LiveStatus = (typeof LIVE_STATUSES)[number];

/** Whether a rollout in this status is live (active or paused). */
export const isLiveStatus = (status: RolloutStatus): status is LiveStatus => LIVE_STATUSES.some((live) => live === status);

export type ConditionOperator =
  | 'in'
  | 'not_in'
  | 'starts_with'
  | 'ends_with'
  | 'contains'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'in_segment'
  | 'not_in_segment';

export interface Condition {
  /**
   * Context attribute name (a top-level key of the context). For `in_segment` / `not_in_segment`
   * the attribute whose value is looked up in the segments' included and excluded target IDs.
   */
  attribute: string;
  operator: ConditionOperator;
  /** The operands; for `in_segment` / `not_in_segment` the segment keys. */
  values: (string | number)[];
}

export interface Rule {
  description?: string;
  /** All must match (AND). An empty list matches every context. */
  conditions: Condition[];
  value?: unknown;
}

export interface RulesetRollout {
  id: string;
  status: RolloutStatus;
  /** 0–100 inclusive. */
  percent: number;
  /** Bucketing seed, default `<primitiveKey>:<envKey>`. */
  seed: string;
  /** Context attribute that is bucketed and matched against `targetIds`. */
  bucketField: string;
  /**
   * The candidate value. Absent (or `undefined`) means the rollout gates the
   * primitive's rules instead (docs/rollouts.md). `null` is a real
   * candidate value, not "absent".
   */
  newValue?: unknown;
  /** Allow-list: contexts whose bucket-field value is listed always get the candidate. */
  targetIds: string[];
  /** Present while the rollout holds at a guarded step: when its analysis began, and the events its metrics watch (docs/guards.md). */
  guard?: { since: string; events: string[] };
}

export interface RulesetPrimitive {
  kind: PrimitiveKind;
  key: string;
  /** Base value in this environment. */
  value?: unknown;
  /** First matching rule wins. */
  rules: Rule[];
  rollout: RulesetRollout | null;
  /** Present on an archived flag or config: everyone gets `value`, reason `DISABLED`, variant `default`. */
  archived?: true;
  /** Custom metadata (OpenFeature `flagMetadata`), present when there is any. */
  metadata?: FlagMetadata;
  /**
   * Declared variants (name → value, each value once), present when there are any: a result
   * whose value is one of them carries its name as `variant`.
   */
  variants?: Readonly<Record<string, unknown>>;
}

/** A flag's or config's custom metadata: flat string, number and boolean entries. */
export type FlagMetadata = Readonly<Record<string, string | number | boolean>>;

/** One rule of a segment: a context matching all of its conditions (AND) matches the rule. */
export interface SegmentRule {
  description?: string;
  conditions: Condition[];
}

/**
 * A segment as the ruleset carries it. A context is in it when the referring condition's
 * attribute value is one of `included`; otherwise, unless that value is one of `excluded`, when
 * it matches any of `rules` (OR).
 */
export interface RulesetSegment {
  key: string;
  rules: SegmentRule[];
  included: string[];
  excluded: string[];
}

export interface Ruleset {
  envId: string;
  version: number;
  primitives: RulesetPrimitive[];
  /** Every segment the primitives' rules reference, directly or through other segments. */
  segments?: RulesetSegment[];
}

/** A context is any JSON-ish object; rules and bucketing read its top-level keys. */
export type EvaluationContext = Record<string, unknown>;

/**
 * Why a context got its value, as OpenFeature names resolution reasons (docs/bucketing.md):
 * - `STATIC`: the primitive has no rule and no live rollout: everyone gets the base value;
 * - `TARGETING_MATCH`: a rule matched, or the context is on the rollout's target-ID allow-list;
 * - `SPLIT`: the rollout's percentage decided: the new value for an admitted context, the base
 *   value for one it did not admit (and no rule matched);
 * - `DEFAULT`: the base value, after rules that did not match (or a gated rollout admitted the
 *   context and no rule matched);
 * - `DISABLED`: the primitive is archived and serves its last value;
 * - `ERROR`: its rules needed more than the evaluation's work budget (rules.ts, rule 10); the base value.
 */
export const EVALUATION_REASONS = ['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DISABLED', 'DEFAULT', 'ERROR'] as const;
export type EvaluationReason = (typeof EVALUATION_REASONS)[number];

/**
 * Which branch served the value: `default` (the base value), `rule-<n>` (the n-th rule, from 1),
 * `target-id` (the rollout's allow-list), `rollout-new` (admitted by percentage),
 * `rollout-base` (a live rollout's base value for a context it did not admit).
 */
export type EvaluationBranch = 'default' | `rule-${number}` | 'target-id' | 'rollout-new' | 'rollout-base';

/**
 * The name of the served value among the primitive's declared variants; when it declares none,
 * or the value is none of them, the branch that served it.
 */
export type EvaluationVariant = string;

export interface EvaluationResult {
  kind: PrimitiveKind;
  value: unknown;
  reason: EvaluationReason;
  variant: EvaluationVariant;
  /** Which part of the definition served the value (`rule-2`, `rollout-new`, …), whatever its variant's name. */
  branch: EvaluationBranch;
  /**
   * The context's bucket when the primitive has a live (active or paused)
   * rollout and the context carries the bucket field; otherwise null.
   */
  bucket: number | null;
  /** The live rollout's percentage; null without a live rollout. */
  rolloutPercent: number | null;
}
