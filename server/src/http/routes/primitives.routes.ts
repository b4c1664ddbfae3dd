import { initServer } from '@ts-rest/express';
import { contract, type Rule } from '@gradual/contract';
import type { Response } from 'express';
import { admit, type AdmissionRequest } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { notModified } from '../etag.js';
import {
  createPrimitive,
  getState,
  listPrimitives,
  listStates,
  setRules,
  setValue,
  type CreatePrimitiveInput,
} from '../../features/primitives/primitives.service.js';

const s = initServer();

/** What a flag or config route's handler receives (the request as ts-rest types it is a subtype). */
type Input<P> = { req: AdmissionRequest; res: Response; params: P };
type InEnv = { envId: string; key: string };
type Mutation<B> = Input<InEnv> & { body: B; headers: { 'if-match'?: string | undefined } };

/**
 * The handlers of one primitive kind: flags and configs are served by these same handlers
 * with `kind` fixed; the two routers below bind them to their own contract routes, which
 * check every handler's request and answer types.
 */
function handlers<K extends PrimitiveKind>(deps: AppDeps, kind: K) {
  return {
    create: async ({ req, res, params, body }: Input<{ id: string }> & { body: CreatePrimitiveInput }) => ({
      status: 201 as const,
      body: await createPrimitive(req.em, await admit(req, res, deps), deps.bus, kind, params.id, body),
    }),
    list: async ({ req, res, params }: Input<{ id: string }>) => ({
      status: 200 as const,
      body: await listPrimitives(req.em, await admit(req, res, deps), kind, params.id),
    }),
    listStates: async ({ req, res, params }: Input<{ envId: string }>) => ({
      status: 200 as const,
      body: await listStates(req.em, await admit(req, res, deps), kind, params.envId),
    }),
    getState: async ({ req, res, params }: Input<InEnv>) => {
      const body = await getState(req.em, await admit(req, res, deps), kind, params.envId, params.key);
      return notModified(req, res, body) ? { status: 304 as const, body: undefined } : { status: 200 as const, body };
    },
    setValue: async ({ req, res, params, body, headers }: Mutation<{ value?: unknown }>) => ({
      status: 200 as const,
      body: await setValue(req.em, await admit(req, res, deps), deps.bus, kind, params.envId, params.key, body.value, headers['if-match']),
    }),
    setRules: async ({ req, res, params, body, headers }: Mutation<{ rules: Rule[] }>) => ({
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
    listConfigStates: h.listStates,
    getConfigState: h.getState,
    setConfigValue: h.setValue,
    setConfigRules: h.setRules,
  });
};
