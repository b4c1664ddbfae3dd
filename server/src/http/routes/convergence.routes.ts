import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { ackRuleset, getConvergence } from '../../features/convergence/convergence.service.js';
import { keyAdmission, type AnswerCache } from '../answer-cache.js';
import { isPlainJson, replayableBody } from '../text-guard.js';

const s = initServer();

const ACK_ROUTE = contract.convergence.ackRuleset.path;
const ACK_BODY = contract.convergence.ackRuleset.body;
/** An acknowledgement is a few hundred bytes; anything larger goes to the route, which answers it. */
const MAX_REPLAYED_ACK = 4 * 1024;

export const convergenceRoutes = (deps: AppDeps, answers: AnswerCache) =>
  s.router(contract.convergence, {
    ackRuleset: async ({ req, res, params, body }) => {
      const caller = await admit(req, res, deps);
      const envId = await ackRuleset(req.em, caller, deps.envs, deps.acks, params.envId, body);
      // A fleet acknowledges at once after each change, all with one key: the next acknowledgement
      // with the same key to the same environment is taken in front of Express while the key holds
      // and the environment exists (what the route's authorization depended on).
      const key = caller.principal?.kind === 'token' ? caller.principal.key : null;
      const admitKey = key && !key.resources && keyAdmission((hash) => deps.apiKeys.get(hash), key, () => deps.envs.peek(envId) !== undefined);
      if (admitKey) {
        answers.remember(req, {
          route: ACK_ROUTE,
          admit: admitKey,
          maxBody: MAX_REPLAYED_ACK,
          answer: (next, raw) => {
            const ack = raw && isPlainJson(next) ? replayableBody(raw, ACK_BODY) : null;
            return ack && { status: 204, headers: [], onSent: () => deps.acks.ack(envId, ack) };
          },
        });
      }
      return { status: 204, body: undefined };
    },
    getConvergence: async ({ req, res, params, query }) => ({
      status: 200,
      body: await getConvergence(req.em, await admit(req, res, deps), deps.envs, deps.acks, params.envId, query),
    }),
  });
