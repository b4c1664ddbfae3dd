import type { Response } from 'express';
import type { AppDeps } from '../deps.js';
import type { Caller } from '../features/access/authorize.js';
import { renewSession } from '../features/access/principal.js';
import { chargeApiKey } from './api-rate-limit.js';
import { callerOf, setSessionCookie, type CallerRequest } from './caller.js';

declare global {
  namespace Express {
    interface Request {
      /** The admitted caller of this request (admit), once admitted. */
      admission?: Promise<Caller>;
    }
  }
}

/** What admission reads of a request: what its caller is resolved from, and where its admission is kept. */
export type AdmissionRequest = CallerRequest & { admission?: Promise<Caller> | undefined };

/**
 * The admission step of every route that acts for its caller, the first thing its handler does
 * (after the contract has validated the request), once per request:
 * - resolves the caller (callerOf);
 * - charges an API key's request to the key's and its org's token buckets: 429
 *   token_rate_limit when either is empty, X-RateLimit headers on the answer (api-rate-limit.ts);
 * - extends a signed-in user's session that is due for renewal and re-sends its cookie.
 * Answers the admitted caller. Unauthenticated routes (sign-in links, invitations, the rollback
 * webhook, logout) are not admitted: they take anonymousCaller or their own credentials.
 */
export function admit(req: AdmissionRequest, res: Response, deps: AppDeps): Promise<Caller> {
  req.admission ??= (async () => {
    const caller = await callerOf(req, deps);
    const principal = caller.principal;
    if (principal?.kind === 'token') await chargeApiKey(deps, res, principal.key, caller.now);
    if (principal?.kind === 'user' && principal.renewalDue) {
      setSessionCookie(res, deps.config, principal.sessionToken, await renewSession(req.em, principal, caller.now));
    }
    return caller;
  })();
  return req.admission;
}
