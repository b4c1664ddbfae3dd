import { z } from 'zod';
import { GUARD_DEFAULTS, GUARD_MAX_HOLD_FACTOR_MAX, GUARD_METRICS_PER_STEP_MAX, GUARD_MIN_UNITS_PER_ARM_MAX, GUARD_MIN_UNITS_PER_ARM_MIN, KEY_MAX_LENGTH } from '../limits.js';
import { example, named } from '../openapi-meta.js';
import { Name, ResourceKey, Timestamp } from './common.js';

/** A guard metric's key: referenced by plan steps, and the SDK event's name unless `event` says otherwise. */
export const GuardMetricKey = ResourceKey;

export const GuardMetricKind = named(
  'GuardMetricKind',
  z.enum(['count', 'mean']),
  '`count`: events per exposed unit (errors, crashes; compared as a rate ratio); `mean`: the mean of a value tracked with each event (latency; compared as a difference).',
);
export const GuardMetricWorse = named('GuardMetricWorse', z.enum(['higher', 'lower']), 'Which way a change is a regression: `higher` for errors and latency, `lower` for conversions.');

export const GuardMetric = named(
  'GuardMetric',
  z.object({
    key: GuardMetricKey,
    name: z.string(),
    description: z.string(),
    kind: GuardMetricKind,
    worse: GuardMetricWorse,
    event: z.string().describe('The SDK event (`track(event, …)`) the metric counts or averages.'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
  'A metric that guarded ramp steps watch (docs/guards.md).',
);
export type GuardMetric = z.infer<typeof GuardMetric>;

export const CreateGuardMetricRequest = example(
  named(
    'CreateGuardMetricRequest',
    z.object({
      key: GuardMetricKey,
      name: Name,
      description: z.string().max(2000).optional(),
      kind: GuardMetricKind,
      worse: GuardMetricWorse,
      event: z.string().min(1).max(KEY_MAX_LENGTH).optional().describe('Defaults to the key.'),
    }),
  ),
  { key: 'checkout-errors', name: 'Checkout errors', kind: 'count', worse: 'higher', event: 'checkout_error' },
);

export const GuardMetricAction = named('GuardMetricAction', z.enum(['rollback', 'pause']), 'What a regression of the metric does: roll the rollout back to 0 % (default), or pause it where it is.');

const GuardMargin = z
  .number()
  .min(0)
  .max(1_000_000_000)
  .describe('The change tolerated before it counts as a regression: relative for a count metric (0.1: 10 % more events per unit), in the value\'s unit for a mean metric. Default 0.');

/** A ramp step's guard as a plan is written. */
export const StepGuardInput = named(
  'StepGuardInput',
  z.object({
    metrics: z
      .array(z.object({ key: GuardMetricKey, margin: GuardMargin.optional(), action: GuardMetricAction.optional() }))
      .min(1, 'must name at least 1 metric')
      .max(GUARD_METRICS_PER_STEP_MAX, `must name at most ${GUARD_METRICS_PER_STEP_MAX} metrics`),
    minUnitsPerArm: z
      .number()
      .int()
      .min(GUARD_MIN_UNITS_PER_ARM_MIN)
      .max(GUARD_MIN_UNITS_PER_ARM_MAX)
      .optional()
      .describe(`Exposed units each arm needs before the step may advance (default ${GUARD_DEFAULTS.minUnitsPerArm.toLocaleString('en-US')}).`),
    maxHoldFactor: z
      .number()
      .min(1)
      .max(GUARD_MAX_HOLD_FACTOR_MAX)
      .optional()
      .describe(`At this many times its hold without enough units the step pauses (\`guard\`) instead of advancing (default ${GUARD_DEFAULTS.maxHoldFactor}).`),
  }),
  'Watches the step\'s metrics, the admitted contexts against the mirror band of the same size, and advances only when the hold has passed, each arm has its units and nothing regressed. Only on steps of an auto plan before the last.',
);

/** A ramp step's guard as stored and answered: defaults applied. */
export const StepGuard = named(
  'StepGuard',
  z.object({
    metrics: z.array(z.object({ key: z.string(), margin: z.number(), action: GuardMetricAction })),
    minUnitsPerArm: z.number().int(),
    maxHoldFactor: z.number(),
  }),
);

export const GuardStop = named(
  'GuardStop',
  z.object({
    at: Timestamp,
    action: GuardMetricAction,
    cause: z
      .enum(['metric', 'srm', 'insufficient_data'])
      .describe('`metric`: the metric regressed; `srm`: the arms\' split is not the one their bands promise; `insufficient_data`: the step reached its longest hold without enough units.'),
    metricKey: z.string().nullable(),
    stepPercent: z.number(),
    units: z.object({ treatment: z.number().int(), control: z.number().int() }),
    eValue: z.number().nullable().describe('The metric\'s evidence against "no worse than the margin" (it stops at 1/α).'),
    threshold: z.number().nullable().describe('The evidence the metric had to reach: 1/α with α split across the step\'s metrics.'),
    estimate: z
      .object({ value: z.number(), lower: z.number().nullable(), upper: z.number().nullable() })
      .nullable()
      .describe('A count metric\'s rate ratio (treatment over control), a mean metric\'s difference and its always-valid interval.'),
    srmP: z.number().nullable().describe('The split\'s always-valid p-value (cause `srm`).'),
  }),
  'The guarded step check that last stopped this rollout (banner data; docs/guards.md).',
);
export type GuardStop = z.infer<typeof GuardStop>;
