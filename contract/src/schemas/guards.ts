import { z } from 'zod';
import { GUARD_DEFAULTS, GUARD_MAX_HOLD_FACTOR_MAX, PROMETHEUS_SELECTOR_MAX_LENGTH, GUARD_METRICS_PER_STEP_MAX, GUARD_MIN_UNITS_PER_ARM_MAX, GUARD_MIN_UNITS_PER_ARM_MIN, KEY_MAX_LENGTH } from '../limits.js';
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

/** A PromQL counter selector with `{{arm}}` (and optionally `{{key}}`) in it, read as `sum(increase(<selector>[1m]))`. */
const PromSelector = z
  .string()
  .min(1)
  .max(PROMETHEUS_SELECTOR_MAX_LENGTH)
  .refine((q) => q.includes('{{arm}}'), 'must contain {{arm}} (replaced by treatment or control)')
  .refine((q) => !/\{\{(?!arm\}\}|key\}\})/.test(q), 'may contain only the placeholders {{arm}} and {{key}}');

export const PrometheusSource = example(
  named(
    'PrometheusSource',
  z.object({
    events: PromSelector.describe(
      'A counter selector: per arm and minute, `sum(increase(<events>[1m]))` is a count metric\'s events, or a mean metric\'s number of observations. `{{arm}}` becomes `treatment` or `control`, `{{key}}` the flag or config key.',
    ),
    sum: PromSelector.optional().describe('A mean metric\'s counter of the values\' sum (a summary or histogram\'s `_sum`). Only for mean metrics, which need it.'),
    sumSquares: PromSelector.optional().describe('A mean metric\'s counter of the values\' squares\' sum (their spread). Only for mean metrics, which need it.'),
  }),
    'Where the server reads a metric instead of SDK events: counters in the Prometheus at PROMETHEUS_URL, labelled by arm, read once a minute (docs/guards.md). Units per arm still come from SDK exposures.',
  ),
  { events: 'checkout_errors_total{flag="{{key}}",arm="{{arm}}"}' },
);
export type PrometheusSource = z.infer<typeof PrometheusSource>;

