/**
 * Which value a context gets for one primitive (docs/bucketing.md).
 *
 * Order, for a primitive whose rollout is LIVE (status `active` or `paused`):
 *   1. the context's bucket-field value is on the rollout's target-ID allow-list
 *      → the candidate (`newValue`), reason TARGETING_MATCH, variant `target-id`;
 *   2. the context is admitted (`bucket < percent`) → the candidate, reason SPLIT,
 *      variant `rollout-new`;
 *   3. the first matching rule → its value, reason TARGETING_MATCH, variant `rule-<n>`;
 *   4. the primitive's base value: reason SPLIT, variant `rollout-base` when the rollout
 *      bucketed the context and did not admit it; otherwise reason DEFAULT, variant `default`.
 *
 * Without a live rollout: the first matching rule (TARGETING_MATCH, `rule-<n>`), else the base
 * value: reason STATIC when the primitive has no rules at all, DEFAULT when none matched;
 * variant `default`.
 *
 * Gated rules: when the rollout has no `newValue` (absent or undefined; `null`
 * is a real candidate) the rollout gates the primitive's rules. The candidate
 * is then "the rules", so steps 1 and 2 only decide whether the context is
 * admitted (on the allow-list, or `bucket < percent`): an admitted context goes
 * on to step 3 and gets the first matching rule's value (TARGETING_MATCH) or the
 * base value (DEFAULT, `default`); a context that is not admitted skips step 3
 * and gets the base value (SPLIT, `rollout-base`); a context without the bucket
 * field gets the base value (DEFAULT, `default`).
 *
 * - Rollouts that are `completed` or `cancelled` are ignored entirely (on
 *   completion the server has already made the candidate the base value, and
 *   gated rules stop being gated). No rollout: steps 3 and 4 only.
 * - `paused` admits exactly like `active` (admission continues at the held
 *   percent). An auto-rollback pause sets percent to 0, so nobody is admitted
 *   by percentage, while target IDs still receive the candidate.
 * - The bucket-field value is `context[bucketField]`; it must be a scalar
 *   (string, number, boolean, bigint), stringified with `String(v)` (numbers as
 *   JavaScript's `String(n)`, so `42` and `"42"` are the same id). A context
 *   without it (undefined, null, or an object/array) is never admitted by
 *   percentage and never matches a target ID.
 * - `bucket` in the result is the context's bucket whenever the rollout is
 *   live and the context has the bucket field (also for target-ID hits and
 *   for gated rollouts), otherwise null.
 * - Rule matching semantics, segments included: see rules.ts. Segments come from the ruleset's
 *   `segments` and are compiled once with it.
 * - Variants: each result's `branch` is the branch named above; its `variant` is the declared
 *   name of the served value when the primitive declares `variants` and the value is one of
 *   them (equal as JSON), else the branch.
 * - An archived primitive (`archived: true`) serves its base value to everyone: reason
 *   DISABLED, variant `default`, bucket and rolloutPercent null; its rules and rollout are
 *   not consulted.
 * - Rules that need more than the work budget (rules.ts, rule 10; in practice deep or wide
 *   segment graphs) are undecided: the base value with reason ERROR, variant `default`. Clients that hold a
 *   default of their own (the live client, OpenFeature, OFREP) serve that instead, with error
 *   code GENERAL.
 */
import { murmur3Continue, murmur3Prefix } from './murmur3.js';
import { canonicalString, compileRule, compileSegments, firstMatchingRule, RULES_UNDECIDED, type CompiledRule, type SegmentLookup } from './rules.js';
import {
  isLiveStatus,
  type EvaluationBranch,
  type EvaluationContext,
  type EvaluationReason,
  type EvaluationResult,
  type EvaluationVariant,
  type FlagMetadata,
  type PrimitiveKind,
  type Ruleset,
  type RulesetPrimitive,
  type RulesetSegment,
} from './types.js';
import { variantNamer } from './variants.js';

const TWO_POW_32 = 4294967296;

