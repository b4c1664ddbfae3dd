/**
 * A config's JSON Schema as a TypeScript type, for `gradual types`: the keywords that say what a
 * value is (`type`, `const`, `enum`, `properties` with `required`, `additionalProperties`,
 * `items`, `prefixItems`, `anyOf`/`oneOf`, `allOf`, `#/$defs/…` references). What the type cannot
 * say (bounds, lengths) the server checks on write; a schema it does not understand is `JsonValue`.
 */

type Schema = Readonly<Record<string, unknown>>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const quote = (key: string) => JSON.stringify(key);
const union = (types: string[]) => {
  const unique = [...new Set(types)];
  return unique.length === 0 ? 'never' : unique.length === 1 ? unique[0]! : unique.map((t) => (t.includes(' & ') ? `(${t})` : t)).join(' | ');
};

/** References nest at most this deep (a recursive schema's inner levels are `JsonValue`). */
const REF_DEPTH = 8;

export function schemaToTypeScript(root: Schema): string {
  const defs = isSchema(root.$defs) ? root.$defs : {};
  const convert = (schema: unknown, depth: number, indent: string): string => {
    if (schema === true) return 'JsonValue';
    if (schema === false) return 'never';
    if (!isSchema(schema)) return 'JsonValue';
    if ('const' in schema) return JSON.stringify(schema.const);
    if (Array.isArray(schema.enum)) return union(schema.enum.map((v) => JSON.stringify(v)));
    if (typeof schema.$ref === 'string') {
      const name = /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1];
      return name !== undefined && depth < REF_DEPTH ? convert(defs[name], depth + 1, indent) : 'JsonValue';
    }
    const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
    if (alternatives) return union(alternatives.map((s) => convert(s, depth, indent)));
    if (Array.isArray(schema.allOf)) return schema.allOf.map((s) => convert(s, depth, indent)).join(' & ');
    const types = Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === 'string') : typeof schema.type === 'string' ? [schema.type] : [];
    if (types.length === 0) return 'JsonValue';
    return union(types.map((t) => typeOf(t, schema, depth, indent)));
  };
  const typeOf = (type: string, schema: Schema, depth: number, indent: string): string => {
    switch (type) {
      case 'string':
      case 'boolean':
        return type;
      case 'number':
      case 'integer':
        return 'number';
      case 'null':
        return 'null';
      case 'array': {
        if (Array.isArray(schema.prefixItems) && schema.items === false) return `[${schema.prefixItems.map((s) => convert(s, depth, indent)).join(', ')}]`;
        const item = convert(schema.items ?? true, depth, indent);
        return item.includes(' ') ? `Array<${item}>` : `${item}[]`;
      }
      case 'object': {
        const properties = isSchema(schema.properties) ? schema.properties : {};
        const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
        const inner = `${indent}  `;
        const lines = Object.entries(properties).map(([key, s]) => `${inner}${quote(key)}${required.has(key) ? '' : '?'}: ${convert(s, depth, inner)};`);
        const extra = schema.additionalProperties;
        if (lines.length === 0) return extra === false ? 'Record<string, never>' : `{ [key: string]: ${isSchema(extra) ? convert(extra, depth, inner) : 'JsonValue'} }`;
        return `{\n${lines.join('\n')}\n${indent}}`;
      }
      default:
        return 'JsonValue';
    }
  };
  return convert(root, 0, '  ');
}
