import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import {
  GUARD_MAX_HOLD_FACTOR_MAX,
  GUARD_METRICS_PER_STEP_MAX,
  GUARD_MIN_UNITS_PER_ARM_MAX,
  GUARD_MIN_UNITS_PER_ARM_MIN,
  HOLD_SECONDS_MAX,
  RAMP_STEPS_MAX,
  RAMP_STEPS_MIN,
} from '@gradual/contract/limits';
import { CliError } from '../errors.js';

/** A JSON value: what a flag or config may hold, and what a rule serves. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
const Json: z.ZodType<Json> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(Json), z.record(Json)]));

const KEY = /^[A-Za-z0-9._-]+$/;
const Key = (max: number) => z.string().min(1).max(max).regex(KEY, 'only letters, digits, ".", "_" and "-"');

const Condition = z
  .object({
    attribute: z.string().min(1).max(128),
    operator: z.enum(['in', 'not_in', 'starts_with', 'ends_with', 'contains', 'gt', 'gte', 'lt', 'lte', 'in_segment', 'not_in_segment']),
    values: z.array(z.union([z.string().max(1024), z.number()])).min(1).max(1000),
  })
  .strict();

const Rule = z
  .object({
    description: z.string().max(500).optional(),
    conditions: z.array(Condition).max(50),
    value: Json,
  })
  .strict();
export type FileRule = z.infer<typeof Rule>;

/** A flag's or config's value and rules in one environment; an omitted field is left as it is. */
const EnvState = z
  .object({
    value: Json.optional(),
    rules: z.array(Rule).max(200).optional(),
  })
  .strict();
export type FileEnvState = z.infer<typeof EnvState>;

const Environments = z.record(Key(64), EnvState).optional();

const Flag = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    valueType: z.enum(['boolean', 'string', 'number']).optional(),
    defaultValue: Json,
    environments: Environments,
  })
  .strict();
export type FileFlag = z.infer<typeof Flag>;

const Config = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    defaultValue: Json,
    environments: Environments,
  })
  .strict();
export type FileConfig = z.infer<typeof Config>;

const Percent = z
  .number()
  .min(0)
  .max(100)
  .refine((n) => Math.abs(n * 10_000 - Math.round(n * 10_000)) < 1e-6, 'at most 4 decimal places');

/** A step's guard (docs/guards.md): the metrics it watches, by key, and its data limits. */
const StepGuard = z
  .object({
    metrics: z
      .array(z.object({ key: z.string().min(1), margin: z.number().min(0).optional(), action: z.enum(['rollback', 'pause']).optional() }).strict())
      .min(1)
      .max(GUARD_METRICS_PER_STEP_MAX),
    minUnitsPerArm: z.number().int().min(GUARD_MIN_UNITS_PER_ARM_MIN).max(GUARD_MIN_UNITS_PER_ARM_MAX).optional(),
    maxHoldFactor: z.number().min(1).max(GUARD_MAX_HOLD_FACTOR_MAX).optional(),
  })
  .strict();

const Plan = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).optional(),
    cadence: z.enum(['auto', 'manual']).optional(),
    rampSteps: z
      .array(
        z.object({ percent: Percent, holdForSeconds: z.number().int().min(0).max(HOLD_SECONDS_MAX), requiresApproval: z.boolean().optional(), guard: StepGuard.optional() }).strict(),
      )
      .min(RAMP_STEPS_MIN)
      .max(RAMP_STEPS_MAX),
    blackoutDaysOfWeek: z.array(z.number().int().min(0).max(6)).max(7).optional(),
    blackoutTimezone: z.string().min(1).max(64).optional(),
  })
  .strict();
export type FilePlan = z.infer<typeof Plan>;

/** gradual.yaml: a project's flags, configs and rollout plans. */
export const GradualFile = z
  .object({
    version: z.literal(1),
    project: Key(64),
    plans: z.record(Key(64), Plan).optional(),
    flags: z.record(Key(128), Flag).optional(),
    configs: z.record(Key(128), Config).optional(),
  })
  .strict();
export type GradualFile = z.infer<typeof GradualFile>;

/**
 * Parses and validates a gradual.yaml text. Every problem is reported with its line and column
 * and its path in the document (`flags.new-checkout.environments.prod.value`).
 */
export function parseGradualFile(text: string, name: string): GradualFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => {
      const { line, col } = lineCounter.linePos(e.pos[0]);
      return `${name}:${line}:${col}: ${e.message.split('\n')[0]}`;
    });
    throw new CliError('invalid_yaml', problems.join('\n'));
  }
  const result = GradualFile.safeParse(doc.toJS());
  if (result.success) return result.data;
  const problems = result.error.issues
    .map((issue) => {
      const pos = locate(doc, issue.path, lineCounter);
      const path = issue.path.join('.') || '(document)';
      const detail = issue.code === 'unrecognized_keys' ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` : issue.message;
      return { pos, text: `${name}${pos ? `:${pos.line}:${pos.col}` : ''}: ${path}: ${detail}` };
    })
    // In the order of the file.
    .sort((a, b) => (a.pos?.line ?? 0) - (b.pos?.line ?? 0) || (a.pos?.col ?? 0) - (b.pos?.col ?? 0))
    .slice(0, 20);
  throw new CliError('invalid_file', problems.map((p) => p.text).join('\n'));
}

/** Line and column of the deepest node of the document on `path`. */
function locate(doc: Document, path: (string | number)[], lineCounter: LineCounter): { line: number; col: number } | undefined {
  let node: unknown = doc.contents;
  let offset = rangeStart(node);
  for (const segment of path) {
    if (!isMap(node) && !isSeq(node)) break;
    const child: unknown = node.get(segment, true);
    if (child === undefined) break;
    node = child;
    offset = rangeStart(child) ?? offset;
  }
  return offset === undefined ? undefined : lineCounter.linePos(offset);
}

function rangeStart(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = node.range;
  return Array.isArray(range) && typeof range[0] === 'number' ? range[0] : undefined;
}