/** One primitive prepared for repeated evaluation. */
export interface CompiledPrimitive {
  readonly kind: PrimitiveKind;
  readonly key: string;
  /** Its position in its compiled ruleset (0 for one compiled alone): a slot index for per-primitive tallies. */
  readonly ordinal: number;
  /** Its custom metadata (an empty object when it has none). */
  readonly metadata: FlagMetadata;
  evaluate(ctx: EvaluationContext): EvaluationResult;
}

/** The metadata of a primitive without any: one frozen object shared by all. */
export const NO_METADATA: FlagMetadata = Object.freeze({});

class CompiledPrimitiveImpl implements CompiledPrimitive {
  readonly kind: PrimitiveKind;
  readonly key: string;
  readonly ordinal: number;
  readonly metadata: FlagMetadata;
  private readonly base: unknown;
  private readonly rules: readonly CompiledRule[];
  /** `rule-1`, `rule-2`, … for `rules`. */
  private readonly ruleBranches: readonly EvaluationBranch[];
  /**
   * What each branch reports as its variant: the declared name of the value it serves, else the
   * branch (worked out once here, so naming costs evaluation nothing).
   */
  private readonly ruleVariants: readonly EvaluationVariant[];
  private readonly defaultVariant: EvaluationVariant;
  private readonly rolloutBaseVariant: EvaluationVariant;
  private readonly targetVariant: EvaluationVariant;
  private readonly rolloutNewVariant: EvaluationVariant;
  /**
   * The reason of the base value when no rollout decided: STATIC without rules, else DEFAULT;
   * DISABLED for an archived primitive (which then has no rules and no live rollout).
   */
  private readonly baseReason: EvaluationReason;
  /** The live rollout's percent, null without one (every result carries it). */
  private readonly rolloutPercent: number | null;
  /** Rollout live (active or paused). The fields below matter only when true. */
  private readonly live: boolean;
  private readonly gated: boolean;
  private readonly candidate: unknown;
  private readonly percent: number;
  private readonly bucketField: string;
  /** Hash state after `seed + ':'` (see murmur3Prefix); it ends in ':', so never an open surrogate. */
  private readonly prefixH: number;
  private readonly prefixK: number;
  private readonly prefixSh: number;
  private readonly prefixLen: number;
  /**
   * Target IDs as an open-addressing hash table keyed by each ID's bucketing
   * hash (murmur3 of seed + ':' + id), which evaluation computes anyway: a
   * lookup is usually one integer probe, and the string is compared only when
   * the 32-bit hash matches. `targetTable[2s]` is the hash in slot s and
   * `targetTable[2s + 1]` is 1 + the index into `targetIds`, or 0 when the
   * slot is empty. Capacity is a power of two ≥ 4 × the number of IDs (load
   * factor ≤ 0.25; 8 bytes × 4–8 slots per ID, e.g. 32 KiB for 1,000 IDs).
   */
  private readonly targetMask: number;
  private readonly targetTable: Int32Array;
  private readonly targetIds: readonly string[];
  /**
   * Pre-filter: bit (h >>> 16) is set when some target ID's hash has those top
   * 16 bits (65,536 bits = 8 KiB). Most non-targets are rejected with one load.
   */
  private readonly targetBits: Int32Array;

