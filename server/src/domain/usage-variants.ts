import { Rules } from '@gradual/contract';

/** The most rules a flag or config may have (the contract's limit on `rules`). */
export const RULES_PER_PRIMITIVE_MAX = Rules._def.maxLength?.value ?? 200;

/** The variants the evaluator serves besides `rule-<n>` (sdk/src/evaluation/evaluate.ts). */
const FIXED_VARIANTS: ReadonlySet<string> = new Set(['default', 'target-id', 'rollout-new', 'rollout-base']);

const RULE_VARIANT = /^rule-([1-9][0-9]{0,2})$/;

/**
 * What a reported variant needs of its flag or config for the evaluator to have served it: 0 for
 * `default`, `target-id`, `rollout-new` and `rollout-base` (any flag or config can serve them),
 * `n` for `rule-<n>` (written as the evaluator writes it, 1 to the contract's rule limit: it needs
 * at least `n` rules), and null for anything else, which no evaluation ever serves.
 */
export function rulesNeededFor(variant: string): number | null {
  if (FIXED_VARIANTS.has(variant)) return 0;
  const rule = RULE_VARIANT.exec(variant);
  if (!rule) return null;
  const n = Number(rule[1]);
  return n <= RULES_PER_PRIMITIVE_MAX ? n : null;
}
