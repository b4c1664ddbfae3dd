import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import type { RequestHandler } from 'express';
import { signupMounted } from '../../config.js';
import { DomainError } from '../../domain/errors.js';
import { hashToken } from '../../domain/secrets.js';
import { admit } from '../admission.js';
import { anonymousCaller, clearSessionCookie, sessionTokenOf, setSessionCookie } from '../caller.js';
import type { AppDeps } from '../../deps.js';
import { sendError } from '../errors.js';
import { clientKeyDenied, requireUser } from '../../features/access/authorize.js';
import { describeApiKey } from '../../features/api-keys/api-keys.service.js';
import { claimInstall, isClaimed } from '../../features/auth/install.service.js';
import { redeemMagicLink, requestMagicLink, requestSignup, type MagicLinkInputs } from '../../features/auth/magic-link.service.js';
import { deleteSession, sessionBody } from '../../features/auth/session.service.js';
import { pendingInvitations } from '../../features/members/invitations.service.js';

const s = initServer();
const notMounted = () => new DomainError('not_found', 'Not found.');

/**
 * Routes the topology does not mount answer 404 before anything else looks at
 * the request (a malformed body included): signup and install-state unless
 * hosted or SERVICE_PUBLIC_SIGNUP=1, install-claim unless self-hosted.
 */
export function unmountedAuthRoutes(deps: AppDeps): RequestHandler {
  const hidden = new Set<string>();
  const route = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
  if (!signupMounted(deps.config)) hidden.add(route(contract.auth.signup)).add(route(contract.auth.getInstallState));
  if (deps.config.topology !== 'self-hosted') hidden.add(route(contract.auth.claimInstall)).add(route(contract.auth.getClaimState));
  return (req, res, next) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (hidden.has(`${method} ${req.path.replace(/\/+$/, '')}`)) return sendError(req, res, notMounted());
    next();
  };
}

export const authRoutes = (deps: AppDeps) => {
  const links: MagicLinkInputs = {
    mailer: deps.mailer,
    publicUrl: deps.config.publicUrl,
    limits: deps.limits,
    logger: deps.logger,
    invitations: pendingInvitations,
  };
  return s.router(contract.auth, {
    requestMagicLink: async ({ req, body }) => {
      await requestMagicLink(links, req.em, anonymousCaller(req, deps), body.email);
      return { status: 200, body: { sent: true } };
    },
    redeemMagicLink: async ({ req, res, query }) => {
      const outcome = await redeemMagicLink(links, req.em, anonymousCaller(req, deps), query.t);
      // The URL carried a credential: keep it out of caches and of the next page's Referer.
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Referrer-Policy', 'no-referrer');
      if (outcome.ok) {
        setSessionCookie(res, deps.config, outcome.token, outcome.expiresAt);
        res.setHeader('Location', '/app/');
      } else {
        res.setHeader('Location', `/app/signin?error=${outcome.code}`);
      }
      return { status: 303, body: undefined };
    },
    signup: async ({ req, body }) => {
      if (!signupMounted(deps.config)) throw notMounted();
      await requestSignup(links, req.em, anonymousCaller(req, deps), body);
      return { status: 200, body: { sent: true } };
    },
    getInstallState: async ({ req }) => {
      if (!signupMounted(deps.config)) throw notMounted();
      return { status: 200, body: { claimed: await isClaimed(req.em), signupEnabled: signupMounted(deps.config) } };
    },
    getClaimState: async ({ req }) => {
      if (deps.config.topology !== 'self-hosted') throw notMounted();
      return { status: 200, body: { claimed: await isClaimed(req.em) } };
    },
    claimInstall: async ({ req, res, body }) => {
      if (deps.config.topology !== 'self-hosted') throw notMounted();
      const caller = await admit(req, res, deps);
      const claimed = await claimInstall(req.em, caller, body);
      setSessionCookie(res, deps.config, claimed.token, claimed.expiresAt);
      return { status: 200, body: claimed.session };
    },
    getSession: async ({ req, res }) => {
      const user = requireUser(await admit(req, res, deps));
      return { status: 200, body: await sessionBody(req.em, user.userId) };
    },
    whoami: async ({ req, res }) => {
      const caller = await admit(req, res, deps);
      if (caller.principal?.kind === 'token') {
        // A client key is public: it evaluates, and tells no one its name or organization.
        if (caller.principal.key.kind === 'client') throw clientKeyDenied();
        return { status: 200, body: { type: 'api_key', ...(await describeApiKey(req.em, caller.principal.key)) } };
      }
      return { status: 200, body: { type: 'session', session: await sessionBody(req.em, requireUser(caller).userId) } };
    },
    logout: async ({ req, res }) => {
      const token = sessionTokenOf(req);
      if (token) {
        await deleteSession(req.em, token);
        deps.streams.endSession(hashToken(token)); // its open streams end here at once (other instances: their next re-check)
      }
      clearSessionCookie(res, deps.config);
      return { status: 204, body: undefined };
    },
  });
};
