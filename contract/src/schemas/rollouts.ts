import { z } from 'zod';
import { named } from '../openapi-meta.js';
import { Id, JsonValue, Timestamp } from './common.js';

/** 0–100 inclusive with at most 4 decimal places (validated by refine, not multipleOf: float rounding). */
export const Percent = z
  .number()
  .min(0)
  .max(100)
  .refine((n) => Math.abs(n * 10_000 - Math.round(n * 10_000)) < 1e-6, 'at most 4 decimal places');

export const RampStep = named(
  'RampStep',
  z.object({
    percent: Percent,
    holdForSeconds: z.number().int(),
    requiresApproval: z.boolean().optional(),
  }),
);

export const RolloutStatus = named('RolloutStatus', z.enum(['active', 'paused', 'completed', 'cancelled']));
export const PausedReason = named('PausedReason', z.enum(['user', 'approval_gate', 'auto_rollback']));
export const Cadence = named('Cadence', z.enum(['auto', 'manual']));
export const PrimitiveKind = named('PrimitiveKind', z.enum(['flag', 'config']));
export type PrimitiveKind = z.infer<typeof PrimitiveKind>;

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
    targetIdsCount: z.number().int(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);
export type Rollout = z.infer<typeof Rollout>;
