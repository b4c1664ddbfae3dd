import { errorResponses } from '../errors.js';
import { ClaimState, InstallClaimRequest, InstallState, MagicLinkQuery, MagicLinkRequest, MailSent, Session, SignupRequest, Whoami } from '../schemas/auth.js';
import { c, type RouteMetadata } from './common.js';

export const authContract = c.router({
  requestMagicLink: {
    method: 'POST',
    path: '/auth/magic-link',
    summary: 'Email a sign-in link',
    description:
      'Always answers `{sent: true}`, whether or not the address is known. A link (single use, valid 15 minutes) is mailed to an existing user, or to an address with a pending invitation; nothing is mailed for other addresses, nor past 20 requests an hour per client address, 5 an hour per address from one client address, or a second mail to the address within a minute (the link mailed earlier stays valid).',
    body: MagicLinkRequest,
    responses: { 200: MailSent, ...errorResponses(400) },
    metadata: { auth: 'public' } satisfies RouteMetadata,
  },
  redeemMagicLink: {
    method: 'GET',
    path: '/auth/link',
    summary: 'Redeem an emailed sign-in link',
    description:
      'The link a sign-in or signup mail carries. Answers 303 to `/app/` with the `svc_session` cookie, or 303 to `/app/signin?error=<code>` with `magic_link_already_used`, `magic_link_expired`, `magic_link_invalid` or `no_invitation`. A new address with a pending invitation is created and joins the inviting organization(s); a signup link creates its organization.',
    query: MagicLinkQuery,
    // 400 only when the query itself is unreadable (`t` given twice); every token problem is a redirect.
    responses: { 303: c.noBody(), ...errorResponses(400) },
    metadata: { auth: 'public', redirect: true } satisfies RouteMetadata,
  },
  signup: {
    method: 'POST',
    path: '/auth/signup',
    summary: 'Sign up with a new organization',
    description:
      'Mounted on the hosted topology, or on self-hosted when `SERVICE_PUBLIC_SIGNUP=1`; otherwise 404. Mails a link (same limits as `/auth/magic-link`); the user and the organization, with a slug derived from `orgName`, are created when it is redeemed. `409 slug_unavailable` when that slug is taken now.',
    body: SignupRequest,
    responses: { 200: MailSent, ...errorResponses(400, 404, 409) },
    metadata: { auth: 'public' } satisfies RouteMetadata,
  },
  getInstallState: {
    method: 'GET',
    path: '/auth/install-state',
    summary: 'Whether this instance has been claimed and whether public signup is on',
    description:
      'Mounted on the hosted topology, or on self-hosted when `SERVICE_PUBLIC_SIGNUP=1`; otherwise 404.',
    responses: { 200: InstallState, ...errorResponses(404) },
    metadata: { auth: 'public' } satisfies RouteMetadata,
  },
  getClaimState: {
    method: 'GET',
    path: '/auth/install-claim',
    summary: 'Whether this self-hosted instance can still be claimed',
    description:
      'Self-hosted only (404 elsewhere), like `POST /auth/install-claim`. The dashboard asks it to offer the claim form on a fresh instance, where `/auth/install-state` is not mounted.',
    responses: { 200: ClaimState, ...errorResponses(404) },
    metadata: { auth: 'public' } satisfies RouteMetadata,
  },
  claimInstall: {
    method: 'POST',
    path: '/auth/install-claim',
    summary: 'Claim a fresh self-hosted instance',
    description:
      'Creates the first user, their organization and owner membership in one transaction, and signs them in (sets `svc_session`). Self-hosted only; `409 already_claimed` once any organization exists.',
    body: InstallClaimRequest,
    responses: { 200: Session, ...errorResponses(400, 404, 409) },
    metadata: { auth: 'public' } satisfies RouteMetadata,
  },
  getSession: {
    method: 'GET',
    path: '/auth/me',
    summary: 'The current session',
    responses: { 200: Session, ...errorResponses(401) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  whoami: {
    method: 'GET',
    path: '/auth/whoami',
    summary: 'Who the credentials are (an API key or a session)',
    description:
      'For an API key: the key (scopes, `requiresApproval`, rate limit, expiry; never the token) and its organization, so scripts and agents can check what a key may do before writing. For a session: the same body as `GET /auth/me`. A client key (`pub_…`, public by design) gets `403 scope_denied`: it names neither itself nor its organization.',
    responses: { 200: Whoami, ...errorResponses(401, 403) },
    metadata: { auth: 'any' } satisfies RouteMetadata,
  },
  logout: {
    method: 'POST',
    path: '/auth/logout',
    summary: 'End the current session',
    description: 'Deletes the session and clears the cookie. Idempotent: answers 204 without a session too.',
    body: c.noBody(),
    responses: { 204: c.noBody(), ...errorResponses(403) },
    metadata: { auth: 'optionalSession' } satisfies RouteMetadata,
  },
});

