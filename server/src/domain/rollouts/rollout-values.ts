/**
 * Rollout values as data: validating a requested percent, copying the JSON and plan snapshots a
 * rollout keeps, and comparing two states (PUT idempotency). Pure.
 */
import { DomainError } from '../errors.js';
import type { JsonValue, PlanSnapshot, RolloutState } from './types.js';

/** Deep equality of rollout states: Dates by instant, JSON objects regardless of key order. */
export function sameRolloutState(a: RolloutState, b: RolloutState): boolean {
  return deepEqual(a, b);
}

/** A copy of the plan a PUT attaches; the caller resolves it, and its key must be the requested one. */
export function resolvedPlan(planKey: string, plan: PlanSnapshot | undefined): PlanSnapshot {
  if (!plan || plan.key !== planKey) {
    throw new Error(`put: planKey ${planKey} needs the resolved plan snapshot with that key`);
  }
  return clonePlan(plan);
}

function clonePlan(plan: PlanSnapshot): PlanSnapshot {
  return {
    key: plan.key,
    rampSteps: plan.rampSteps.map((s) => ({ ...s })),
    cadence: plan.cadence,
    blackoutDaysOfWeek: [...plan.blackoutDaysOfWeek],
    blackoutTimezone: plan.blackoutTimezone,
  };
}

/** invalid_request unless `percent` is a number from 0 to 100. */
export function assertPercent(percent: number): void {
  if (!(Number.isFinite(percent) && percent >= 0 && percent <= 100)) {
    throw new DomainError('invalid_request', 'The percent is out of range.', {
      fields: { percent: 'must be a number from 0 to 100' },
    });
  }
}

/** A deep copy of a JSON value (the candidate a rollout stores). */
export function cloneJson(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = cloneJson(v);
    return out;
  }
  return value;
}

/** Deep equality of JSON-like values: Dates by instant, objects regardless of key order. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // A property holding undefined counts as absent (newValue undefined = no candidate).
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}
