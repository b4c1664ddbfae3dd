/**
 * Testing aids for applications that use Gradual: msw handlers that stand in
 * for the service (rulesets, the live stream, server-side evaluation computed
 * by the real evaluator) and a builder for rulesets. Needs `msw` 2 (an
 * optional peer dependency of `@gradual/sdk`).
 */
export { gradualHandlers, type GradualHandlersOptions, type GradualMock, type RulesetLike } from './handlers.js';
export {
  rulesetBuilder,
  when,
  type RulesetBuilder,
  type RulesetBuilderOptions,
  type PrimitiveInput,
  type RolloutInput,
} from './ruleset-builder.js';
export type { Ruleset, RulesetPrimitive, RulesetRollout, Rule, Condition, EvaluationResult } from '../evaluation/types.js';