  constructor(p: RulesetPrimitive, segments: SegmentLookup, ordinal: number) {
    this.kind = p.kind;
    this.key = p.key;
    this.ordinal = ordinal;
    this.metadata = p.metadata === undefined ? NO_METADATA : Object.freeze({ ...p.metadata });
    this.base = p.value;
    const archived = p.archived === true;
    this.rules = archived ? [] : (p.rules ?? []).map((rule) => compileRule(rule, segments));
    this.ruleBranches = this.rules.map((_, i): EvaluationBranch => `rule-${i + 1}`);
    const nameOf = variantNamer(p.variants);
    const baseName = nameOf(p.value);
    this.ruleVariants = this.rules.map((rule, i) => nameOf(rule.value) ?? (this.ruleBranches[i] as EvaluationBranch));
    this.defaultVariant = baseName ?? 'default';
    this.rolloutBaseVariant = baseName ?? 'rollout-base';
    const r = archived ? null : p.rollout;
    const candidateName = r != null ? nameOf(r.newValue) : undefined;
    this.targetVariant = candidateName ?? 'target-id';
    this.rolloutNewVariant = candidateName ?? 'rollout-new';
    this.live = r != null && isLiveStatus(r.status);
    this.rolloutPercent = this.live && r != null ? r.percent : null;
    this.baseReason = archived ? 'DISABLED' : this.rules.length === 0 && !this.live ? 'STATIC' : 'DEFAULT';
    this.gated = r != null && r.newValue === undefined;
    this.candidate = r?.newValue;
    this.percent = r != null ? r.percent : 0;
    this.bucketField = r != null ? r.bucketField : '';
    const prefix = murmur3Prefix((r != null ? r.seed : '') + ':');
    this.prefixH = prefix.h;
    this.prefixK = prefix.k;
    this.prefixSh = prefix.sh;
    this.prefixLen = prefix.len;

    const ids = r != null && this.live ? [...new Set(r.targetIds)] : [];
    let cap = 1;
    while (cap < ids.length * 4) cap *= 2;
    this.targetMask = cap - 1;
    this.targetTable = new Int32Array(cap * 2);
    this.targetIds = ids;
    this.targetBits = new Int32Array(ids.length === 0 ? 1 : 2048);
    for (let t = 0; t < ids.length; t++) {
      const h = this.hash(ids[t] as string) | 0;
      let slot = h & this.targetMask;
      while (this.targetTable[slot * 2 + 1] !== 0) slot = (slot + 1) & this.targetMask;
      this.targetTable[slot * 2] = h;
      this.targetTable[slot * 2 + 1] = t + 1;
      const top = h >>> 16;
      this.targetBits[top >>> 5] = (this.targetBits[top >>> 5] as number) | (1 << (top & 31));
    }
  }

  /** murmur3(seed + ':' + id), unsigned. */
  private hash(id: string): number {
    return murmur3Continue(this.prefixH, this.prefixK, this.prefixSh, this.prefixLen, id);
  }

  /** Whether `id`, whose (unsigned) hash is `h`, is a target ID. */
  private isTarget(h: number, id: string): boolean {
    const top = h >>> 16;
    if ((((this.targetBits[top >>> 5] as number) >>> (top & 31)) & 1) === 0) return false;
    h |= 0;
    const table = this.targetTable;
    const mask = this.targetMask;
    let slot = h & mask;
    for (;;) {
      const t = table[slot * 2 + 1] as number;
      if (t === 0) return false;
      if (table[slot * 2] === h && this.targetIds[t - 1] === id) return true;
      slot = (slot + 1) & mask;
    }
  }

  private result(value: unknown, reason: EvaluationReason, variant: EvaluationVariant, branch: EvaluationBranch, bucket: number | null): EvaluationResult {
    return { kind: this.kind, value, reason, variant, branch, bucket, rolloutPercent: this.rolloutPercent };
  }

  evaluate(ctx: EvaluationContext): EvaluationResult {
    if (this.live) {
      const raw = ctx[this.bucketField];
      const id = typeof raw === 'string' ? raw : canonicalString(raw);
      if (id !== null) {
        const h = this.hash(id);
        const b = (h / TWO_POW_32) * 100;
        const targeted = this.targetIds.length !== 0 && this.isTarget(h, id);
        if (!this.gated) {
          if (targeted) return this.result(this.candidate, 'TARGETING_MATCH', this.targetVariant, 'target-id', b);
          if (b < this.percent) return this.result(this.candidate, 'SPLIT', this.rolloutNewVariant, 'rollout-new', b);
          return this.applyRules(ctx, b, 'SPLIT', this.rolloutBaseVariant, 'rollout-base');
        }
        if (targeted || b < this.percent) return this.applyRules(ctx, b, 'DEFAULT', this.defaultVariant, 'default');
        return this.result(this.base, 'SPLIT', this.rolloutBaseVariant, 'rollout-base', b);
      }
      if (this.gated) return this.result(this.base, 'DEFAULT', this.defaultVariant, 'default', null);
    }
    return this.applyRules(ctx, null, this.baseReason, this.defaultVariant, 'default');
  }

