import { z } from 'zod';
import { KEY_MAX_LENGTH } from '../limits.js';
import { example, named } from '../openapi-meta.js';

export const Id = example(z.string().uuid(), '3f1c1f0e-8a43-4f6e-9b1a-2c8a5d8f4b10');
export const Timestamp = example(z.string().datetime({ offset: true }), '2026-11-22T12:00:00.000Z');

/** Any JSON value (flag and config values, audit snapshots). */
export const JsonValue = z.unknown();

/** Keys of projects, environments, flags and configs. */
export const ResourceKey = example(
  z.string().min(1).max(KEY_MAX_LENGTH).regex(/^[A-Za-z0-9._-]+$/, 'only letters, digits, ".", "_" and "-"'),
  'new-checkout',
);
export const ProjectKey = example(
  z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'only letters, digits, ".", "_" and "-"'),
  'web',
);

/** Org slugs: lowercase DNS-label style, so they are safe in URLs. */
export const Slug = example(
  z.string().min(1).max(63).regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'lowercase letters, digits and inner "-"'),
  'acme',
);

export const Name = z.string().trim().min(1).max(200);

export const Role = named('Role', z.enum(['owner', 'admin', 'member']));
export type Role = z.infer<typeof Role>;
