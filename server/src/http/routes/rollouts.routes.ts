import type { ServerInferRequest } from '@ts-rest/core';
import { initServer } from '@ts-rest/express';
import { API_PREFIX, contract, KEY_MAX_LENGTH, TARGET_ID_MAX_LENGTH, type Proposal } from '@gradual/contract';
import type { Request, Response } from 'express';
import type { PrimitiveKind } from '../../db/entities/index.js';
import type { AppDeps } from '../../deps.js';
import { mustPropose, storedRequest } from '../../features/proposals/divertible.js';
import { propose } from '../../features/proposals/proposals.service.js';
import { rolloutOperations, type OpKind, type OpResults, type RolloutOp } from '../../features/rollouts/operations.js';
import { getRolloutRamp } from '../../features/rollouts/ramp.service.js';
import { getRolloutGuard } from '../../features/rollouts/guard.service.js';
import { commandRollout, getRollout } from '../../features/rollouts/rollouts.service.js';
import { containsTargetId, listTargetIds } from '../../features/rollouts/target-ids.service.js';
import { admit, type AdmissionRequest } from '../admission.js';
import { notModified } from '../etag.js';
import { keyAdmission, type AnswerCache, type ReplayAnswer } from '../answer-cache.js';

const s = initServer();

type Req = AdmissionRequest & Pick<Request, 'method' | 'path' | 'originalUrl'>;
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
function handlers(deps: AppDeps, answers: AnswerCache, kind: PrimitiveKind) {
  const countMemoryCheck = () => deps.metrics.targetIdChecks.labels('memory').inc();
  type Command = 'rollout.pause' | 'rollout.resume' | 'rollout.cancel' | 'rollout.advance';
  const command = (opKind: Command) => (input: Target) => divert<Command>(deps, kind, input, { kind: opKind });
  return {
    get: async ({ req, res, params }: Input<'getFlagRollout', 'getConfigRollout'>) => {
      const body = await getRollout(req.em, await admit(req, res, deps), kind, params.envId, params.key);
      return notModified(req, res, body) ? { status: 304 as const, body: undefined } : { status: 200 as const, body };
    },
    ramp: async ({ req, res, params }: Input<'getFlagRolloutRamp', 'getConfigRolloutRamp'>) => ({
      status: 200 as const,
      body: await getRolloutRamp(req.em, await admit(req, res, deps), kind, params.envId, params.key),
    }),
    guard: async ({ req, res, params }: Input<'getFlagRolloutGuard', 'getConfigRolloutGuard'>) => ({
      status: 200 as const,
      body: await getRolloutGuard(req.em, await admit(req, res, deps), kind, params.envId, params.key),
    }),
    put: (input: Input<'putFlagRollout', 'putConfigRollout'>) =>
      divert<'rollout.put'>(deps, kind, input, { kind: 'rollout.put', body: input.body, ifMatch: input.headers['if-match'] }),
    delete: (input: Target) => divert<'rollout.delete'>(deps, kind, input, { kind: 'rollout.delete' }),
    pause: command('rollout.pause'),
    resume: command('rollout.resume'),
    cancel: command('rollout.cancel'),
    advance: command('rollout.advance'),
    // The kill switch is never diverted to a proposal (contract: rollback).
    rollback: async ({ req, res, params }: Target) => ({
      status: 200 as const,
      body: await commandRollout(req.em, await admit(req, res, deps), deps.bus, kind, params.envId, params.key, { type: 'rollback' }),
    }),
    addTargetIds: ({ body, ...input }: Input<'addFlagTargetIds', 'addConfigTargetIds'>) => divert<'target_ids.add'>(deps, kind, input, { kind: 'target_ids.add', body: { targetIds: body.targetIds } }),
    removeTargetIds: ({ body, ...input }: Input<'removeFlagTargetIds', 'removeConfigTargetIds'>) => divert<'target_ids.remove'>(deps, kind, input, { kind: 'target_ids.remove', body: { targetIds: body.targetIds } }),
    replaceTargetIds: ({ body, ...input }: Input<'replaceFlagTargetIds', 'replaceConfigTargetIds'>) => divert<'target_ids.replace'>(deps, kind, input, { kind: 'target_ids.replace', body: { targetIds: body.targetIds } }),
    list: async ({ req, res, params, query }: Input<'listFlagTargetIds', 'listConfigTargetIds'>) => ({
      status: 200 as const,
      body: await listTargetIds(req.em, await admit(req, res, deps), kind, params.envId, params.key, query),
    }),
    contains: async ({ req, res, params }: Input<'checkFlagTargetId', 'checkConfigTargetId'>) => {
      const caller = await admit(req, res, deps);
      const { contains, source } = await containsTargetId(req.em, caller, deps, kind, params.envId, params.key, params.targetId);
      deps.metrics.targetIdChecks.labels(source).inc();
      const key = caller.principal?.kind === 'token' ? caller.principal.key : null;
      const replay = key && keyAdmission((hash) => deps.apiKeys.get(hash), key, () => deps.envs.peek(params.envId) !== undefined);
      // This key's checks of other IDs on this list: from this instance's copy when it holds the
      // environment's current version (the access decision above depends on key and list only).
      if (replay) {
        answers.remember(req, {
          admit: replay,
          route: kind === 'flag' ? contract.flagRollouts.checkFlagTargetId.path : contract.configRollouts.checkConfigTargetId.path,
          coversLastSegment: true,
          answer: (next) => containsFromMemory(deps, kind, params.envId, params.key, next.url),
          onAnswered: countMemoryCheck,
        });
      }
      return { status: 200 as const, body: { contains } };
    },
  };
}

