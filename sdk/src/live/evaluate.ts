/** One evaluation against the held ruleset (or none), with the fallback and OpenFeature-named error codes. */
import { NO_METADATA, type CompiledPrimitive, type EvaluationContext, type EvaluationResult } from '../evaluation/index.js';
import { withTargetingKey } from '../evaluation/targeting-key.js';
import type { HeldRuleset } from './cache.js';
import type { EvaluateOptions, EvaluationValueType, FlagEvaluation } from './types.js';

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'no value';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function matchesType(value: unknown, type: EvaluationValueType): boolean {
  return type === 'json' ? value !== undefined : typeof value === type;
}

/** Told of every evaluation that served a value from the ruleset (usage counting, guard arms), with what served it. */
export type ServedListener = (held: HeldRuleset, primitive: CompiledPrimitive, result: EvaluationResult) => void;

export function evaluateHeld(
  held: HeldRuleset | null,
  key: string,
  context: EvaluationContext,
  options: EvaluateOptions,
  served?: ServedListener,
): FlagEvaluation {
  const fallback = options.fallback;
  if (!held) {
    return {
      key,
      value: fallback,
      reason: 'ERROR',
      variant: null,
      branch: null,
      errorCode: 'PROVIDER_NOT_READY',
      errorMessage: 'no ruleset yet',
      kind: null,
      bucket: null,
      rolloutPercent: null,
      version: null,
      metadata: NO_METADATA,
    };
  }
  const version = held.ruleset.version;
  const primitive = held.compiled.primitive(key);
  if (!primitive) {
    return {
      key,
      value: fallback,
      reason: 'ERROR',
      variant: null,
      branch: null,
      errorCode: 'FLAG_NOT_FOUND',
      errorMessage: `no flag or config '${key}' in this environment`,
      kind: null,
      bucket: null,
      rolloutPercent: null,
      version,
      metadata: NO_METADATA,
    };
  }
  const ctx = options.targetingKey === undefined ? context : withTargetingKey(context, held.bucketFields.get(key), options.targetingKey);
  const r = primitive.evaluate(ctx);
  if (r.reason === 'ERROR') {
    return {
      key,
      value: fallback,
      reason: 'ERROR',
      variant: null,
      branch: null,
      errorCode: 'GENERAL',
      errorMessage: `the rules of '${key}' need more than the evaluation's work budget`,
      kind: r.kind,
      bucket: r.bucket,
      rolloutPercent: r.rolloutPercent,
      version,
      metadata: primitive.metadata,
    };
  }
  if (options.type !== undefined && !matchesType(r.value, options.type)) {
    return {
      key,
      value: fallback,
      reason: 'ERROR',
      variant: null,
      branch: null,
      errorCode: 'TYPE_MISMATCH',
      errorMessage: `'${key}' is ${typeOf(r.value)}, not ${options.type === 'json' ? 'a JSON value' : `a ${options.type}`}`,
      kind: r.kind,
      bucket: r.bucket,
      rolloutPercent: r.rolloutPercent,
      version,
      metadata: primitive.metadata,
    };
  }
  if (served !== undefined) served(held, primitive, r);
  return { key, value: r.value, reason: r.reason, variant: r.variant, branch: r.branch, kind: r.kind, bucket: r.bucket, rolloutPercent: r.rolloutPercent, version, metadata: primitive.metadata };
}
