/**
 * Declared variants: a flag's or config's named values. Evaluation reports the name of the value
 * it served; the server refuses two variants with one value, so a value names at most one.
 */

/**
 * A JSON value's text with object keys sorted, so that two values equal as JSON have one key
 * (`{"a":1,"b":2}` and `{"b":2,"a":1}`). `undefined` (an absent value) has none.
 */
export function valueKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** The name of a value among `variants`, or undefined when it is none of them. */
export type VariantNamer = (value: unknown) => string | undefined;

const NO_NAME: VariantNamer = () => undefined;

/** A namer for `variants` (none: every value is unnamed). */
export function variantNamer(variants: Readonly<Record<string, unknown>> | undefined): VariantNamer {
  if (variants === undefined) return NO_NAME;
  const names = new Map<string, string>();
  for (const [name, value] of Object.entries(variants)) {
    const key = valueKey(value);
    if (key !== undefined && !names.has(key)) names.set(key, name);
  }
  if (names.size === 0) return NO_NAME;
  return (value) => {
    const key = valueKey(value);
    return key === undefined ? undefined : names.get(key);
  };
}
