import type { ServerInferRequest } from '@ts-rest/core';
import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import type { Response } from 'express';
import { admit, type AdmissionRequest } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { notModified } from '../etag.js';
import {
  createPrimitive,
  deletePrimitive,
  getPrimitive,
  getState,
  listPrimitives,
  listStates,
  setArchived,
  setRules,
  setValue,
  updatePrimitive,
} from '../../features/primitives/primitives.service.js';

const s = initServer();

type Flags = typeof contract.flags;
type Configs = typeof contract.configs;
/**
 * What the handler of a flag route `F` and of its config twin `C` receives: the request as the
 * contract types either route (params, body, headers), with Express's request and response.
 */
type Input<F extends keyof Flags, C extends keyof Configs> = (ServerInferRequest<Flags[F]> | ServerInferRequest<Configs[C]>) & {
  req: AdmissionRequest;
  res: Response;
};

/**
 * The handlers of one primitive kind: flags and configs are served by these same handlers
 * with `kind` fixed; the two routers below bind them to their own contract routes, which
 * check every handler's request and answer types.
 */
function handlers<K extends PrimitiveKind>(deps: AppDeps, kind: K) {
  return {
    create: async ({ req, res, params, body }: Input<'createFlag', 'createConfig'>) => ({
      status: 201 as const,
      body: await createPrimitive(req.em, await admit(req, res, deps), deps.bus, kind, params.id, body),
    }),
    list: async ({ req, res, params, query }: Input<'listFlags', 'listConfigs'>) => ({
      status: 200 as const,
      body: await listPrimitives(req.em, await admit(req, res, deps), kind, params.id, query),
    }),
    get: async ({ req, res, params }: Input<'getFlag', 'getConfig'>) => {
      const body = await getPrimitive(req.em, await admit(req, res, deps), kind, params.id, params.key);
      return notModified(req, res, body) ? { status: 304 as const, body: undefined } : { status: 200 as const, body };
    },
    update: async ({ req, res, params, body, headers }: Input<'updateFlag', 'updateConfig'>) => ({
      status: 200 as const,
      body: await updatePrimitive(req.em, await admit(req, res, deps), deps.bus, kind, params.id, params.key, body, headers['if-match']),
    }),
    archive: async ({ req, res, params, headers }: Input<'archiveFlag', 'archiveConfig'>) => ({
      status: 200 as const,
      body: await setArchived(req.em, await admit(req, res, deps), deps.bus, kind, params.id, params.key, true, headers['if-match']),
    }),
    restore: async ({ req, res, params, headers }: Input<'restoreFlag', 'restoreConfig'>) => ({
      status: 200 as const,
      body: await setArchived(req.em, await admit(req, res, deps), deps.bus, kind, params.id, params.key, false, headers['if-match']),
    }),
    delete: async ({ req, res, params, body, headers }: Input<'deleteFlag', 'deleteConfig'>) => {
      await deletePrimitive(req.em, await admit(req, res, deps), deps.bus, kind, params.id, params.key, body?.confirm, headers['if-match']);
      return { status: 204 as const, body: undefined };
    },
    listStates: async ({ req, res, params }: Input<'listFlagStates', 'listConfigStates'>) => ({
      status: 200 as const,
      body: await listStates(req.em, await admit(req, res, deps), kind, params.envId),
    }),
    getState: async ({ req, res, params }: Input<'getFlagState', 'getConfigState'>) => {
      const body = await getState(req.em, await admit(req, res, deps), kind, params.envId, params.key);
      return notModified(req, res, body) ? { status: 304 as const, body: undefined } : { status: 200 as const, body };
    },
    setValue: async ({ req, res, params, body, headers }: Input<'setFlagValue', 'setConfigValue'>) => ({
      status: 200 as const,
      body: await setValue(req.em, await admit(req, res, deps), deps.bus, kind, params.envId, params.key, body, headers['if-match']),
    }),
    setRules: async ({ req, res, params, body, headers }: Input<'setFlagRules', 'setConfigRules'>) => ({
      status: 200 as const,
      body: await setRules(req.em, await admit(req, res, deps), deps.bus, kind, params.envId, params.key, body.rules, headers['if-match']),
    }),
  };
}

export const flagsRoutes = (deps: AppDeps) => {
  const h = handlers(deps, 'flag');
  return s.router(contract.flags, {
    createFlag: h.create,
    listFlags: h.list,
    getFlag: h.get,
    updateFlag: h.update,
    archiveFlag: h.archive,
    restoreFlag: h.restore,
    deleteFlag: h.delete,
    listFlagStates: h.listStates,
    getFlagState: h.getState,
    setFlagValue: h.setValue,
    setFlagRules: h.setRules,
  });
};

export const configsRoutes = (deps: AppDeps) => {
  const h = handlers(deps, 'config');
  return s.router(contract.configs, {
    createConfig: h.create,
    listConfigs: h.list,
    getConfig: h.get,
    updateConfig: h.update,
    archiveConfig: h.archive,
    restoreConfig: h.restore,
    deleteConfig: h.delete,
    listConfigStates: h.listStates,
    getConfigState: h.getState,
    setConfigValue: h.setValue,
    setConfigRules: h.setRules,
  });
};
