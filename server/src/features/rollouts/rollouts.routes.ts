import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import type { Request, Response } from 'express';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { callerOf } from '../../http/caller.js';
import type { AppDeps } from '../../http/deps.js';
import { notModified } from '../../http/etag.js';
import { divertibleHandler, type DivertibleOp } from '../proposals/divertible.js';
import { getRollout, type PutRolloutBody } from './rollouts.service.js';
import { containsTargetId, listTargetIds } from './target-ids.service.js';

const s = initServer();

type Params = { envId: string; key: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRequest = Request<any, any, any, any>;

/**
 * Handlers of the rollout family for one primitive kind. Flags and configs
 * bind the same handlers to their own contract routes below. Every mutation
 * goes through `divertible` (features/proposals/divertible.ts): an
 * approval-required API key gets a proposal (202), everyone else the change.
 */
function handlers(deps: AppDeps, kind: PrimitiveKind) {
  const caller = (req: AnyRequest) => callerOf(req, deps);
  const divertible = divertibleHandler(deps, kind);
  // The contract's response union for each route is the direct answer or 202 + Proposal.
  const run = async (req: AnyRequest, res: Response, params: Params, op: DivertibleOp) => (await divertible(req, res, params, op)) as never;
  const command = (type: 'pause' | 'resume' | 'cancel' | 'advance') => async ({ req, res, params }: { req: AnyRequest; res: Response; params: Params }) =>
    run(req, res, params, { kind: `rollout.${type}` });
  return {
    get: async ({ req, res, params }: { req: AnyRequest; res: Response; params: Params }) => {
      const body = await getRollout(req.em, await caller(req), kind, params.envId, params.key);
      return notModified(req, res, body) ? { status: 304 as const, body: undefined } : { status: 200 as const, body };
    },
    put: async ({ req, res, params, body, headers }: { req: AnyRequest; res: Response; params: Params; body: PutRolloutBody; headers: { 'if-match'?: string | undefined } }) =>
      run(req, res, params, { kind: 'rollout.put', body, ifMatch: headers['if-match'] }),
    delete: async ({ req, res, params }: { req: AnyRequest; res: Response; params: Params }) => run(req, res, params, { kind: 'rollout.delete' }),
    pause: command('pause'),
    resume: command('resume'),
    cancel: command('cancel'),
    advance: command('advance'),
    edit: (edit: 'add' | 'remove' | 'replace') => async ({ req, res, params, body }: { req: AnyRequest; res: Response; params: Params; body: { targetIds: string[] } }) =>
      run(req, res, params, { kind: `target_ids.${edit}`, body: { targetIds: body.targetIds } }),
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
