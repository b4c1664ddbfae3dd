/**
 * Length limits the API enforces, shared by the contract's schemas and the server's lookups (a
 * path segment longer than a limit names nothing, so the server answers 404 without a query).
 */

/** Longest key of a project's resources (flags, configs, environments) and of an evaluated key list. */
export const KEY_MAX_LENGTH = 128;

/** Longest context attribute name (rule conditions, a rollout's bucket field). */
export const ATTRIBUTE_NAME_MAX_LENGTH = 128;

/** Longest target ID on a rollout's allow-list. */
export const TARGET_ID_MAX_LENGTH = 256;

/**
 * Longest key kept from a request whatever it names: a rollback fire's key in the rollback
 * history (longer ones are cut), and the audit log's `resourceKey` filter.
 */
export const RECORDED_KEY_MAX_LENGTH = 256;

/** Segments of a project at most (each can hold a million target IDs per list). */
export const SEGMENTS_PER_PROJECT_MAX = 500;

/**
 * Deepest nesting of segments: the longest chain of segments whose rules name the next one
 * (`a` names `b`, `b` names `c`: 3). A write that would make a longer chain is refused with
 * `409 segment_nesting_too_deep`; evaluation also has a work budget (docs/segments.md).
 */
export const SEGMENT_NESTING_MAX = 5;

/** Outbound webhook subscriptions of a project at most. */
export const WEBHOOK_SUBSCRIPTIONS_PER_PROJECT_MAX = 20;

/**
 * A rollout plan's ramp (spec "Rollout plans", create validation 2): 1 to 32 steps; every step but
 * the last holds 60 s to 30 days, the last holds 0. The contract's plan schemas, the server's ramp
 * validation (server/src/domain/rollouts/plan-validation.ts), the CLI's gradual.yaml schema and the
 * docs (docs/rollouts.md) all state these numbers; this is where they are defined.
 */
export const RAMP_STEPS_MIN = 1;
export const RAMP_STEPS_MAX = 32;
/** Shortest hold of a ramp step before the last one, in seconds. */
export const HOLD_SECONDS_MIN = 60;
/** Longest hold of a ramp step, in seconds (30 days). */
export const HOLD_SECONDS_MAX = 2_592_000;

/** Guard metrics a project defines at most (docs/guards.md). */
export const GUARD_METRICS_PER_PROJECT_MAX = 50;
/** Metrics one guarded ramp step watches at most (its α is split across them). */
export const GUARD_METRICS_PER_STEP_MAX = 5;
/** The range of a guarded step's minimum exposed units per arm. */
export const GUARD_MIN_UNITS_PER_ARM_MIN = 100;
export const GUARD_MIN_UNITS_PER_ARM_MAX = 1_000_000;
/** The longest a guarded step waits for its units, in multiples of its hold. */
export const GUARD_MAX_HOLD_FACTOR_MAX = 10;
/** A guard metric's Prometheus counter selector, in characters. */
export const PROMETHEUS_SELECTOR_MAX_LENGTH = 1000;
/** What a step's guard leaves out (docs/guards.md): no margin, roll back on a regression, 1,000 units per arm, 3 × the hold. */
export const GUARD_DEFAULTS = { margin: 0, action: 'rollback', minUnitsPerArm: 1000, maxHoldFactor: 3 } as const;

/** The convergence ledger's window: instances count when seen within it (minutes). */
export const CONVERGENCE_WINDOW_MINUTES_DEFAULT = 5;
export const CONVERGENCE_WINDOW_MINUTES_MAX = 60;
/** Laggards the convergence ledger names at most. */
export const CONVERGENCE_LAGGARDS_MAX = 50;
/** A step that holds from convergence: the share of recently seen SDK instances it waits for (percent). */
export const CONVERGENCE_HOLD_PERCENT_MIN = 50;
export const CONVERGENCE_HOLD_PERCENT_MAX = 100;
/** How long such a step waits for the fleet before it pauses the rollout (seconds). */
export const CONVERGENCE_TIMEOUT_SECONDS_MIN = 30;
export const CONVERGENCE_TIMEOUT_SECONDS_MAX = 86_400;
/** The share a rollback's convergence is recorded at (percent of the instances seen recently). */
export const ROLLBACK_CONVERGED_PERCENT = 99;

/**
 * A flag's or config's custom metadata (OpenFeature `flagMetadata`, OFREP `metadata`): at most
 * this many entries, each a key of up to FLAG_METADATA_KEY_MAX_LENGTH characters with a string
 * (up to FLAG_METADATA_STRING_MAX_LENGTH characters), number or boolean value.
 */
export const FLAG_METADATA_MAX_ENTRIES = 20;
export const FLAG_METADATA_KEY_MAX_LENGTH = 64;
export const FLAG_METADATA_STRING_MAX_LENGTH = 256;
/** Metadata keys evaluation sets itself (a live rollout's percentage and the context's bucket): not custom. */
export const FLAG_METADATA_RESERVED_KEYS = ['rolloutPercent', 'bucket'] as const;

/**
 * A flag's or config's named variants (name → value): at most this many, each name up to
 * VARIANT_NAME_MAX_LENGTH characters. The branch names evaluation reports for undeclared values
 * (`default`, `rule-<n>`, `target-id`, `rollout-new`, `rollout-base`) cannot be variant names.
 */
export const VARIANTS_MAX_ENTRIES = 32;
export const VARIANT_NAME_MAX_LENGTH = 64;
/** The branch names: which part of a flag's definition served a value (docs/bucketing.md). */
export const EVALUATION_BRANCH_PATTERN = /^(default|rule-[1-9][0-9]*|target-id|rollout-new|rollout-base)$/;

/** A config's JSON Schema, as JSON text, is at most this long (characters). */
export const CONFIG_SCHEMA_MAX_LENGTH = 16_384;
