import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { createEnvironment, deleteEnvironment, getEnvironment, listEnvironments } from '../../features/environments/environments.service.js';
import { forgetEnvironments } from '../forget-environments.js';

const s = initServer();

export const environmentsRoutes = (deps: AppDeps) =>
  s.router(contract.environments, {
    createEnvironment: async ({ req, res, params, body }) => ({
      status: 201,
      body: await createEnvironment(req.em, await admit(req, res, deps), deps.bus, params.id, body),
    }),
    listEnvironments: async ({ req, res, params }) => ({
      status: 200,
      body: await listEnvironments(req.em, await admit(req, res, deps), params.id),
    }),
    getEnvironment: async ({ req, res, params }) => ({
      status: 200,
      body: await getEnvironment(req.em, await admit(req, res, deps), params.envId),
    }),
    deleteEnvironment: async ({ req, res, params, body }) => {
      forgetEnvironments(deps, await deleteEnvironment(req.em, await admit(req, res, deps), params.envId, body?.confirm));
      return { status: 204, body: undefined };
    },
  });
