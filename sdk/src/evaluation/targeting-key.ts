import type { EvaluationContext } from './types.js';

/**
 * The context a primitive is evaluated with when the caller also names a targeting key
 * (OpenFeature's `targetingKey`): it stands in for the rollout's bucket field (e.g. `userId`) when
 * the context has no value for that attribute (undefined or null), so `{ targetingKey: 'u-1' }`
 * buckets like `{ userId: 'u-1' }`. The live client, its OpenFeature provider and the server's
 * OFREP routes all map it this way, so they agree on every context.
 */
export function withTargetingKey(context: EvaluationContext, bucketField: string | undefined, targetingKey: string | undefined): EvaluationContext {
  if (targetingKey === undefined || bucketField === undefined || context[bucketField] != null) return context;
  return { ...context, [bucketField]: targetingKey };
}
