import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { notModified } from '../etag.js';
import { createPrimitive, getState, listPrimitives, listStates, setRules, setValue } from '../../features/primitives/primitives.service.js';

const s = initServer();

/*
 * Flags and configs are served by the same service functions with `kind` fixed;
 * the two routers below differ only in which contract routes they bind.
 */
export const flagsRoutes = (deps: AppDeps) =>
  s.router(contract.flags, {
    createFlag: async ({ req, res, params, body }) => ({
      status: 201,
      body: await createPrimitive(req.em, await admit(req, res, deps), deps.bus, 'flag', params.id, body),
    }),
    listFlags: async ({ req, res, params }) => ({
      status: 200,
      body: await listPrimitives(req.em, await admit(req, res, deps), 'flag', params.id),
    }),
    listFlagStates: async ({ req, res, params }) => ({
      status: 200,
      body: await listStates(req.em, await admit(req, res, deps), 'flag', params.envId),
    }),
    getFlagState: async ({ req, res, params }) => {
      const body = await getState(req.em, await admit(req, res, deps), 'flag', params.envId, params.key);
      return notModified(req, res, body) ? { status: 304, body: undefined } : { status: 200, body };
    },
    setFlagValue: async ({ req, res, params, body, headers }) => ({
      status: 200,
      body: await setValue(req.em, await admit(req, res, deps), deps.bus, 'flag', params.envId, params.key, body.value, headers['if-match']),
    }),
    setFlagRules: async ({ req, res, params, body, headers }) => ({
      status: 200,
      body: await setRules(req.em, await admit(req, res, deps), deps.bus, 'flag', params.envId, params.key, body.rules, headers['if-match']),
    }),
  });

export const configsRoutes = (deps: AppDeps) =>
  s.router(contract.configs, {
    createConfig: async ({ req, res, params, body }) => ({
      status: 201,
      body: await createPrimitive(req.em, await admit(req, res, deps), deps.bus, 'config', params.id, body),
    }),
    listConfigs: async ({ req, res, params }) => ({
      status: 200,
      body: await listPrimitives(req.em, await admit(req, res, deps), 'config', params.id),
    }),
    listConfigStates: async ({ req, res, params }) => ({
      status: 200,
      body: await listStates(req.em, await admit(req, res, deps), 'config', params.envId),
    }),
    getConfigState: async ({ req, res, params }) => {
      const body = await getState(req.em, await admit(req, res, deps), 'config', params.envId, params.key);
      return notModified(req, res, body) ? { status: 304, body: undefined } : { status: 200, body };
    },
    setConfigValue: async ({ req, res, params, body, headers }) => ({
      status: 200,
      body: await setValue(req.em, await admit(req, res, deps), deps.bus, 'config', params.envId, params.key, body.value, headers['if-match']),
    }),
    setConfigRules: async ({ req, res, params, body, headers }) => ({
      status: 200,
      body: await setRules(req.em, await admit(req, res, deps), deps.bus, 'config', params.envId, params.key, body.rules, headers['if-match']),
    }),
  });
