import { z } from 'zod';
import { ATTRIBUTE_NAME_MAX_LENGTH, CONVERGENCE_HOLD_PERCENT_MAX, CONVERGENCE_WINDOW_MINUTES_DEFAULT, CONVERGENCE_HOLD_PERCENT_MIN, CONVERGENCE_TIMEOUT_SECONDS_MAX, CONVERGENCE_TIMEOUT_SECONDS_MIN, HOLD_SECONDS_MAX, ROLLBACK_CONVERGED_PERCENT, HOLD_SECONDS_MIN, RAMP_STEPS_MAX, RAMP_STEPS_MIN, TARGET_ID_MAX_LENGTH } from '../limits.js';
import { named } from '../openapi-meta.js';
import { Id, JsonValue, Timestamp } from './common.js';
import { VariantName } from './variants.js';
import { GuardStop, StepGuard, StepGuardInput } from './guards.js';

/** 0–100 inclusive with at most 4 decimal places (validated by refine, not multipleOf: float rounding). */
export const Percent = z
  .number()
  .min(0)
  .max(100)
  .refine((n) => Math.abs(n * 10_000 - Math.round(n * 10_000)) < 1e-6, 'at most 4 decimal places');

/**
 * A step whose hold starts when the fleet serves it (docs/convergence.md), not when it is written:
 * at least `instancesPercent` of the SDK instances seen recently acknowledge the step's version
 * or a later one. Past `timeoutSeconds` without that, the rollout pauses (reason `convergence`).
 */
export const HoldFromConvergence = named(
  'HoldFromConvergence',
  z.object({
    instancesPercent: z
      .number()
      .min(CONVERGENCE_HOLD_PERCENT_MIN, `must be from ${CONVERGENCE_HOLD_PERCENT_MIN} to ${CONVERGENCE_HOLD_PERCENT_MAX}`)
      .max(CONVERGENCE_HOLD_PERCENT_MAX, `must be from ${CONVERGENCE_HOLD_PERCENT_MIN} to ${CONVERGENCE_HOLD_PERCENT_MAX}`),
    timeoutSeconds: z
      .number()
      .int()
      .min(CONVERGENCE_TIMEOUT_SECONDS_MIN, `must be an integer from ${CONVERGENCE_TIMEOUT_SECONDS_MIN} to ${CONVERGENCE_TIMEOUT_SECONDS_MAX}`)
      .max(CONVERGENCE_TIMEOUT_SECONDS_MAX, `must be an integer from ${CONVERGENCE_TIMEOUT_SECONDS_MIN} to ${CONVERGENCE_TIMEOUT_SECONDS_MAX}`),
  }),
  `The step's hold starts once \`instancesPercent\` (${CONVERGENCE_HOLD_PERCENT_MIN}–${CONVERGENCE_HOLD_PERCENT_MAX}) of the SDK instances seen in the last ${CONVERGENCE_WINDOW_MINUTES_DEFAULT} minutes serve the step's version or a later one (no instance seen: at once). After \`timeoutSeconds\` (${CONVERGENCE_TIMEOUT_SECONDS_MIN}–${CONVERGENCE_TIMEOUT_SECONDS_MAX.toLocaleString('en-US')}) without it, the rollout pauses with reason \`convergence\`. Auto cadence only; not on the final step.`,
);
export type HoldFromConvergence = z.infer<typeof HoldFromConvergence>;

export const RampStep = named(
  'RampStep',
  z.object({
    percent: z.number(),
    holdForSeconds: z.number().int(),
    requiresApproval: z.boolean().optional(),
    guard: StepGuard.optional(),
    holdFromConvergence: HoldFromConvergence.optional(),
  }),
);

/** Every status of a rollout. */
export const ROLLOUT_STATUSES = ['active', 'paused', 'completed', 'cancelled'] as const;
export const RolloutStatus = named('RolloutStatus', z.enum(ROLLOUT_STATUSES));
export type RolloutStatus = z.infer<typeof RolloutStatus>;

/**
 * The statuses of a live rollout: an environment has at most one live rollout per flag or config,
 * and the ruleset serves it. `completed` and `cancelled` rollouts are history.
 */
export const LIVE_STATUSES = ['active', 'paused'] as const satisfies readonly RolloutStatus[];
export type LiveStatus = (typeof LIVE_STATUSES)[number];

