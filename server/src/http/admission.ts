import type { Response } from 'express';
import type { AppDeps } from '../deps.js';
import type { Caller } from '../features/access/authorize.js';
import { bearerKeyHash, renewSession } from '../features/access/principal.js';
import { DomainError } from '../domain/errors.js';
import { hashToken } from '../domain/secrets.js';
import { clientAddressKey } from '../rate-limits/client-address.js';
import { chargeApiKey, chargeUser } from './api-rate-limit.js';
import { callerOf, sessionTokenOf, setSessionCookie, type CallerRequest } from './caller.js';
import { requestAddress } from './request-address.js';

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
 * - refuses, before any lookup, credentials from a client address throttled for failed
 *   authentication (429 token_rate_limit, `details.bucket` `address`), unless this instance
 *   has seen them succeed (refuseThrottled);
 * - resolves the caller (callerOf), and counts an API key or session that fails against the
 *   client address (rate-limits/auth-failures.ts);
 * - charges an API key's request to the key's and its org's token buckets, a signed-in user's to
 *   the user's bucket: 429 token_rate_limit when one is empty; an API key's answer carries the
 *   X-RateLimit headers, a session's none (api-rate-limit.ts);
 * - extends a signed-in user's session that is due for renewal and re-sends its cookie.
 * Answers the admitted caller. Unauthenticated routes (sign-in links, invitations, the rollback
 * webhook, logout) are not admitted: they take anonymousCaller or their own credentials.
 */
export function admit(req: AdmissionRequest, res: Response, deps: AppDeps): Promise<Caller> {
  req.admission ??= (async () => {
    const address = clientAddressKey(requestAddress(req));
    refuseThrottled(req, deps, address);
    const failed = () => deps.limits.authFailures.fail(address, deps.config.authFailuresPerIpPerMin, deps.clock.now().getTime());
    let caller: Caller;
    try {
      caller = await callerOf(req, deps);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'unauthorized') await failed();
      throw err;
    }
    const principal = caller.principal;
    if (principal === null && req.headers.authorization === undefined && sessionTokenOf(req)) await failed();
    if (principal?.kind === 'token') {
      deps.limits.authFailures.vouch(principal.key.tokenHash, caller.now.getTime());
      await chargeApiKey(deps, res, principal.key, caller.now);
    }
    if (principal?.kind === 'user') {
      deps.limits.authFailures.vouch(hashToken(principal.sessionToken), caller.now.getTime());
      await chargeUser(deps, principal.userId, caller.now);
      if (principal.renewalDue) setSessionCookie(res, deps.config, principal.sessionToken, await renewSession(req.em, principal, caller.now));
    }
    return caller;
  })();
  return req.admission;
}

/**
 * A request carrying credentials from a client address throttled for failed authentication is
 * refused without looking them up, unless they are known good without a lookup: an API key or a
 * session this instance has seen succeed within the hour (or a key its key cache holds). So an
 * address shared with someone guessing (a NAT, a proxy) keeps working for the keys and people
 * already using it.
 */
function refuseThrottled(req: AdmissionRequest, deps: AppDeps, address: string): void {
  const failures = deps.limits.authFailures;
  const nowMs = deps.clock.now().getTime();
  const seconds = failures.throttledFor(address, nowMs);
  if (seconds === 0) return;
  const { authorization } = req.headers;
  const session = authorization === undefined ? sessionTokenOf(req) : undefined;
  if (authorization === undefined && !session) return; // nothing to look up
  if (authorization !== undefined) {
    const hash = bearerKeyHash(authorization);
    if (hash !== null && (failures.isVouched(hash, nowMs) || deps.apiKeys.get(hash))) return;
  } else if (failures.isVouched(hashToken(session!), nowMs)) {
    return;
  }
  throw new DomainError('token_rate_limit', 'Too many failed authentications from this address; retry later.', {
    retryAfterSeconds: seconds,
    details: { retryAfterSeconds: seconds, bucket: 'address' },
  });
}
