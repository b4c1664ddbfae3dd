import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { createOrg, deleteOrg, getOrg } from '../../features/orgs/orgs.service.js';

const s = initServer();

export const orgsRoutes = (deps: AppDeps) =>
  s.router(contract.orgs, {
    createOrg: async ({ req, res, body }) => ({ status: 201, body: await createOrg(req.em, await admit(req, res, deps), body) }),
    getOrg: async ({ req, res, params }) => ({ status: 200, body: await getOrg(req.em, await admit(req, res, deps), params.slug) }),
    deleteOrg: async ({ req, res, params, body }) => {
      await deleteOrg(req.em, await admit(req, res, deps), params.slug, body?.confirm, req.log);
      // Its keys and environments are gone: forget them here at once (other instances within a second).
      deps.apiKeys.clear();
      deps.envs.clear();
      deps.targetIds.clear();
      void deps.streams.recheck(); // the streams of its keys and members end
      return { status: 204, body: undefined };
    },
  });
