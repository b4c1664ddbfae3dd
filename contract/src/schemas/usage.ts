import { z } from 'zod';
import { KEY_MAX_LENGTH } from '../limits.js';
import { example, named } from '../openapi-meta.js';
import { Id, ResourceKey, Timestamp } from './common.js';
import { PrimitiveKind } from './rollouts.js';

/** Entries of one usage report at most: one per flag or config and variant evaluated in the window. */
export const USAGE_REPORT_ENTRIES_MAX = 10_000;

export const UsageEntry = named(
  'UsageEntry',
  z.object({
    kind: PrimitiveKind,
    key: z.string().min(1).max(KEY_MAX_LENGTH),
    variant: z.string().min(1).max(64).describe('The branch that served the evaluations, the evaluation\'s `branch` (`default`, `rule-<n>`, `target-id`, `rollout-new`, `rollout-base`): its `variant` when the flag declares no variants.'),
    count: z.number().int().min(1).max(1_000_000_000),
  }),
);

export const UsageReport = example(
  named(
    'UsageReport',
    z.object({
      windowStart: Timestamp,
      windowEnd: Timestamp,
      entries: z.array(UsageEntry).max(USAGE_REPORT_ENTRIES_MAX),
    }),
    'Evaluation counts an SDK made locally between `windowStart` and `windowEnd` (at most one hour apart; `windowEnd` not in the future, and in the current or the previous UTC hour of the server\'s clock). Counts are added to the hour `windowEnd` falls in; keys the environment does not have are skipped, variants the flag or config cannot serve are dropped, and evaluations beyond the reporter\'s hourly cap are not counted.',
  ),
  {
    windowStart: '2026-11-22T12:00:00.000Z',
    windowEnd: '2026-11-22T12:01:00.000Z',
    entries: [
      { kind: 'flag', key: 'new-checkout', variant: 'rollout-new', count: 1250 },
      { kind: 'flag', key: 'new-checkout', variant: 'rollout-base', count: 3710 },
    ],
  },
);

export const UsageReportAccepted = named(
  'UsageReportAccepted',
  z.object({
    accepted: z.number().int().describe('Entries counted (in full, or scaled down when `overLimit` is not 0).'),
    skipped: z.number().int().describe('Entries naming a flag or config the environment does not have, or the key may not report.'),
    dropped: z.number().int().describe('Entries whose `variant` the flag or config cannot serve in this environment (not one of `default`, `target-id`, `rollout-new`, `rollout-base`, or `rule-<n>` with n at most its number of rules): not counted.'),
    overLimit: z.number().int().describe('Evaluations of accepted entries not counted because the reporter\'s hourly cap was reached (per key; for a client key, per key and client address).'),
  }),
  'What a usage report counted: `accepted + skipped + dropped` is the number of entries.',
);

export const UsageQuery = z.object({
  days: z.coerce.number().int().min(1).max(90).optional().describe('How many days back (default 7).'),
});

export const PrimitiveEnvUsage = named(
  'PrimitiveEnvUsage',
  z.object({
    envId: Id,
    envKey: z.string(),
    lastEvaluatedAt: Timestamp.nullable(),
    total: z.number().int(),
    variants: z.array(z.object({ variant: z.string(), count: z.number().int() })),
    hourly: z.array(z.object({ hour: Timestamp, count: z.number().int() })).describe('Hours with evaluations, oldest first.'),
  }),
);

export const PrimitiveUsage = named(
  'PrimitiveUsage',
  z.object({ kind: PrimitiveKind, key: z.string(), days: z.number().int(), environments: z.array(PrimitiveEnvUsage) }),
  'Evaluations over the last `days` days per environment, counted by SDKs (local evaluation) and by the server (`/evaluate`, OFREP).',
);

export const InsightStatus = named(
  'InsightStatus',
  z.enum(['in_use', 'new', 'not_evaluated', 'ready_to_remove']),
  '`new`: created within `staleAfterDays` and not evaluated yet; `not_evaluated`: no evaluation in any environment for `staleAfterDays`; `ready_to_remove`: every environment serves the same value to everyone (no rules, no live rollout) and nothing changed for `readyAfterDays`; `in_use` otherwise.',
);

/** A repository's report may check this many keys, each with this many locations of this length. */
export const CODE_REFERENCE_KEYS_MAX = 2_000;
export const CODE_REFERENCE_LOCATIONS_MAX = 10;
export const CODE_REFERENCE_LOCATION_MAX_LENGTH = 300;
export const CODE_REFERENCE_REPOSITORY_MAX_LENGTH = 200;

export const CodeReferenceCheck = named(
  'CodeReferenceCheck',
  z.object({
    kind: PrimitiveKind,
    key: ResourceKey,
    references: z.number().int().min(0).max(1_000_000).describe('Uses the check found: 0 means the code compiles without the key.'),
    locations: z.array(z.string().min(1).max(CODE_REFERENCE_LOCATION_MAX_LENGTH)).max(CODE_REFERENCE_LOCATIONS_MAX).describe('Where the first uses are (`path:line`).'),
  }),
);

export const CodeReferenceReport = named(
  'CodeReferenceReport',
  z.object({
    repository: z.string().min(1).max(CODE_REFERENCE_REPOSITORY_MAX_LENGTH).describe('The code base checked; a new report of it replaces the last.'),
    commit: z.string().min(1).max(64).optional(),
    checks: z.array(CodeReferenceCheck).max(CODE_REFERENCE_KEYS_MAX),
  }),
  'What a type check of a code base found about keys (`gradual flags stale --report`): for each key checked, how many uses fail to compile without it.',
);

export const CodeReferenceReportAccepted = named(
  'CodeReferenceReportAccepted',
  z.object({ repository: z.string(), commit: z.string().nullable(), checkedAt: Timestamp, checks: z.number().int() }),
);

export const CodeReferences = named(
  'CodeReferences',
  z.object({
    repository: z.string(),
    commit: z.string().nullable(),
    checkedAt: Timestamp,
    references: z.number().int(),
    locations: z.array(z.string()),
  }),
  "One repository's latest type check of a key.",
);

export const PrimitiveInsight = named(
  'PrimitiveInsight',
  z.object({
    kind: PrimitiveKind,
    key: z.string(),
    name: z.string(),
    status: InsightStatus,
    createdAt: Timestamp,
    lastChangedAt: Timestamp.describe('The last change of its value, rules or rollout in any environment (or its creation).'),
    lastEvaluatedAt: Timestamp.nullable(),
    evaluations: z.number().int().describe('Evaluations in the last `staleAfterDays` days, all environments.'),
    environments: z.array(z.object({ envId: Id, envKey: z.string(), lastEvaluatedAt: Timestamp.nullable(), evaluations: z.number().int() })),
    codeReferences: z.array(CodeReferences).describe('The latest report of each repository that checked the key, newest first.'),
    safeToRemove: z
      .boolean()
      .describe('No evaluation in any environment for `staleAfterDays` (status `not_evaluated`, or `ready_to_remove` without evaluations), checked by at least one repository, and no report that checked it found a reference.'),
  }),
);

export const InsightsQuery = z.object({
  staleAfterDays: z.coerce.number().int().min(1).max(90).optional().describe('Default 7.'),
  readyAfterDays: z.coerce.number().int().min(1).max(365).optional().describe('Default 30.'),
  status: InsightStatus.optional(),
});
