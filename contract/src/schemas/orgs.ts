import { z } from 'zod';
import { ATTRIBUTE_NAME_MAX_LENGTH } from '../limits.js';
import { named } from '../openapi-meta.js';
import { Id, Name, Slug, Timestamp } from './common.js';

export const Org = named('Org', z.object({ id: Id, slug: z.string(), name: z.string(), createdAt: Timestamp }));
export type Org = z.infer<typeof Org>;

export const CreateOrgRequest = named('CreateOrgRequest', z.object({ name: Name, slug: Slug.optional() }));

export const Project = named(
  'Project',
  z.object({
    id: Id,
    orgId: Id,
    key: z.string(),
    name: z.string(),
    targetIdField: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);
export type Project = z.infer<typeof Project>;

export const AttributeName = z.string().min(1).max(ATTRIBUTE_NAME_MAX_LENGTH);

export const CreateProjectRequest = named(
  'CreateProjectRequest',
  z.object({
    key: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'only letters, digits, ".", "_" and "-"'),
    name: Name,
    targetIdField: AttributeName.optional(),
  }),
);
export const UpdateProjectRequest = named(
  'UpdateProjectRequest',
  z.object({ name: Name.optional(), targetIdField: AttributeName.optional() }).strict(),
);

export const Environment = named(
  'Environment',
  z.object({
    id: Id,
    projectId: Id,
    key: z.string(),
    name: z.string(),
    version: z.number().int(),
    createdAt: Timestamp,
  }),
  '`version` advances by one on every committed write to anything in the environment.',
);
export type Environment = z.infer<typeof Environment>;

export const CreateEnvironmentRequest = named(
  'CreateEnvironmentRequest',
  z.object({
    key: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'only letters, digits, ".", "_" and "-"'),
    name: Name,
  }),
);