/** Whether a rollout in this status is live (active or paused). */
export const isLiveStatus = (status: RolloutStatus): status is LiveStatus => LIVE_STATUSES.some((live) => live === status);
export const PausedReason = named(
  'PausedReason',
  z.enum(['user', 'approval_gate', 'auto_rollback', 'guard', 'convergence']),
  '`user`: a person paused it; `approval_gate`: the ramp waits for an approval; `auto_rollback`: rolled back to 0 % by an alert or a guarded step\'s regression; `guard`: a guarded step stopped the ramp where it was (a metric whose action is pause, a sample-ratio mismatch, or too little data at its longest hold); `convergence`: a step that holds from convergence timed out before enough SDK instances served it.',
);
export type PausedReason = z.infer<typeof PausedReason>;
export const Cadence = named('Cadence', z.enum(['auto', 'manual']));
export type Cadence = z.infer<typeof Cadence>;
/**
 * The operator actions on a rollout. `approve` resumes a rollout held at an approval gate (POST
 * resume); `rollback` is the manual rollback (POST rollback).
 */
export const ROLLOUT_ACTIONS = ['pause', 'resume', 'approve', 'advance', 'rollback', 'cancel'] as const;
export const RolloutAction = named('RolloutAction', z.enum(ROLLOUT_ACTIONS));
export type RolloutAction = z.infer<typeof RolloutAction>;
export const PrimitiveKind = named('PrimitiveKind', z.enum(['flag', 'config']));
export type PrimitiveKind = z.infer<typeof PrimitiveKind>;

/** Where and why a rollback fire paused the rollout (banner data; see rollback.ts). */
export const AutoRollbackInfoRef = named(
  'AutoRollbackInfo',
  z.object({
    firedAt: Timestamp,
    secretId: Id,
    secretName: z.string(),
    parsedMonitorUrl: z.string().nullable(),
  }),
  'The last rollback fire that paused this rollout; the dashboard shows a banner for an hour after `firedAt`.',
);

/** When the fleet served a rollback (docs/convergence.md). */
export const RollbackConvergence = named(
  'RollbackConvergence',
  z.object({
    version: z.number().int().describe('The environment version the rollback was written at (or a later one the fleet was measured on).'),
    rolledBackAt: Timestamp,
    convergedAt: Timestamp.nullable().describe(`When ${ROLLBACK_CONVERGED_PERCENT} % of the SDK instances seen recently first served \`version\` or a later one; null when they did not within the watch (an hour), or no instance was seen.`),
    convergedMs: z.number().int().nullable().describe('convergedAt − rolledBackAt, in milliseconds.'),
    instances: z.number().int().describe('SDK instances seen in the ledger\'s window when it was recorded.'),
    serving: z.number().int().describe('Of those, the ones serving `version` or a later one.'),
  }),
  `The last rollback's convergence: recorded once ${ROLLBACK_CONVERGED_PERCENT} % of the SDK instances seen recently serve it, or when its watch of an hour ends.`,
);
export type RollbackConvergence = z.infer<typeof RollbackConvergence>;

