import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { parse as parseCookie } from 'cookie';
import { signupMounted } from '../../config.js';
import { DomainError } from '../../domain/errors.js';
import { callerOf, clearSessionCookie, setSessionCookie } from '../../http/caller.js';
import type { AppDeps } from '../../http/deps.js';
import { requireUser } from '../access/authorize.js';
import { SESSION_COOKIE } from '../access/principal.js';
import { claimInstall, isClaimed } from './install.service.js';
import { deleteSession, sessionBody } from './session.service.js';

const s = initServer();
const notMounted = () => new DomainError('not_found', 'Not found.');

export const authRoutes = (deps: AppDeps) =>
  s.router(contract.auth, {
    getInstallState: async ({ req }) => {
      if (!signupMounted(deps.config)) throw notMounted();
      return { status: 200, body: { claimed: await isClaimed(req.em), signupEnabled: signupMounted(deps.config) } };
    },
    claimInstall: async ({ req, res, body }) => {
      if (deps.config.topology !== 'self-hosted') throw notMounted();
      const caller = await callerOf(req, deps);
      const claimed = await claimInstall(req.em, caller, body);
      setSessionCookie(res, deps.config, claimed.token, claimed.expiresAt);
      return { status: 200, body: claimed.session };
    },
    getSession: async ({ req }) => {
      const user = requireUser(await callerOf(req, deps));
      return { status: 200, body: await sessionBody(req.em, user.userId) };
    },
    logout: async ({ req, res }) => {
      const token = req.headers.cookie ? parseCookie(req.headers.cookie)[SESSION_COOKIE] : undefined;
      if (token) await deleteSession(req.em, token);
      clearSessionCookie(res, deps.config);
      return { status: 204, body: undefined };
    },
  });
