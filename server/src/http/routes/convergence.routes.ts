import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { ackRuleset, getConvergence } from '../../features/convergence/convergence.service.js';

const s = initServer();

export const convergenceRoutes = (deps: AppDeps) =>
  s.router(contract.convergence, {
    ackRuleset: async ({ req, res, params, body }) => {
      await ackRuleset(req.em, await admit(req, res, deps), deps.envs, deps.acks, params.envId, body);
      return { status: 204, body: undefined };
    },
    getConvergence: async ({ req, res, params, query }) => ({
      status: 200,
      body: await getConvergence(req.em, await admit(req, res, deps), deps.envs, deps.acks, params.envId, query),
    }),
  });
