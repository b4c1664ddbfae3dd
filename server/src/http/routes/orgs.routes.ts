import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { callerOf } from '../caller.js';
import type { AppDeps } from '../../deps.js';
import { createOrg, deleteOrg, getOrg } from '../../features/orgs/orgs.service.js';

const s = initServer();

export const orgsRoutes = (deps: AppDeps) =>
  s.router(contract.orgs, {
    createOrg: async ({ req, body }) => ({ status: 201, body: await createOrg(req.em, await callerOf(req, deps), body) }),
    getOrg: async ({ req, params }) => ({ status: 200, body: await getOrg(req.em, await callerOf(req, deps), params.slug) }),
    deleteOrg: async ({ req, params, body }) => {
      await deleteOrg(req.em, await callerOf(req, deps), params.slug, body?.confirm, req.log);
      // Its keys and environments are gone: forget them here at once (other instances within a second).
      deps.apiKeys.clear();
      deps.envs.clear();
      deps.targetIds.clear();
      return { status: 204, body: undefined };
    },
  });
