/**
 * A flag's or config's declared variants (name → value): the checks of a declared map, the
 * resolution of a write that names a variant instead of its value, and which variants a change
 * of the map may not touch. Values are compared as JSON (valueKey: object members in any order).
 */
import { valueKey } from '@gradual/sdk/evaluation';

export type Variants = Readonly<Record<string, unknown>>;

/**
 * Problems of a declared map, by field (`variants.<name>`, or a path under it): those `problemsOf`
 * finds in a value (a flag's values have its type, a config's its schema), or a value an earlier
 * variant already has (a value names one variant).
 */
export function variantProblems(variants: Variants, problemsOf: (value: unknown, field: string) => Record<string, string>): Record<string, string> {
  const fields: Record<string, string> = {};
  const named = new Map<string, string>();
  for (const [name, value] of Object.entries(variants)) {
    const problems = problemsOf(value, `variants.${name}`);
    if (Object.keys(problems).length) {
      Object.assign(fields, problems);
      continue;
    }
    const key = valueKey(value) ?? '';
    const first = named.get(key);
    if (first !== undefined) fields[`variants.${name}`] = `the same value as "${first}": each variant has its own value`;
    else named.set(key, name);
  }
  return fields;
}

/** A value given directly, or the name of a declared variant (a write's two ways of saying it). */
export interface ValueOrVariant {
  value?: unknown;
  variant?: string | undefined;
}

/**
 * The value a write means: `value`, or the value of the variant it names. A problem for `field`
 * (the value's field; the variant's is `variantField`) when both or neither are given, or the name
 * is not declared.
 */
export function resolveVariant(
  variants: Variants,
  given: ValueOrVariant,
  fields: { value: string; variant: string },
): { value: unknown } | { field: string; problem: string } {
  if (given.variant === undefined) return given.value === undefined ? { field: fields.value, problem: 'Required' } : { value: given.value };
  if (given.value !== undefined) return { field: fields.variant, problem: `send ${fields.value} or ${fields.variant}, not both` };
  if (!Object.hasOwn(variants, given.variant)) {
    const declared = Object.keys(variants);
    return { field: fields.variant, problem: declared.length ? `no variant "${given.variant}" (declared: ${declared.join(', ')})` : `no variant "${given.variant}": this flag declares none` };
  }
  return { value: variants[given.variant] };
}

/**
 * The variants of `before` that `after` renames, changes or removes while one of `inUse` (the
 * values a state, rule, live rollout or the default value holds) is theirs.
 */
export function variantsInUseChanged(before: Variants, after: Variants, inUse: Iterable<unknown>): string[] {
  const used = new Set<string>();
  for (const value of inUse) {
    const key = valueKey(value);
    if (key !== undefined) used.add(key);
  }
  return Object.entries(before)
    .filter(([name, value]) => {
      const key = valueKey(value);
      if (key === undefined || !used.has(key)) return false;
      return !Object.hasOwn(after, name) || valueKey(after[name]) !== key;
    })
    .map(([name]) => name);
}