export const Rollout = named(
  'Rollout',
  z.object({
    id: Id,
    environmentId: Id,
    primitiveKind: PrimitiveKind,
    primitiveKey: z.string(),
    status: RolloutStatus,
    percent: z.number(),
    pausedAtPercent: z.number().nullable(),
    pausedReason: PausedReason.nullable(),
    rolledBackFromPercent: z.number().nullable(),
    seed: z.string(),
    bucketField: z.string(),
    newValue: JsonValue.optional(),
    planKey: z.string().nullable(),
    planRampStepsSnapshot: z.array(RampStep).nullable(),
    cadence: Cadence.nullable(),
    planBlackoutDaysOfWeek: z.array(z.number().int()).nullable(),
    planBlackoutTimezone: z.string().nullable(),
    rampStepIdx: z.number().int().nullable(),
    nextStepAt: Timestamp.nullable(),
    stepVersion: z
      .number()
      .int()
      .nullable()
      .describe('The environment version that made the rollout what it is now (its latest audited change: the step it entered, a pause, a rollback); null for a rollout last written before versions were recorded.'),
    awaitingConvergenceUntil: Timestamp.nullable().describe(
      'While the current step holds from convergence and the fleet has not reached it: when the rollout pauses if it still has not (the hold, and `nextStepAt`, start once it has). Null otherwise.',
    ),
    targetIdsCount: z.number().int(),
    lastAutoRollback: AutoRollbackInfoRef.nullable(),
    lastGuardStop: GuardStop.nullable(),
    lastRollbackConvergence: RollbackConvergence.nullable(),
    allowedActions: z.array(RolloutAction).describe(
      'The actions the rollout accepts in its state, from the state machine: `approve` (POST resume) while held at an approval gate, `resume` after a pause or a rollback, never `advance` while gated or rolled back. Empty once completed or cancelled.',
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);
export type Rollout = z.infer<typeof Rollout>;

/** What a rollout was doing (or is planned to do) over a stretch of its ramp. */
export const RAMP_PHASES = ['active', 'paused', 'approval_gate', 'rolled_back', 'completed', 'cancelled'] as const;
export const RolloutRampPhase = named(
  'RolloutRampPhase',
  z.enum(RAMP_PHASES),
  '`active`: ramping; `paused`: paused by a person; `approval_gate`: held before a step that requires approval; `rolled_back`: paused at 0% by a rollback; `completed`, `cancelled`: ended (a cancelled rollout admits 0%).',
);
export type RolloutRampPhase = z.infer<typeof RolloutRampPhase>;

/** Recorded (from the rollout's audit rows) or projected (from its plan). */
export const RolloutRampKind = named('RolloutRampKind', z.enum(['done', 'planned']));
export type RolloutRampKind = z.infer<typeof RolloutRampKind>;

/** What a planned change waits for besides the clock. */
export const RAMP_WAITS = ['schedule', 'approval', 'resume', 'advance'] as const;
export const RolloutRampWait = named(
  'RolloutRampWait',
  z.enum(RAMP_WAITS),
  '`schedule`: the scheduler alone; `approval`: someone approving a gated step first; `resume`: someone resuming the paused rollout first; `advance`: an operator advancing a manual plan.',
);
export type RolloutRampWait = z.infer<typeof RolloutRampWait>;

/** Why the ramp changed at a mark. */
export const RAMP_MARK_CAUSES = [
  'created',
  'edited',
  'paused',
  'resumed',
  'advanced',
  'approval_gate',
  'approved',
  'rolled_back',
  'completed',
  'cancelled',
  'current',
  'step',
] as const;
export const RolloutRampMarkCause = named(
  'RolloutRampMarkCause',
  z.enum(RAMP_MARK_CAUSES),
  'A done mark: the recorded change (`created`, `edited`, `paused`, `resumed`, `advanced`, `approval_gate` (the scheduler stopped before a gated step), `approved`, `rolled_back` (by an alert or an operator), `completed`, `cancelled`), or `current` when the audit log does not show how the rollout reached its present state. A planned mark: `step` (a step is entered), `completed` (the step that reaches 100%), `approval_gate` (the scheduler will stop before a gated step) or `resumed` (a resume returns to the percent rolled back from).',
);
export type RolloutRampMarkCause = z.infer<typeof RolloutRampMarkCause>;

export const RolloutRampSegment = named(
  'RolloutRampSegment',
  z.object({
    from: Timestamp,
    to: Timestamp,
    percent: z.number().describe('Traffic admitted over [from, to).'),
    phase: RolloutRampPhase,
    kind: RolloutRampKind,
  }),
  'A stretch of the staircase: `percent` admitted from `from` (inclusive) to `to`.',
);
export type RolloutRampSegment = z.infer<typeof RolloutRampSegment>;

export const RolloutRampMark = named(
  'RolloutRampMark',
  z.object({
    at: Timestamp,
    percent: z.number().describe('Traffic admitted after the change.'),
    kind: RolloutRampKind,
    cause: RolloutRampMarkCause,
    step: z.number().int().nullable().describe('The ramp step (0-based) the rollout is at after the change; null off a plan.'),
    waitsFor: RolloutRampWait.nullable().describe('A planned mark: what it waits for; null for a done mark.'),
    gate: z.boolean().describe('A planned stop before a step that requires approval.'),
  }),
  'A point where the ramp changed (done) or is expected to change (planned). A planned change that waits for a person is placed at the earliest time it could happen.',
);
export type RolloutRampMark = z.infer<typeof RolloutRampMark>;

export const RolloutRamp = named(
  'RolloutRamp',
  z.object({
    segments: z.array(RolloutRampSegment),
    marks: z.array(RolloutRampMark),
    now: Timestamp.describe('The instant the ramp was computed at (the server’s clock): done segments end here, planned ones start here.'),
    start: Timestamp.describe('The rollout’s creation: the left edge of the ramp.'),
    end: Timestamp.describe('A little after the last planned change (or now): the right edge of the ramp.'),
  }),
  'The rollout’s ramp on a time line, as of the request: the past from its recorded transitions (its audit rows: the actual times, percents, pauses, approval gates, rollbacks and resumes; `done`), the future projected from its plan snapshot by the scheduler’s own rules (exact holds, blackout days as local dates in the plan’s time zone, stops at approval gates; `planned`). Done segments end at the request’s time; planned ones start there.',
);
export type RolloutRamp = z.infer<typeof RolloutRamp>;

const PlanKey = z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'only letters, digits, ".", "_" and "-"');

export const PutRolloutRequest = named(
  'PutRolloutRequest',
  z.object({
    percent: Percent,
    planKey: PlanKey.nullable().optional(),
    seed: z.string().min(1).max(256).optional(),
    bucketField: z.string().min(1).max(ATTRIBUTE_NAME_MAX_LENGTH).optional(),
    newValue: JsonValue.optional(),
    newVariant: VariantName.optional().describe('Instead of `newValue`: the name of one of the flag\'s or config\'s declared `variants`, resolved to its value when written (send one of the two).'),
  }),
  'Creates the rollout, or edits the live one. `planKey: null` detaches the plan; omitting it keeps the attachment. Omitting `newValue` (and `newVariant`) on a primitive with rules makes the rollout gate those rules.',
);

export const RampStepInput = named(
  'RampStepInput',
  z.object({
    percent: Percent,
    holdForSeconds: z
      .number()
      .int()
      .min(0)
      .max(HOLD_SECONDS_MAX, `must be an integer from ${HOLD_SECONDS_MIN} to ${HOLD_SECONDS_MAX}`),
    requiresApproval: z.boolean().optional(),
    guard: StepGuardInput.optional(),
    holdFromConvergence: HoldFromConvergence.optional(),
  }),
  `\`holdForSeconds\`: ${HOLD_SECONDS_MIN} to ${HOLD_SECONDS_MAX.toLocaleString('en-US')} s (30 days) on every step but the last, which holds 0.`,
);

const DayOfWeek = z.number().int().min(0).max(6);
const PlanFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).optional(),
  rampSteps: z
    .array(RampStepInput)
    .min(RAMP_STEPS_MIN, `must have at least ${RAMP_STEPS_MIN} step`)
    .max(RAMP_STEPS_MAX, `must have at most ${RAMP_STEPS_MAX} steps`),
  cadence: Cadence.optional(),
  blackoutDaysOfWeek: z.array(DayOfWeek).max(7).optional(),
  blackoutTimezone: z.string().min(1).max(64).optional(),
};

