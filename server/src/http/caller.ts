import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request, Response } from 'express';
import type { Config } from '../config.js';
import type { Caller } from '../features/access/authorize.js';
import { resolvePrincipal, SESSION_COOKIE } from '../features/access/principal.js';
import type { AppDeps } from '../deps.js';
import { chargeApiKey } from './api-rate-limit.js';

declare global {
  namespace Express {
    interface Request {
      /** This request's unit of work (a fork of the root EntityManager). */
      em: EntityManager;
      callerPromise?: Promise<Caller>;
    }
  }
}

/** What a caller is resolved from: any route's request has these, whatever its params, body and query. */
export type CallerRequest = Pick<Request, 'headers' | 'ip' | 'socket' | 'em' | 'callerPromise'> & { res?: Response | undefined };

/** The caller of this request, resolved once (principal lookup is a database read). */
export function callerOf(req: CallerRequest, deps: AppDeps): Promise<Caller> {
  req.callerPromise ??= (async () => {
    const now = deps.clock.now();
    const principal = await resolvePrincipal(req.em, req.headers, now, deps.apiKeys);
    if (principal?.kind === 'token') {
      if (!req.res) throw new Error('an API request without its response');
      await chargeApiKey(deps, req.res, principal.key, now);
    }
    if (principal?.kind === 'user' && principal.renewedUntil && req.res) {
      setSessionCookie(req.res, deps.config, principal.sessionToken, principal.renewedUntil);
    }
    const reason = req.headers['x-audit-reason'];
    return {
      principal,
      ip: req.ip ?? req.socket.remoteAddress ?? '',
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
  return { principal: null, ip: req.ip ?? req.socket.remoteAddress ?? '', reason: null, now: deps.clock.now() };
}
