import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { callerOf } from '../caller.js';
import type { AppDeps } from '../../deps.js';
import { applyProposal, cancelProposal, getProposal, listProposals } from '../../features/proposals/proposals.service.js';

const s = initServer();

export const proposalsRoutes = (deps: AppDeps) =>
  s.router(contract.proposals, {
    getProposal: async ({ req, params }) => ({ status: 200, body: await getProposal(req.em, await callerOf(req, deps), params.id) }),
    listProposals: async ({ req, params, query }) => ({
      status: 200,
      body: await listProposals(req.em, await callerOf(req, deps), params.slug, query),
    }),
    applyProposal: async ({ req, params }) => ({
      status: 200,
      body: await applyProposal(req.em, await callerOf(req, deps), deps.bus, params.id),
    }),
    cancelProposal: async ({ req, params }) => ({ status: 200, body: await cancelProposal(req.em, await callerOf(req, deps), params.id) }),
  });
