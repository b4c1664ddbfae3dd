import { describe, expect, it } from 'vitest';
import { schemaToTypeScript } from './json-schema.js';

describe('schemaToTypeScript', () => {
  it.each([
    ['a type', { type: 'string' }, 'string'],
    ['integer as number', { type: 'integer' }, 'number'],
    ['several types', { type: ['string', 'null'] }, 'string | null'],
    ['const', { const: 'on' }, '"on"'],
    ['enum', { enum: ['light', 'dark', 1] }, '"light" | "dark" | 1'],
    ['anyOf', { anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
    ['array of scalars', { type: 'array', items: { type: 'number' } }, 'number[]'],
    ['array of a union', { type: 'array', items: { enum: ['a', 'b'] } }, 'Array<"a" | "b">'],
    ['tuple', { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false }, '[string, number]'],
    ['open object', { type: 'object' }, '{ [key: string]: JsonValue }'],
    ['map', { type: 'object', additionalProperties: { type: 'integer' } }, '{ [key: string]: number }'],
    ['nothing it understands', { minimum: 3 }, 'JsonValue'],
  ])('%s', (_name, schema, expected) => {
    expect(schemaToTypeScript(schema)).toBe(expected);
  });

  it('an object: required and optional properties, nested, references to $defs, recursion cut off', () => {
    const schema = {
      type: 'object',
      properties: { maxItems: { type: 'integer' }, owner: { $ref: '#/$defs/person' }, tree: { $ref: '#/$defs/node' } },
      required: ['maxItems'],
      $defs: {
        person: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
        node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } },
      },
    };
    const type = schemaToTypeScript(schema);
    expect(type).toContain('"maxItems": number;');
    expect(type).toContain('"owner"?: {\n      "email": string;\n    };');
    expect(type).toContain('"child"?: JsonValue;'); // nine levels down
  });
});