export const CreateRolloutPlanRequest = named(
  'CreateRolloutPlanRequest',
  z.object({ key: PlanKey, ...PlanFields }),
  '`cadence` defaults to manual, `blackoutDaysOfWeek` to [] (0 = Sunday … 6 = Saturday), `blackoutTimezone` to UTC.',
);

export const UpdateRolloutPlanRequest = named(
  'UpdateRolloutPlanRequest',
  z
    .object({
      name: PlanFields.name.optional(),
      description: PlanFields.description,
      rampSteps: PlanFields.rampSteps.optional(),
      cadence: PlanFields.cadence,
      blackoutDaysOfWeek: PlanFields.blackoutDaysOfWeek,
      blackoutTimezone: PlanFields.blackoutTimezone,
    })
    .strict(),
  'Any plan field but the key. Live rollouts keep their snapshot.',
);

export const RolloutPlan = named(
  'RolloutPlan',
  z.object({
    id: Id,
    projectId: Id,
    key: z.string(),
    name: z.string(),
    description: z.string().optional(),
    rampSteps: z.array(RampStep),
    cadence: Cadence,
    blackoutDaysOfWeek: z.array(z.number().int()),
    blackoutTimezone: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);
export type RolloutPlan = z.infer<typeof RolloutPlan>;

export const TargetId = z.string().min(1).max(TARGET_ID_MAX_LENGTH);
export const TargetIdsRequest = named('TargetIdsRequest', z.object({ targetIds: z.array(TargetId).max(100_000) }));
export const ReplaceTargetIdsRequest = named(
  'ReplaceTargetIdsRequest',
  z.object({ targetIds: z.array(TargetId).max(1_000_000) }),
);
export const TargetIdsAdded = named('TargetIdsAdded', z.object({ added: z.number().int(), count: z.number().int() }));
export type TargetIdsAdded = z.infer<typeof TargetIdsAdded>;
export const TargetIdsRemoved = named('TargetIdsRemoved', z.object({ removed: z.number().int(), count: z.number().int() }));
export type TargetIdsRemoved = z.infer<typeof TargetIdsRemoved>;
export const TargetIdsCount = named('TargetIdsCount', z.object({ count: z.number().int() }));
export type TargetIdsCount = z.infer<typeof TargetIdsCount>;
export const TargetIdPage = named(
  'TargetIdPage',
  z.object({ items: z.array(z.string()), nextCursor: z.string().optional() }),
  '`nextCursor` is present only when the page is full.',
);
export const TargetIdContains = named('TargetIdContains', z.object({ contains: z.boolean() }));
export const TargetIdListQuery = z.object({
  cursor: z.string().max(2048).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
});

export const RolloutMigrationWarning = named(
  'RolloutMigrationWarning',
  z.object({
    flagKey: z.string(),
    envId: Id,
    rolloutId: Id,
    ruleIndices: z.array(z.number().int()),
    hoistedRuleIndex: z.number().int(),
  }),
  'A flag imported with per-rule rollout percentages: the first such rule (hoistedRuleIndex) became the env-scoped rollout; the others (ruleIndices) could not.',
);
