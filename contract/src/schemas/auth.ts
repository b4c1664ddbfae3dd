import { z } from 'zod';
import { named } from '../openapi-meta.js';
import { Id, Name, Role, Slug } from './common.js';

export const InstallState = named('InstallState', z.object({ claimed: z.boolean(), signupEnabled: z.boolean() }));

export const InstallClaimRequest = named(
  'InstallClaimRequest',
  z.object({ email: z.string().email().max(320), displayName: Name, orgName: Name, orgSlug: Slug }),
);

export const SessionUser = named('SessionUser', z.object({ id: Id, email: z.string(), displayName: z.string() }));
export const SessionOrganization = named(
  'SessionOrganization',
  z.object({ id: Id, slug: z.string(), name: z.string(), role: Role }),
);
export const Session = named(
  'Session',
  z.object({ user: SessionUser, organizations: z.array(SessionOrganization) }),
  'The signed-in user and the organizations they belong to, with their role in each.',
);
export type Session = z.infer<typeof Session>;
