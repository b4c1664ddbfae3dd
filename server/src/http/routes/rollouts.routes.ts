import type { ServerInferRequest } from '@ts-rest/core';
import { initServer } from '@ts-rest/express';
import { API_PREFIX, contract, type Proposal } from '@gradual/contract';
import type { Request, Response } from 'express';
import type { PrimitiveKind } from '../../db/entities/index.js';
import type { AppDeps } from '../../deps.js';
import { mustPropose, storedRequest } from '../../features/proposals/divertible.js';
import { propose } from '../../features/proposals/proposals.service.js';
import { rolloutOperations, type OpKind, type OpResults, type RolloutOp } from '../../features/rollouts/operations.js';
import { getRollout } from '../../features/rollouts/rollouts.service.js';
import { containsTargetId, listTargetIds } from '../../features/rollouts/target-ids.service.js';
import { admit, type AdmissionRequest } from '../admission.js';
import { notModified } from '../etag.js';

const s = initServer();

type Req = AdmissionRequest & Pick<Request, 'method' | 'path'>;
/** What every rollout route's handler receives and `divert` reads (each route's input as ts-rest types it is a subtype). */
type Target = { req: Req; res: Response; params: { envId: string; key: string } };

type FlagRollouts = typeof contract.flagRollouts;
type ConfigRollouts = typeof contract.configRollouts;
/**
 * What the handler of a flag rollout route `F` and of its config twin `C` receives: the request
 * as the contract types either route (params, body, query, headers), with Express's request and response.
 */
type Input<F extends keyof FlagRollouts, C extends keyof ConfigRollouts> = (ServerInferRequest<FlagRollouts[F]> | ServerInferRequest<ConfigRollouts[C]>) & {
  req: Req;
  res: Response;
};

/**
 * The divertible mutations' one entry: an approval-required API key gets `202` + Location with
 * the stored proposal; everyone else gets the direct call's answer.
 */
async function divert<K extends OpKind>(
  deps: AppDeps,
  kind: PrimitiveKind,
  { req, res, params }: Target,
  // Both views of the one operation: of its own kind (what execute answers) and of any kind.
  op: RolloutOp<K> & RolloutOp,
): Promise<OpResults[K] | { status: 202; body: Proposal }> {
  const caller = await admit(req, res, deps);
  const target = { primitiveKind: kind, envId: params.envId, key: params.key };
  if (!mustPropose(caller)) return rolloutOperations.execute<K>(req.em, caller, deps.bus, target, op);
  const method = req.method === 'PUT' || req.method === 'DELETE' ? req.method : 'POST';
  const proposal = await propose(req.em, caller, target, op, storedRequest({ method, path: req.path, reason: caller.reason }, op));
  res.setHeader('Location', `${API_PREFIX}/proposals/${proposal.id}`);
  return { status: 202, body: proposal };
}

/**
 * Handlers of the rollout family for one primitive kind. Flags and configs bind the same
 * handlers to their own contract routes below. Every mutation goes through `divert`.
 */
function handlers(deps: AppDeps, kind: PrimitiveKind) {
  type Command = 'rollout.pause' | 'rollout.resume' | 'rollout.cancel' | 'rollout.advance';
  const command = (opKind: Command) => (input: Target) => divert<Command>(deps, kind, input, { kind: opKind });
  return {
    get: async ({ req, res, params }: Input<'getFlagRollout', 'getConfigRollout'>) => {
      const body = await getRollout(req.em, await admit(req, res, deps), kind, params.envId, params.key);
      return notModified(req, res, body) ? { status: 304 as const, body: undefined } : { status: 200 as const, body };
    },
    put: (input: Input<'putFlagRollout', 'putConfigRollout'>) =>
      divert<'rollout.put'>(deps, kind, input, { kind: 'rollout.put', body: input.body, ifMatch: input.headers['if-match'] }),
    delete: (input: Target) => divert<'rollout.delete'>(deps, kind, input, { kind: 'rollout.delete' }),
    pause: command('rollout.pause'),
    resume: command('rollout.resume'),
    cancel: command('rollout.cancel'),
    advance: command('rollout.advance'),
    addTargetIds: ({ body, ...input }: Input<'addFlagTargetIds', 'addConfigTargetIds'>) => divert<'target_ids.add'>(deps, kind, input, { kind: 'target_ids.add', body: { targetIds: body.targetIds } }),
    removeTargetIds: ({ body, ...input }: Input<'removeFlagTargetIds', 'removeConfigTargetIds'>) => divert<'target_ids.remove'>(deps, kind, input, { kind: 'target_ids.remove', body: { targetIds: body.targetIds } }),
    replaceTargetIds: ({ body, ...input }: Input<'replaceFlagTargetIds', 'replaceConfigTargetIds'>) => divert<'target_ids.replace'>(deps, kind, input, { kind: 'target_ids.replace', body: { targetIds: body.targetIds } }),
    list: async ({ req, res, params, query }: Input<'listFlagTargetIds', 'listConfigTargetIds'>) => ({
      status: 200 as const,
      body: await listTargetIds(req.em, await admit(req, res, deps), kind, params.envId, params.key, query),
    }),
    contains: async ({ req, res, params }: Input<'checkFlagTargetId', 'checkConfigTargetId'>) => {
      const { contains, source } = await containsTargetId(req.em, await admit(req, res, deps), deps, kind, params.envId, params.key, params.targetId);
      deps.metrics.targetIdChecks.labels(source).inc();
      return { status: 200 as const, body: { contains } };
    },
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
    addFlagTargetIds: h.addTargetIds,
    removeFlagTargetIds: h.removeTargetIds,
    replaceFlagTargetIds: h.replaceTargetIds,
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
    addConfigTargetIds: h.addTargetIds,
    removeConfigTargetIds: h.removeTargetIds,
    replaceConfigTargetIds: h.replaceTargetIds,
    listConfigTargetIds: h.list,
    checkConfigTargetId: h.contains,
  });
};