export const GuardMetric = named(
  'GuardMetric',
  z.object({
    key: GuardMetricKey,
    name: z.string(),
    description: z.string(),
    kind: GuardMetricKind,
    worse: GuardMetricWorse,
    event: z.string().describe('The SDK event (`track(event, …)`) the metric counts or averages; not used when `prometheus` is set.'),
    prometheus: PrometheusSource.nullable(),
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
      prometheus: PrometheusSource.optional(),
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

const GuardEstimate = z
  .object({ value: z.number(), lower: z.number().nullable(), upper: z.number().nullable() })
  .nullable()
  .describe('A count metric\'s rate ratio (treatment over control; no interval), a mean metric\'s difference and its always-valid interval; null before both arms have data.');

export const GuardMetricStatus = named(
  'GuardMetricStatus',
  z.object({
    key: z.string(),
    kind: GuardMetricKind,
    worse: GuardMetricWorse,
    margin: z.number(),
    action: GuardMetricAction,
    eValue: z.number().describe('The evidence against "no worse than the margin" so far (1 without data).'),
    threshold: z.number().describe('The evidence that stops the step: 1/α with α split across the step\'s metrics.'),
    estimate: GuardEstimate,
    series: z
      .array(z.object({ at: Timestamp, eValue: z.number(), estimate: GuardEstimate }))
      .describe('The evidence and the estimate at the end of each minute with samples since the step began, oldest first (at most 240 points, evenly thinned).'),
  }),
);

export type GuardMetricStatus = z.infer<typeof GuardMetricStatus>;

export const GuardDecision = named('GuardDecision', z.enum(['advance', 'hold', 'rollback', 'pause']), 'What a check of a guarded step now would decide (the scheduler checks once a minute).');

export const RolloutGuard = named(
  'RolloutGuard',
  z.object({
    rolloutId: z.string(),
    step: z
      .object({
        index: z.number().int(),
        percent: z.number(),
        holdForSeconds: z.number(),
        since: Timestamp.describe('When the step\'s analysis began (entering it, or the last resume).'),
        heldSeconds: z.number(),
        guard: StepGuard,
      })
      .nullable()
      .describe('The guarded step the rollout holds at; null when it holds at none (not started, paused, unguarded step).'),
    decision: GuardDecision.nullable(),
    waitingFor: z.array(z.enum(['hold', 'units'])).describe('What a holding step still waits for.'),
    checks: z
      .object({
        holdPassed: z.boolean(),
        units: z.object({ treatment: z.number().int(), control: z.number().int(), min: z.number().int() }),
        srmP: z.number().describe('The always-valid p-value of the arms\' split (1 when it looks as expected).'),
        srmOk: z.boolean().describe('`srmP` is above 0.001: the split is as the bands promise.'),
        metrics: z.array(GuardMetricStatus),
      })
      .nullable(),
    lastStop: GuardStop.nullable(),
  }),
  'A rollout\'s guard as of now (docs/guards.md): the gate\'s checklist and each metric\'s evidence over time, and the check that last stopped it.',
);
export type RolloutGuard = z.infer<typeof RolloutGuard>;

/** Entries of one guard report at most, exposures and events together. */
export const GUARD_REPORT_ENTRIES_MAX = 1000;
/** The most one entry may add: units or events in one flush of one SDK instance. */
export const GUARD_REPORT_COUNT_MAX = 10_000_000;

const ReportedArm = named('GuardArm', z.enum(['treatment', 'control']), 'The arm of the context\'s bucket at the reported percent (docs/guards.md): `treatment` the admitted band, `control` its mirror.');
const ReportedPrimitive = {
  kind: z.enum(['flag', 'config']),
  key: z.string().min(1).max(KEY_MAX_LENGTH),
  percent: z.number().gt(0).lt(100).describe('The rollout\'s percent the SDK evaluated with: samples count only for the step at that percent.'),
  arm: ReportedArm,
};

export const GuardReport = example(
  named(
    'GuardReport',
    z.object({
      windowStart: Timestamp,
      windowEnd: Timestamp,
      exposures: z
        .array(z.object({ ...ReportedPrimitive, units: z.number().int().min(1).max(GUARD_REPORT_COUNT_MAX).describe('Distinct contexts exposed in the window (the SDK\'s exposure de-duplication).') }))
        .max(GUARD_REPORT_ENTRIES_MAX),
      events: z
        .array(
          z.object({
            ...ReportedPrimitive,
            event: z.string().min(1).max(KEY_MAX_LENGTH),
            count: z.number().int().min(1).max(GUARD_REPORT_COUNT_MAX),
            sum: z.number().finite().describe('Σ of the events\' values (0 for events without one).'),
            sumSquares: z.number().finite().min(0).describe('Σ of their squares.'),
          }),
        )
        .max(GUARD_REPORT_ENTRIES_MAX),
    }),
    'What the contexts of each guarded rollout\'s arms did between `windowStart` and `windowEnd` (at most 5 minutes apart, ending within the last 10 minutes of the server\'s clock), pre-aggregated in the process: no context and no single event leaves it. Counted in the minute `windowEnd` falls in.',
  ),
  {
    windowStart: '2026-12-01T12:00:00.000Z',
    windowEnd: '2026-12-01T12:00:10.000Z',
    exposures: [
      { kind: 'flag', key: 'new-checkout', percent: 10, arm: 'treatment', units: 412 },
      { kind: 'flag', key: 'new-checkout', percent: 10, arm: 'control', units: 398 },
    ],
    events: [{ kind: 'flag', key: 'new-checkout', percent: 10, arm: 'treatment', event: 'checkout-errors', count: 9, sum: 0, sumSquares: 0 }],
  },
);

export const GuardReportAccepted = named(
  'GuardReportAccepted',
  z.object({
    accepted: z.number().int().describe('Entries counted.'),
    skipped: z.number().int().describe('Entries naming a flag or config the environment does not have, one the key may not see, or one without a live rollout.'),
    dropped: z.number().int().describe('Entries for a rollout that is not holding at a guarded step of the reported percent (a step changed since the SDK evaluated): not counted.'),
  }),
  '`accepted + skipped + dropped` is the number of entries, exposures and events together.',
);
export type GuardReport = z.infer<typeof GuardReport>;
export type GuardReportAccepted = z.infer<typeof GuardReportAccepted>;
