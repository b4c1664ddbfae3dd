import { errorResponses } from '../errors.js';
import { InstallClaimRequest, InstallState, Session } from '../schemas/auth.js';
import { c, type RouteMetadata } from './common.js';

export const authContract = c.router({
  getInstallState: {
    method: 'GET',
    path: '/auth/install-state',
    summary: 'Whether this instance has been claimed and whether public signup is on',
    description:
      'Mounted on the hosted topology, or on self-hosted when `SERVICE_PUBLIC_SIGNUP=1`; otherwise 404.',
    responses: { 200: InstallState, ...errorResponses(404) },
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

