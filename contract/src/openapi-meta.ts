import { extendApi } from '@anatine/zod-openapi';
import type { z } from 'zod';

/**
 * Gives a schema a component name: the OpenAPI generator hoists titled schemas
 * into `components.schemas`, so the SDK gets one named type per resource.
 */
export function named<T extends z.ZodTypeAny>(title: string, schema: T, description?: string): T {
  return extendApi(schema, description ? { title, description } : { title });
}

/** Attaches an example (used by Prism's mock server and the docs). */
export function example<T extends z.ZodTypeAny>(schema: T, value: unknown): T {
  return extendApi(schema, { example: value });
}
