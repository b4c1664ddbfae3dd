import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { applyProposal, cancelProposal, getProposal, listProposals } from '../../features/proposals/proposals.service.js';

const s = initServer();

export const proposalsRoutes = (deps: AppDeps) =>
  s.router(contract.proposals, {
    getProposal: async ({ req, res, params }) => ({ status: 200, body: await getProposal(req.em, await admit(req, res, deps), params.id) }),
    listProposals: async ({ req, res, params, query }) => ({
      status: 200,
      body: await listProposals(req.em, await admit(req, res, deps), params.slug, query),
    }),
    applyProposal: async ({ req, res, params }) => ({
      status: 200,
      body: await applyProposal(req.em, await admit(req, res, deps), deps.bus, params.id),
    }),
    cancelProposal: async ({ req, res, params }) => ({ status: 200, body: await cancelProposal(req.em, await admit(req, res, deps), params.id) }),
  });
