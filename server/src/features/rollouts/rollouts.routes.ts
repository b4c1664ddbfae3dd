import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import type { Request } from 'express';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { callerOf } from '../../http/caller.js';
import type { AppDeps } from '../../http/deps.js';
import { notModified } from '../../http/etag.js';
import { commandRollout, getRollout, putRollout } from './rollouts.service.js';
import { containsTargetId, editTargetIds, listTargetIds } from './target-ids.service.js';

const s = initServer();

type Params = { envId: string; key: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRequest = Request<any, any, any, any>;

/**
 * Handlers of the rollout family for one primitive kind. Flags and configs
 * bind the same handlers to their own contract routes below.
 */
function handlers(deps: AppDeps, kind: PrimitiveKind) {
  const caller = (req: AnyRequest) => callerOf(req, deps);
  const command = (type: 'pause' | 'resume' | 'cancel' | 'advance') => async ({ req, params }: { req: AnyRequest; params: Params }) => ({
    status: 200 as const,
    body: await commandRollout(req.em, await caller(req), deps.bus, kind, params.envId, params.key, { type }),
  });
  return {
    get: async ({ req, res, params }: { req: AnyRequest; res: import('express').Response; params: Params }) => {
      const body = await getRollout(req.em, await caller(req), kind, params.envId, params.key);
      return notModified(req, res, body) ? { status: 304 as const, body: undefined } : { status: 200 as const, body };
    },
    put: async ({ req, params, body, headers }: { req: AnyRequest; params: Params; body: Parameters<typeof putRollout>[6]; headers: { 'if-match'?: string | undefined } }) => ({
      status: 200 as const,
      body: await putRollout(req.em, await caller(req), deps.bus, kind, params.envId, params.key, body, 'newValue' in (req.body as object), headers['if-match']),
    }),
    delete: async ({ req, params }: { req: AnyRequest; params: Params }) => {
      await commandRollout(req.em, await caller(req), deps.bus, kind, params.envId, params.key, { type: 'cancel' });
      return { status: 204 as const, body: undefined };
    },
    pause: command('pause'),
    resume: command('resume'),
    cancel: command('cancel'),
    advance: command('advance'),
    edit: (edit: 'add' | 'remove' | 'replace') => async ({ req, params, body }: { req: AnyRequest; params: Params; body: { targetIds: string[] } }) => ({
      status: 200 as const,
      body: (await editTargetIds(req.em, await caller(req), deps.bus, kind, params.envId, params.key, edit, body.targetIds)) as never,
    }),
    list: async ({ req, params, query }: { req: AnyRequest; params: Params; query: { cursor?: string | undefined; limit?: number | undefined } }) => ({
      status: 200 as const,
      body: await listTargetIds(req.em, await caller(req), kind, params.envId, params.key, query),
    }),
    contains: async ({ req, params }: { req: AnyRequest; params: Params & { targetId: string } }) => ({
      status: 200 as const,
      body: await containsTargetId(req.em, await caller(req), kind, params.envId, params.key, params.targetId),
    }),
  };
}

export const flagRolloutsRoutes = (deps: AppDeps) => {
  const h = handlers(deps, 'flag');
  return s.router(contract.flagRollouts, {
    getFlagRollout: h.get,
    putFlagRollout: h.put,
    deleteFlagRollout: h.delete,
    pauseFlagRollout: h.pause,
    resumeFlagRollout: h.resume,
    cancelFlagRollout: h.cancel,
    advanceFlagRollout: h.advance,
    addFlagTargetIds: h.edit('add'),
    removeFlagTargetIds: h.edit('remove'),
    replaceFlagTargetIds: h.edit('replace'),
    listFlagTargetIds: h.list,
    checkFlagTargetId: h.contains,
  });
};

export const configRolloutsRoutes = (deps: AppDeps) => {
  const h = handlers(deps, 'config');
  return s.router(contract.configRollouts, {
    getConfigRollout: h.get,
    putConfigRollout: h.put,
    deleteConfigRollout: h.delete,
    pauseConfigRollout: h.pause,
    resumeConfigRollout: h.resume,
    cancelConfigRollout: h.cancel,
    advanceConfigRollout: h.advance,
    addConfigTargetIds: h.edit('add'),
    removeConfigTargetIds: h.edit('remove'),
    replaceConfigTargetIds: h.edit('replace'),
    listConfigTargetIds: h.list,
    checkConfigTargetId: h.contains,
  });
};
