import { randomUUID } from 'node:crypto';
import { p } from '@mikro-orm/core';

/** Any JSON value, including top-level scalars (flag values are often `false`, `0`, `"x"`). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Property builders shared by every entity.
 * Why no DB defaults for ids or timestamps: ids are generated in code so a service knows
 * them before flush, and timestamps come from the service's injectable clock (tests move it).
 */
export const id = () => p.uuid().primary().onCreate(() => randomUUID());
export const timestamp = () => p.datetime().columnType('timestamptz');
export const jsonb = <T>() => p.json<T>().columnType('jsonb');
