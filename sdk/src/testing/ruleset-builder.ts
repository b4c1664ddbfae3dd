import type {
  Condition,
  ConditionOperator,
  FlagMetadata,
  PrimitiveKind,
  Rule,
  RolloutStatus,
  Ruleset,
  RulesetPrimitive,
  RulesetRollout,
} from '../evaluation/types.js';

/** A rollout as written in a test: only `percent` is required. */
export interface RolloutInput {
  percent: number;
  /** The candidate value. Leave it out to make the rollout gate the primitive's rules. */
  newValue?: unknown;
  status?: RolloutStatus;
  /** Default `<key>:<envKey>`, as the server does. */
  seed?: string;
  /** Default `userId` (a project's default `targetIdField`). */
  bucketField?: string;
  targetIds?: string[];
  /** Default a stable id derived from the key. */
  id?: string;
  /** The rollout holds at a guarded step (docs/guards.md): when its analysis began and the events it watches. */
  guard?: { since: string; events: string[] };
}

export interface PrimitiveInput {
  /** First matching rule wins. */
  rules?: Rule[];
  rollout?: RolloutInput | null;
  /** Custom metadata (OpenFeature `flagMetadata`); left out when absent or empty. */
  metadata?: FlagMetadata;
}

export interface RulesetBuilderOptions {
  /** Default `env-test`. */
  envId?: string;
  /** Default 1. */
  version?: number;
  /** Used for default rollout seeds (`<key>:<envKey>`). Default `test`. */
  envKey?: string;
}

export interface RulesetBuilder {
  /** A feature flag with its base `value` in this environment. */
  flag(key: string, value: unknown, options?: PrimitiveInput): RulesetBuilder;
  /** A config (any JSON value) with its base `value` in this environment. */
  config(key: string, value: unknown, options?: PrimitiveInput): RulesetBuilder;
  /** A fresh `Ruleset` object (each call returns a new deep copy). */
  build(): Ruleset;
}

/** One condition: `when('email', 'ends_with', '@acme.test')`. */
export function when(attribute: string, operator: ConditionOperator, ...values: (string | number)[]): Condition {
  return { attribute, operator, values };
}

/**
 * A small builder for rulesets in tests, with the server's defaults filled in:
 *
 * ```ts
 * const ruleset = rulesetBuilder({ envId: 'env-prod' })
 *   .flag('new-checkout', false, {
 *     rules: [{ conditions: [when('email', 'ends_with', '@acme.test')], value: true }],
 *     rollout: { percent: 25, newValue: true, targetIds: ['user-1'] },
 *   })
 *   .config('checkout.limits', { maxItems: 10 })
 *   .build();
 * ```
 *
 * Adding a key twice replaces the earlier primitive (keys are unique in an environment).
 */
export function rulesetBuilder(options: RulesetBuilderOptions = {}): RulesetBuilder {
  const envId = options.envId ?? 'env-test';
  const version = options.version ?? 1;
  const envKey = options.envKey ?? 'test';
  const primitives = new Map<string, RulesetPrimitive>();

  const add = (kind: PrimitiveKind, key: string, value: unknown, input: PrimitiveInput = {}): RulesetBuilder => {
    primitives.delete(key);
    primitives.set(key, {
      kind,
      key,
      value,
      rules: input.rules ?? [],
      rollout: input.rollout ? rollout(key, envKey, input.rollout) : null,
      ...(input.metadata && Object.keys(input.metadata).length ? { metadata: { ...input.metadata } } : {}),
    });
    return builder;
  };

  const builder: RulesetBuilder = {
    flag: (key, value, input) => add('flag', key, value, input),
    config: (key, value, input) => add('config', key, value, input),
    build: () => structuredClone({ envId, version, primitives: [...primitives.values()] }),
  };
  return builder;
}

function rollout(key: string, envKey: string, input: RolloutInput): RulesetRollout {
  if (!(input.percent >= 0 && input.percent <= 100)) throw new RangeError(`rollout percent of ${key} must be within 0–100, got ${input.percent}`);
  const out: RulesetRollout = {
    id: input.id ?? `rollout-${key}`,
    status: input.status ?? 'active',
    percent: input.percent,
    seed: input.seed ?? `${key}:${envKey}`,
    bucketField: input.bucketField ?? 'userId',
    targetIds: input.targetIds ?? [],
  };
  // Absent, not undefined-valued: the ruleset is JSON and `newValue: null` is a real candidate.
  if ('newValue' in input && input.newValue !== undefined) out.newValue = input.newValue;
  if (input.guard) out.guard = { since: input.guard.since, events: [...input.guard.events] };
  return out;
}