  /** The first matching rule's value, or the base value with `reason`, `variant` and `branch`. */
  private applyRules(ctx: EvaluationContext, b: number | null, reason: EvaluationReason, variant: EvaluationVariant, branch: EvaluationBranch): EvaluationResult {
    const rules = this.rules;
    if (rules.length !== 0) {
      const i = firstMatchingRule(rules, ctx);
      if (i >= 0) return this.result((rules[i] as CompiledRule).value, 'TARGETING_MATCH', this.ruleVariants[i] as EvaluationVariant, this.ruleBranches[i] as EvaluationBranch, b);
      if (i === RULES_UNDECIDED) return this.result(this.base, 'ERROR', this.defaultVariant, 'default', b);
    }
    return this.result(this.base, reason, variant, branch, b);
  }
}

/**
 * Prepares one primitive: target IDs into a hash table, the `seed + ':'`
 * prefix pre-hashed, conditions pre-parsed. The compiled form captures the
 * ruleset at compile time; later mutation of `p` is not seen. `segments` are
 * the ruleset's segments its segment conditions may name (none: nobody is in
 * any segment).
 */
export function compilePrimitive(p: RulesetPrimitive, segments?: readonly RulesetSegment[]): CompiledPrimitive {
  return new CompiledPrimitiveImpl(p, compileSegments(segments), 0);
}

/**
 * Evaluates one primitive for one context. Compiles the primitive (and
 * `segments`) on every call (O(target IDs)); for repeated evaluation use
 * {@link compileRuleset} or {@link compilePrimitive}, which run the same code.
 */
export function evaluatePrimitive(p: RulesetPrimitive, ctx: EvaluationContext, segments?: readonly RulesetSegment[]): EvaluationResult {
  return new CompiledPrimitiveImpl(p, compileSegments(segments), 0).evaluate(ctx);
}

/** A ruleset prepared for repeated evaluation. */
export interface CompiledRuleset {
  readonly envId: string;
  readonly version: number;
  /** Keys in ruleset order. */
  readonly keys: readonly string[];
  has(key: string): boolean;
  /** The compiled primitive for `key` (evaluate it directly to skip the key lookup), or undefined. */
  primitive(key: string): CompiledPrimitive | undefined;
  /** The result for `key`, or undefined when the ruleset has no such primitive. */
  evaluate(key: string, ctx: EvaluationContext): EvaluationResult | undefined;
  /**
   * Results keyed by primitive key, for `keys` (unknown keys are left out) or
   * for every primitive: the `results` of `POST /envs/{envId}/evaluate`.
   */
  evaluateAll(ctx: EvaluationContext, keys?: readonly string[]): Record<string, EvaluationResult>;
}

class CompiledRulesetImpl implements CompiledRuleset {
  readonly envId: string;
  readonly version: number;
  readonly keys: readonly string[];
  private readonly byKey: Map<string, CompiledPrimitive>;

  constructor(ruleset: Ruleset) {
    this.envId = ruleset.envId;
    this.version = ruleset.version;
    this.byKey = new Map();
    const keys: string[] = [];
    const segments = compileSegments(ruleset.segments);
    for (const p of ruleset.primitives) {
      // Keys are unique within an environment; should a key repeat, the first wins.
      if (this.byKey.has(p.key)) continue;
      this.byKey.set(p.key, new CompiledPrimitiveImpl(p, segments, keys.length));
      keys.push(p.key);
    }
    this.keys = keys;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  primitive(key: string): CompiledPrimitive | undefined {
    return this.byKey.get(key);
  }

  evaluate(key: string, ctx: EvaluationContext): EvaluationResult | undefined {
    const p = this.byKey.get(key);
    return p === undefined ? undefined : p.evaluate(ctx);
  }

  evaluateAll(ctx: EvaluationContext, keys?: readonly string[]): Record<string, EvaluationResult> {
    // Null prototype: "__proto__" is a valid primitive key.
    const out = Object.create(null) as Record<string, EvaluationResult>;
    for (const key of keys ?? this.keys) {
      const p = this.byKey.get(key);
      if (p !== undefined) out[key] = p.evaluate(ctx);
    }
    return out;
  }
}

/**
 * Compiles every primitive of a ruleset, and its segments, once; `evaluate` then allocates only
 * the result object.
 */
export function compileRuleset(ruleset: Ruleset): CompiledRuleset {
  return new CompiledRulesetImpl(ruleset);
}
