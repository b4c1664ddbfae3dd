import { initContract } from '@ts-rest/core';
import { z } from 'zod';

export const c = initContract();

/**
 * Who may call a route. Drives the OpenAPI `security` of each operation and is
 * read by nothing else: the server enforces authentication in its handlers.
 * - `public`: no credentials
 * - `session`: the dashboard's `svc_session` cookie only
 * - `any` (default): a bearer API token or the session cookie
 */
export type RouteAuth = 'public' | 'session' | 'any';
export interface RouteMetadata {
  auth?: RouteAuth;
}

/** Optional headers every mutation accepts. */
export const MutationHeaders = z.object({
  'x-audit-reason': z.string().max(500).optional(),
});
