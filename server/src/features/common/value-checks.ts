/**
 * What a flag's or config's values must be: a flag's of its value type; a config's any JSON, or
 * what its JSON Schema (docs/configs.md) accepts. Problems are reported per field, a schema's by
 * the path inside the value (`value.limits.maxItems`), as the 400's `fields`.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { CONFIG_SCHEMA_MAX_LENGTH } from '@gradual/contract';
import { valueKey } from '@gradual/sdk/evaluation';
import type { Primitive } from '../../db/entities/index.js';

/** What a value is checked against: the primitive's kind, a flag's type, a config's schema. */
export type ValueShape = Pick<Primitive, 'kind' | 'valueType' | 'schema'>;

/** Compiled schemas by their JSON text; writes are rare, so a small cache holds the ones in use. */
const compiled = new Map<string, ValidateFunction>();
const COMPILED_MAX = 256;

/**
 * A fresh validator per schema (an Ajv instance keeps every schema it compiled): draft 2020-12,
 * strict about the schema's words (an unknown keyword or format is an error, not ignored) but not
 * its style (a `properties` without `type: "object"` is fine), every error reported, no remote
 * references.
 */
const newAjv = () => new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, strictRequired: false, allErrors: true });

/** Keywords whose value is a subschema, a list of them, or a map of them (draft 2020-12's applicators). */
const ONE = ['additionalProperties', 'items', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems'];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', '$defs', 'definitions', 'dependentSchemas', 'patternProperties'];

/**
 * The path of a `pattern` or `patternProperties` keyword in the schema, or null: a regular
 * expression chosen by whoever writes the schema would run on every value written, and one can
 * take exponential time. Only keywords count: a property named "pattern" is fine.
 */
function regexKeyword(schema: unknown, at: string): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return null;
  const s: Record<string, unknown> = { ...schema };
  for (const keyword of ['pattern', 'patternProperties']) if (Object.hasOwn(s, keyword)) return `${at}${keyword}`;
  const children: Array<[string, unknown]> = [
    ...ONE.filter((k) => Object.hasOwn(s, k)).map((k): [string, unknown] => [`${at}${k}/`, s[k]]),
    ...LIST.flatMap((k) => (Array.isArray(s[k]) ? s[k].map((v: unknown, i): [string, unknown] => [`${at}${k}/${i}/`, v]) : [])),
    ...MAP.flatMap((k) => {
      const map = s[k];
      return typeof map === 'object' && map !== null ? Object.entries(map).map(([name, v]): [string, unknown] => [`${at}${k}/${name}/`, v]) : [];
    }),
  ];
  for (const [path, child] of children) {
    const found = regexKeyword(child, path);
    if (found) return found;
  }
  return null;
}

/** The schema's validator, or why the schema is refused. */
export function compileSchema(schema: Readonly<Record<string, unknown>>): { validate: ValidateFunction } | { problem: string } {
  const text = valueKey(schema) ?? '{}';
  if (text.length > CONFIG_SCHEMA_MAX_LENGTH) return { problem: `longer than ${CONFIG_SCHEMA_MAX_LENGTH} characters as JSON` };
  const cached = compiled.get(text);
  if (cached) return { validate: cached };
  const regex = regexKeyword(schema, '/');
  if (regex) return { problem: `${regex}: pattern and patternProperties are not accepted (a regular expression would run on every value written)` };
  let validate: ValidateFunction;
  try {
    validate = newAjv().compile(schema);
  } catch (err) {
    return { problem: `not a schema Gradual accepts: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value!);
  compiled.set(text, validate);
  return { validate };
}

/** A JSON Pointer (`/limits/0`) as the dotted tail of a field (`.limits.0`). */
const dotted = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((part) => `.${part.replace(/~1/g, '/').replace(/~0/g, '~')}`)
    .join('');

/** Ajv's errors by field under `field`: a missing or unexpected property names its own path. */
function fieldsOf(errors: readonly ErrorObject[], field: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const add = (path: string, message: string) => (fields[path] = fields[path] ? `${fields[path]}; ${message}` : message);
  for (const e of errors) {
    const at = field + dotted(e.instancePath);
    const params: Record<string, unknown> = e.params;
    if (e.keyword === 'required' && typeof params.missingProperty === 'string') add(`${at}.${params.missingProperty}`, 'required');
    else if (e.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') add(`${at}.${params.additionalProperty}`, 'not allowed by the schema');
    else add(at, e.message ?? `fails ${e.keyword}`);
  }
  return fields;
}

/** Problems of `value` for a value of `p`, by field (`field` is the value's own): none when it fits. */
export function valueProblems(p: ValueShape, value: unknown, field: string): Record<string, string> {
  if (value === undefined) return { [field]: 'Required' };
  if (p.kind === 'config') {
    if (!p.schema) return {};
    const compiledSchema = compileSchema(p.schema);
    // A stored schema compiled when it was written; should it not now, values are not blocked by it.
    if ('problem' in compiledSchema) return {};
    return compiledSchema.validate(value) ? {} : fieldsOf(compiledSchema.validate.errors ?? [], field);
  }
  // JSON cannot carry a non-finite number: 1e309 parses as Infinity and would be stored as null.
  const ok = typeof value === p.valueType && (typeof value !== 'number' || Number.isFinite(value));
  return ok ? {} : { [field]: `must be a ${p.valueType}` };
}
