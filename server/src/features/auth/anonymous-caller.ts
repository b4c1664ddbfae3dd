import type { Request } from 'express';
import type { AppDeps } from '../../http/deps.js';
import type { Caller } from '../access/authorize.js';

/**
 * The caller of an unauthenticated endpoint (sign-in links, invitation
 * preview and accept): whatever credentials came along are ignored, so a
 * stale cookie or a bad bearer header never turns a link into a 401.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function anonymousCaller(req: Request<any, any, any, any>, deps: AppDeps): Caller {
  return { principal: null, ip: req.ip ?? req.socket.remoteAddress ?? '', reason: null, now: deps.clock.now() };
}
