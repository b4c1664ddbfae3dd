import { errorResponses } from '../errors.js';
import {
  PutRolloutRequest,
  ReplaceTargetIdsRequest,
  Rollout,
  TargetIdContains,
  TargetIdListQuery,
  TargetIdPage,
  TargetIdsAdded,
  TargetIdsCount,
  TargetIdsRemoved,
  TargetIdsRequest,
} from '../schemas/rollouts.js';
import { c, ConditionalGetHeaders, ConditionalMutationHeaders, MutationHeaders, type RouteMetadata } from './common.js';

const etag = { etag: true } satisfies RouteMetadata;

/**
 * The rollout family of one primitive kind. Flags and configs get the same
 * routes from this one function (`segment` is the only difference), so the
 * two families cannot drift apart.
 */
function rolloutRoutes<S extends 'flags' | 'configs'>(segment: S, noun: string) {
  const base = `/envs/:envId/${segment}/:key/rollout` as const;
  const state = <V extends string, E extends object>(verb: V, summary: string, description: string, errors: E) =>
    ({
      method: 'POST',
      path: `${base}/${verb}` as const,
      summary,
      description,
      body: c.noBody(),
      headers: MutationHeaders,
      responses: { 200: Rollout, ...errors },
    }) as const;
  return {
    get: {
      method: 'GET',
      path: base,
      summary: `Get the ${noun}'s rollout in an environment`,
      description: 'The live rollout (active or paused), else the most recent one. Sends a strong ETag.',
      headers: ConditionalGetHeaders,
      responses: { 200: Rollout, 304: c.noBody(), ...errorResponses(401, 403, 404) },
      metadata: etag,
    },
    put: {
      method: 'PUT',
      path: base,
      summary: `Start or edit the ${noun}'s rollout`,
      description:
        'Idempotent: a body that changes nothing returns the rollout unchanged (no audit row, no version bump). A PUT after a completed or cancelled rollout starts a new one. The seed is locked once percent is above 0 (`rollout_seed_locked`). Reaching 100% completes the rollout.',
      body: PutRolloutRequest,
      headers: ConditionalMutationHeaders,
      responses: { 200: Rollout, ...errorResponses(400, 401, 403, 404, 412) },
    },
    delete: {
      method: 'DELETE',
      path: base,
      summary: `Cancel the ${noun}'s rollout (same as POST cancel)`,
      body: c.noBody(),
      headers: MutationHeaders,
      responses: { 204: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    pause: state('pause', `Pause the ${noun}'s rollout`, 'Admission continues at the held percent. Idempotent.', errorResponses(401, 403, 404)),
    resume: state(
      'resume',
      `Resume the ${noun}'s paused rollout`,
      'From a user pause: the hold restarts. From an approval gate: the gated step is entered (`rollout.approval_resolved`). From an automatic rollback: back to the percent it was rolled back from. `409 rollout_not_paused` otherwise.',
      errorResponses(401, 403, 404, 409),
    ),
    cancel: state('cancel', `Cancel the ${noun}'s rollout`, 'Admission stops and the row is kept. Idempotent.', errorResponses(401, 403, 404)),
    advance: state(
      'advance',
      `Advance the ${noun}'s rollout to its next ramp step`,
      'Ignores holds, blackout days and approval gates (operator override). `409 rollout_already_at_final_step` when there is no next step.',
      errorResponses(401, 403, 404, 409),
    ),
    addTargetIds: {
      method: 'POST',
      path: `${base}/target-ids/add` as const,
      summary: `Add IDs to the ${noun} rollout's allow-list`,
      description: 'Up to 100,000 IDs per request; duplicates are ignored and `added` counts only new IDs.',
      body: TargetIdsRequest,
      headers: MutationHeaders,
      responses: { 200: TargetIdsAdded, ...errorResponses(400, 401, 403, 404, 413) },
    },
    removeTargetIds: {
      method: 'POST',
      path: `${base}/target-ids/remove` as const,
      summary: `Remove IDs from the ${noun} rollout's allow-list`,
      description: 'Up to 100,000 IDs per request; absent IDs are skipped.',
      body: TargetIdsRequest,
      headers: MutationHeaders,
      responses: { 200: TargetIdsRemoved, ...errorResponses(400, 401, 403, 404, 413) },
    },
    replaceTargetIds: {
      method: 'POST',
      path: `${base}/target-ids/replace` as const,
      summary: `Replace the ${noun} rollout's whole allow-list atomically`,
      description: 'Up to 1,000,000 IDs (request bodies of the target-ID endpoints may reach 64 MiB).',
      body: ReplaceTargetIdsRequest,
      headers: MutationHeaders,
      responses: { 200: TargetIdsCount, ...errorResponses(400, 401, 403, 404, 413) },
    },
    listTargetIds: {
      method: 'GET',
      path: `${base}/target-ids` as const,
      summary: `List the ${noun} rollout's allow-list, ordered by ID`,
      description: '`limit` 1–10,000 (default 1000); `nextCursor` is present only when the page is full.',
      query: TargetIdListQuery,
      responses: { 200: TargetIdPage, ...errorResponses(400, 401, 403, 404) },
    },
    checkTargetId: {
      method: 'GET',
      path: `${base}/target-ids/contains/:targetId` as const,
      summary: `Whether an ID is on the ${noun} rollout's allow-list`,
      responses: { 200: TargetIdContains, ...errorResponses(401, 403, 404) },
    },
  } as const;
}

const flag = rolloutRoutes('flags', 'flag');
const config = rolloutRoutes('configs', 'config');

export const flagRolloutsContract = c.router({
  getFlagRollout: flag.get,
  putFlagRollout: flag.put,
  deleteFlagRollout: flag.delete,
  pauseFlagRollout: flag.pause,
  resumeFlagRollout: flag.resume,
  cancelFlagRollout: flag.cancel,
  advanceFlagRollout: flag.advance,
  addFlagTargetIds: flag.addTargetIds,
  removeFlagTargetIds: flag.removeTargetIds,
  replaceFlagTargetIds: flag.replaceTargetIds,
  listFlagTargetIds: flag.listTargetIds,
  checkFlagTargetId: flag.checkTargetId,
});

export const configRolloutsContract = c.router({
  getConfigRollout: config.get,
  putConfigRollout: config.put,
  deleteConfigRollout: config.delete,
  pauseConfigRollout: config.pause,
  resumeConfigRollout: config.resume,
  cancelConfigRollout: config.cancel,
  advanceConfigRollout: config.advance,
  addConfigTargetIds: config.addTargetIds,
  removeConfigTargetIds: config.removeTargetIds,
  replaceConfigTargetIds: config.replaceTargetIds,
  listConfigTargetIds: config.listTargetIds,
  checkConfigTargetId: config.checkTargetId,
});
