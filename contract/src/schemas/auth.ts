import { z } from 'zod';
import { named } from '../openapi-meta.js';
import { ApiKey } from './api-keys.js';
import { Id, Name, Role, Slug } from './common.js';

export const InstallState = named('InstallState', z.object({ claimed: z.boolean(), signupEnabled: z.boolean() }));

export const ClaimState = named(
  'ClaimState',
  z.object({ claimed: z.boolean() }),
  '`claimed` is false while the instance has no organization, i.e. `POST /auth/install-claim` would succeed.',
);

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

export const Whoami = named(
  'Whoami',
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('session'), session: Session }),
    z.object({
      type: z.literal('api_key'),
      apiKey: ApiKey,
      organization: z.object({ id: Id, slug: z.string(), name: z.string() }),
    }),
  ]),
  'Who the request\'s credentials are. `type` tells which: `session` (a signed-in user, as `GET /auth/me` answers) or `api_key` (the key itself, never its token, with its organization: scopes, `requiresApproval`, rate limit, expiry).',
);
export type Whoami = z.infer<typeof Whoami>;

/** Addresses are compared lowercased; the server stores them lowercased. */
export const Email = z.string().trim().email().max(320);

export const MagicLinkRequest = named('MagicLinkRequest', z.object({ email: Email }));

export const MailSent = named(
  'MailSent',
  z.object({ sent: z.literal(true) }),
  'Always `{sent: true}`, whether or not a mail was sent (it never tells whether an address is known).',
);

export const SignupRequest = named(
  'SignupRequest',
  z.object({ email: Email, displayName: Name, orgName: Name }),
  'The organization slug is derived from `orgName` on the server.',
);

export const MagicLinkQuery = z.object({
  t: z.string().optional().describe('The token from the emailed link.'),
});
