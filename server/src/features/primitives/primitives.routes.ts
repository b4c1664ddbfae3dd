import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { callerOf } from '../../http/caller.js';
import type { AppDeps } from '../../http/deps.js';
import { notModified } from '../../http/etag.js';
import { createPrimitive, getState, listPrimitives, listStates, setRules, setValue } from './primitives.service.js';

const s = initServer();

/*
 * Flags and configs are served by the same service functions with `kind` fixed;
 * the two routers below differ only in which contract routes they bind.
 */
export const flagsRoutes = (deps: AppDeps) =>
  s.router(contract.flags, {
    createFlag: async ({ req, params, body }) => ({
      status: 201,
      body: (await createPrimitive(req.em, await callerOf(req, deps), deps.bus, 'flag', params.id, body)) as never,
    }),
    listFlags: async ({ req, params }) => ({
      status: 200,
      body: (await listPrimitives(req.em, await callerOf(req, deps), 'flag', params.id)) as never,
    }),
    listFlagStates: async ({ req, params }) => ({
      status: 200,
      body: (await listStates(req.em, await callerOf(req, deps), 'flag', params.envId)) as never,
    }),
    getFlagState: async ({ req, res, params }) => {
      const body = await getState(req.em, await callerOf(req, deps), 'flag', params.envId, params.key);
      return notModified(req, res, body) ? { status: 304, body: undefined } : { status: 200, body: body as never };
    },
    setFlagValue: async ({ req, params, body, headers }) => ({
      status: 200,
      body: (await setValue(req.em, await callerOf(req, deps), deps.bus, 'flag', params.envId, params.key, body.value, headers['if-match'])) as never,
    }),
    setFlagRules: async ({ req, params, body, headers }) => ({
      status: 200,
      body: (await setRules(req.em, await callerOf(req, deps), deps.bus, 'flag', params.envId, params.key, body.rules, headers['if-match'])) as never,
    }),
  });

export const configsRoutes = (deps: AppDeps) =>
  s.router(contract.configs, {
    createConfig: async ({ req, params, body }) => ({
      status: 201,
      body: (await createPrimitive(req.em, await callerOf(req, deps), deps.bus, 'config', params.id, body)) as never,
    }),
    listConfigs: async ({ req, params }) => ({
      status: 200,
      body: (await listPrimitives(req.em, await callerOf(req, deps), 'config', params.id)) as never,
    }),
    listConfigStates: async ({ req, params }) => ({
      status: 200,
      body: (await listStates(req.em, await callerOf(req, deps), 'config', params.envId)) as never,
    }),
    getConfigState: async ({ req, res, params }) => {
      const body = await getState(req.em, await callerOf(req, deps), 'config', params.envId, params.key);
      return notModified(req, res, body) ? { status: 304, body: undefined } : { status: 200, body: body as never };
    },
    setConfigValue: async ({ req, params, body, headers }) => ({
      status: 200,
      body: (await setValue(req.em, await callerOf(req, deps), deps.bus, 'config', params.envId, params.key, body.value, headers['if-match'])) as never,
    }),
    setConfigRules: async ({ req, params, body, headers }) => ({
      status: 200,
      body: (await setRules(req.em, await callerOf(req, deps), deps.bus, 'config', params.envId, params.key, body.rules, headers['if-match'])) as never,
    }),
  });
