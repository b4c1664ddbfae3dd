/**
 * The held ruleset: validated, compiled once per version, and compared with
 * the one it replaces to name the changed keys.
 */
import { compileRuleset, type CompiledRuleset, type Ruleset } from '../evaluation/index.js';

export type RulesetSource = 'server' | 'bootstrap';

export interface HeldRuleset {
  readonly ruleset: Ruleset;
  readonly compiled: CompiledRuleset;
  readonly source: RulesetSource;
  /** Key → bucket field of each primitive with a rollout (for mapping a `targetingKey`). */
  readonly bucketFields: ReadonlyMap<string, string>;
  /** Key → the guarded step its rollout holds at (docs/guards.md), for `guardArm`. */
  readonly guardedSteps: ReadonlyMap<string, GuardedStepOf>;
}

/** A rollout holding at a guarded step: its percent, and whether it gates the rules (no new value). */
export interface GuardedStepOf {
  percent: number;
  gatesRules: boolean;
}

/** What `RulesetCache.replace` did. */
export type Replacement =
  | { kind: 'first'; held: HeldRuleset }
  | { kind: 'changed'; held: HeldRuleset; previousVersion: number; changedKeys: string[] }
  /** Same version and content: the compiled ruleset was kept. */
  | { kind: 'same'; held: HeldRuleset };

/**
 * A shallow shape check of a ruleset (from the server or a bootstrap): enough
 * that compiling and evaluating it cannot trip over a wrong type. The server
 * validates rules on write, so this does not re-validate every condition.
 */
export function rulesetProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return 'not an object';
  const r = value as Partial<Ruleset>;
  if (typeof r.envId !== 'string') return '`envId` is not a string';
  if (typeof r.version !== 'number' || !Number.isInteger(r.version)) return '`version` is not an integer';
  if (!Array.isArray(r.primitives)) return '`primitives` is not an array';
  for (const [i, p] of r.primitives.entries()) {
    if (p === null || typeof p !== 'object') return `primitives[${i}] is not an object`;
    if (typeof p.key !== 'string') return `primitives[${i}].key is not a string`;
    if (p.kind !== 'flag' && p.kind !== 'config') return `primitives[${i}].kind is not flag or config`;
    if (!Array.isArray(p.rules)) return `primitives[${i}].rules is not an array`;
    if (p.rollout != null && (typeof p.rollout !== 'object' || !Array.isArray(p.rollout.targetIds))) {
      return `primitives[${i}].rollout is malformed`;
    }
  }
  return null;
}

/** JSON with object keys sorted, so equal values print equally whatever their key order. */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(obj[k])}`).join(',')}}`;
}

/**
 * Keys of the primitives that differ between two rulesets: added, removed, or
 * changed in any way (value, rules, rollout, target IDs), in `next`'s order
 * followed by the removed ones.
 */
export function changedKeys(previous: Ruleset, next: Ruleset): string[] {
  const before = new Map<string, string>();
  for (const p of previous.primitives) if (!before.has(p.key)) before.set(p.key, stableJson(p));
  const out: string[] = [];
  const seen = new Set<string>();
  for (const p of next.primitives) {
    if (seen.has(p.key)) continue;
    seen.add(p.key);
    if (before.get(p.key) !== stableJson(p)) out.push(p.key);
  }
  for (const key of before.keys()) if (!seen.has(key)) out.push(key);
  return out;
}

function hold(ruleset: Ruleset, source: RulesetSource, compiled?: CompiledRuleset): HeldRuleset {
  const bucketFields = new Map<string, string>();
  const guardedSteps = new Map<string, GuardedStepOf>();
  for (const p of ruleset.primitives) {
    const r = p.rollout;
    if (!r || bucketFields.has(p.key)) continue;
    bucketFields.set(p.key, r.bucketField);
    if (r.guard && r.status === 'active' && r.percent > 0 && r.percent < 100) guardedSteps.set(p.key, { percent: r.percent, gatesRules: r.newValue === undefined });
  }
  return { ruleset, compiled: compiled ?? compileRuleset(ruleset), source, bucketFields, guardedSteps };
}

export class RulesetCache {
  private current: HeldRuleset | null = null;

  get held(): HeldRuleset | null {
    return this.current;
  }

  /**
   * Makes `ruleset` the held one (it must have passed `rulesetProblem`).
   * Throws when it cannot be compiled, keeping the held one.
   */
  replace(ruleset: Ruleset, source: RulesetSource): Replacement {
    const previous = this.current;
    if (!previous) {
      this.current = hold(ruleset, source);
      return { kind: 'first', held: this.current };
    }
    const keys = changedKeys(previous.ruleset, ruleset);
    if (keys.length === 0 && previous.ruleset.version === ruleset.version) {
      this.current = hold(ruleset, source, previous.compiled);
      return { kind: 'same', held: this.current };
    }
    this.current = hold(ruleset, source);
    return { kind: 'changed', held: this.current, previousVersion: previous.ruleset.version, changedKeys: keys };
  }
}
