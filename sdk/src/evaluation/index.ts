/**
 * The pure local evaluator: bucketing, rule matching and which value a context
 * gets (docs/bucketing.md). No I/O and no runtime dependencies; the server
 * imports it for `POST /envs/{envId}/evaluate`.
 */
export { murmur3, murmur3Prefix, murmur3WithPrefix, type Murmur3Prefix } from './murmur3.js';
export { bucket, isAdmitted, createBucketer } from './bucket.js';
export {
  canonicalString,
  numericValue,
  matchCondition,
  matchRule,
  RULE_WORK_BUDGET,
} from './rules.js';
export {
  evaluatePrimitive,
  compilePrimitive,
  compileRuleset,
  NO_METADATA,
  type CompiledPrimitive,
  type CompiledRuleset,
} from './evaluate.js';
export { withTargetingKey } from './targeting-key.js';
export { valueKey, variantNamer, type VariantNamer } from './variants.js';
export { armOf, treatmentShare, type GuardArm } from './arms.js';
export { ROLLOUT_STATUSES, LIVE_STATUSES, EVALUATION_REASONS, isLiveStatus } from './types.js';
export type {
  PrimitiveKind,
  RolloutStatus,
  LiveStatus,
  ConditionOperator,
  Condition,
  Rule,
  SegmentRule,
  RulesetSegment,
  RulesetRollout,
  RulesetPrimitive,
  Ruleset,
  EvaluationContext,
  EvaluationReason,
  EvaluationVariant,
  EvaluationBranch,
  EvaluationResult,
  FlagMetadata,
} from './types.js';
