import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request, Response } from 'express';
import type { Config } from '../config.js';
import type { Caller } from '../features/access/authorize.js';
import { resolvePrincipal, SESSION_COOKIE } from '../features/access/principal.js';
import type { AppDeps } from './deps.js';
import { chargeApiKey } from './api-rate-limit.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** This request's unit of work (a fork of the root EntityManager). */
      em: EntityManager;
      callerPromise?: Promise<Caller>;
    }
  }
}

/** The caller of this request, resolved once (principal lookup is a database read). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function callerOf(req: Request<any, any, any, any>, deps: AppDeps): Promise<Caller> {
  req.callerPromise ??= (async () => {
    const now = deps.clock.now();
    const principal = await resolvePrincipal(req.em, req, now, deps.apiKeys);
    if (principal?.kind === 'token') await chargeApiKey(deps, req, principal.key, now);
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