export const flagRolloutsRoutes = (deps: AppDeps, answers: AnswerCache) => {
  const h = handlers(deps, answers, 'flag');
  return s.router(contract.flagRollouts, {
    getFlagRollout: h.get,
    getFlagRolloutRamp: h.ramp,
    getFlagRolloutGuard: h.guard,
    putFlagRollout: h.put,
    deleteFlagRollout: h.delete,
    pauseFlagRollout: h.pause,
    resumeFlagRollout: h.resume,
    cancelFlagRollout: h.cancel,
    advanceFlagRollout: h.advance,
    rollbackFlagRollout: h.rollback,
    addFlagTargetIds: h.addTargetIds,
    removeFlagTargetIds: h.removeTargetIds,
    replaceFlagTargetIds: h.replaceTargetIds,
    listFlagTargetIds: h.list,
    checkFlagTargetId: h.contains,
  });
};

export const configRolloutsRoutes = (deps: AppDeps, answers: AnswerCache) => {
  const h = handlers(deps, answers, 'config');
  return s.router(contract.configRollouts, {
    getConfigRollout: h.get,
    getConfigRolloutRamp: h.ramp,
    getConfigRolloutGuard: h.guard,
    putConfigRollout: h.put,
    deleteConfigRollout: h.delete,
    pauseConfigRollout: h.pause,
    resumeConfigRollout: h.resume,
    cancelConfigRollout: h.cancel,
    advanceConfigRollout: h.advance,
    rollbackConfigRollout: h.rollback,
    addConfigTargetIds: h.addTargetIds,
    removeConfigTargetIds: h.removeTargetIds,
    replaceConfigTargetIds: h.replaceTargetIds,
    listConfigTargetIds: h.list,
    checkConfigTargetId: h.contains,
  });
};

/**
 * A target-ID check answered from this instance's copy of the list (the target-ID index, as
 * containsTargetId reads it), for the ID in the URL's last segment; null (the route answers) when
 * the copy is not current, the segment is not a plain percent-encoded ID, or it is too long.
 */
function containsFromMemory(deps: AppDeps, kind: PrimitiveKind, envId: string, key: string, url: string | undefined): ReplayAnswer | null {
  const env = deps.envs.peek(envId);
  const segment = url?.slice(url.lastIndexOf('/') + 1);
  if (!env || !segment || /[?#]/.test(segment) || key.length > KEY_MAX_LENGTH) return null;
  let targetId: string;
  try {
    targetId = decodeURIComponent(segment);
  } catch {
    return null;
  }
  if (!targetId || targetId.length > TARGET_ID_MAX_LENGTH) return null;
  const known = deps.targetIds.lookup(envId, kind, key, env.version, targetId);
  if (!known) return null;
  const body = known.contains ? '{"contains":true}' : '{"contains":false}';
  return { status: 200, headers: ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length)], body };
}
