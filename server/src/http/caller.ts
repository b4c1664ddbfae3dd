import type { IncomingMessage } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parse as parseCookie } from 'cookie';
import type { Request, Response } from 'express';
import type { Config } from '../config.js';
import type { Caller } from '../features/access/authorize.js';
import { resolvePrincipal } from '../features/access/principal.js';
import type { AppDeps } from '../deps.js';
import { requestAddress } from './request-address.js';

declare global {
  namespace Express {
    interface Request {
      /** This request's unit of work (a fork of the root EntityManager). */
      em: EntityManager;
      callerPromise?: Promise<Caller>;
    }
  }
}

/** The dashboard's session cookie. */
export const SESSION_COOKIE = 'svc_session';

/** What a caller is resolved from: any route's request has these, whatever its params, body and query. */
export type CallerRequest = Pick<Request, 'headers' | 'ip' | 'socket' | 'em' | 'callerPromise'>;

/**
 * `X-API-Key: <token>` (what OFREP providers send) as `Authorization: Bearer <token>`, when the
 * request has no Authorization header: everything that reads credentials (the answer cache,
 * CSRF exemption, body admission, stream caps, admission) reads the one header. Idempotent.
 */
export function apiKeyHeaderAsBearer(req: Pick<IncomingMessage, 'headers'>): void {
  if (req.headers.authorization !== undefined) return;
  const key = req.headers['x-api-key'];
  const token = (Array.isArray(key) ? key[0] : key)?.trim();
  if (token) req.headers.authorization = `Bearer ${token}`;
}

/** The session token of the request's cookie, if it carries one. */
export function sessionTokenOf(req: Pick<Request, 'headers'>): string | undefined {
  const cookie = req.headers.cookie;
  return cookie ? parseCookie(cookie)[SESSION_COOKIE] : undefined;
}

/**
 * Who is calling, resolved once per request (principal lookup is a database read). Only reads:
 * charging an API key's rate limits and renewing a session are the admission step (http/admission.ts).
 */
export function callerOf(req: CallerRequest, deps: AppDeps): Promise<Caller> {
  req.callerPromise ??= (async () => {
    const now = deps.clock.now();
    const principal = await resolvePrincipal(req.em, { authorization: req.headers.authorization, sessionToken: sessionTokenOf(req) }, now, deps.apiKeys);
    const reason = req.headers['x-audit-reason'];
    return {
      principal,
      ip: requestAddress(req),
      reason: typeof reason === 'string' && reason.length ? reason : null,
      now,
    };
  })();
  return req.callerPromise;
}

export function setSessionCookie(res: Response, config: Config, token: string, expiresAt: Date): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: config.publicUrl.startsWith('https:'),
    expires: expiresAt,
  });
}

export function clearSessionCookie(res: Response, config: Config): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: config.publicUrl.startsWith('https:') });
}

/**
 * The caller of an unauthenticated endpoint (sign-in links, invitation
 * preview and accept): whatever credentials came along are ignored, so a
 * stale cookie or a bad bearer header never turns a link into a 401.
 */
export function anonymousCaller(req: CallerRequest, deps: AppDeps): Caller {
  return { principal: null, ip: requestAddress(req), reason: null, now: deps.clock.now() };
}
