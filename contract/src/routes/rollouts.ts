import { errorResponses } from '../errors.js';
import {
  PutRolloutRequest,
  ReplaceTargetIdsRequest,
  Rollout,
  RolloutRamp,
  TargetIdContains,
  TargetIdListQuery,
  TargetIdPage,
  TargetIdsAdded,
  TargetIdsCount,
  TargetIdsRemoved,
  TargetIdsRequest,
} from '../schemas/rollouts.js';
import { Proposal } from '../schemas/proposals.js';
import { RolloutGuard } from '../schemas/guards.js';
import { API_PREFIX, c, ConditionalGetHeaders, ConditionalMutationHeaders, MutationHeaders, type RouteMetadata } from './common.js';

const etag = { etag: true } satisfies RouteMetadata;

/** Mutations an approval-required API key makes are diverted to a proposal (202, Location: /api/v1/proposals/{id}). */
const diverted = ` An approval-required API key gets \`202\` with the stored proposal instead (\`Location: ${API_PREFIX}/proposals/{id}\`); nothing changes until an admin applies it.`;
/** Every rollout write (not the rollback) of an archived flag or config is refused. */
const archived = ' An archived flag or config answers `409 primitive_archived` (restore it first).';

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
      description: description + diverted + archived,
      body: c.noBody(),
      headers: MutationHeaders,
      responses: { 200: Rollout, 202: Proposal, ...errors },
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
    ramp: {
      method: 'GET',
      path: `${base}/ramp` as const,
      summary: `Get the ramp of the ${noun}'s rollout: what happened and what the plan has in store`,
      description:
        'The current rollout (as GET rollout finds it) on a time line as of now: `done` segments and marks from its recorded transitions (the audit rows of its state changes, with their actual times), `planned` ones projected from its plan snapshot the way the scheduler runs it (exact holds, blackout days in the plan’s time zone, a stop before each step that requires approval). Not cached: the projection moves with the clock. Needs read access, as GET rollout; `404` when there is no rollout.',
      responses: { 200: RolloutRamp, ...errorResponses(401, 403, 404) },
    },
    guard: {
      method: 'GET',
      path: `${base}/guard` as const,
      summary: `Get the guard of the ${noun}'s rollout: the gate's checklist and each metric's evidence`,
      description:
        'The current rollout (as GET rollout finds it) as its guard sees it now (docs/guards.md): the guarded step it holds at with the checks the scheduler makes once a minute (hold, units per arm, sample-ratio mismatch, each metric\'s evidence and estimate with their history by minute), and `lastStop`, the check that last stopped it. Not cached. Needs read access, as GET rollout; `404` when there is no rollout.',
      responses: { 200: RolloutGuard, ...errorResponses(401, 403, 404) },
    },
    put: {
      method: 'PUT',
      path: base,
      summary: `Start or edit the ${noun}'s rollout`,
      description:
        'Idempotent: a body that changes nothing returns the rollout unchanged (no audit row, no version bump). A PUT after a completed or cancelled rollout starts a new one. The seed is locked once percent is above 0 (`rollout_seed_locked`). ' +
        `Reaching 100% (by this PUT, advance, resume or a scheduled step) completes the rollout in the same transaction: its \`newValue\` overwrites the ${noun}'s base value in the environment (audited as \`${noun}.update_value\`), and evaluation ignores the rollout from then on. A rollout without \`newValue\` (gating the rules) leaves the base value as it is and stops gating the rules.` +
        diverted +
        archived,
      body: PutRolloutRequest,
      headers: ConditionalMutationHeaders,
      responses: { 200: Rollout, 202: Proposal, ...errorResponses(400, 401, 403, 404, 409, 412) },
    },
    delete: {
      method: 'DELETE',
      path: base,
      summary: `Cancel the ${noun}'s rollout (same as POST cancel)`,
      description: `Cancels the ${noun}'s rollout, as POST cancel does.` + diverted + archived,
      body: c.noBody(),
      headers: MutationHeaders,
      responses: { 204: c.noBody(), 202: Proposal, ...errorResponses(401, 403, 404, 409) },
    },
    pause: state('pause', `Pause the ${noun}'s rollout`, 'Admission continues at the held percent. Idempotent.', errorResponses(401, 403, 404, 409)),
    resume: state(
      'resume',
      `Resume the ${noun}'s paused rollout`,
      'From a user pause: the hold restarts. From an approval gate: the gated step is entered (`rollout.approval_resolved`). From an automatic rollback: back to the percent it was rolled back from. `409 rollout_not_paused` otherwise.',
      errorResponses(401, 403, 404, 409),
    ),
    cancel: state('cancel', `Cancel the ${noun}'s rollout`, 'Admission stops and the row is kept. Idempotent.', errorResponses(401, 403, 404, 409)),
    advance: state(
      'advance',
      `Advance the ${noun}'s rollout to its next ramp step`,
      'Ignores holds, blackout days and approval gates (operator override). `409 rollout_already_at_final_step` when there is no next step.',
      errorResponses(401, 403, 404, 409),
    ),
    rollback: {
      method: 'POST',
      path: `${base}/rollback` as const,
      summary: `Roll back the ${noun}'s rollout now (kill switch)`,
      description:
        'The same state change as an automatic rollback: the live rollout pauses at 0% (`pausedReason: auto_rollback`) and remembers the percent it admitted in `rolledBackFromPercent`, so POST resume returns to it. Audited as `rollout.rolled_back`; reaches SDKs like any write. ' +
        '`X-Audit-Reason` is required: without it (or with only spaces) the answer is `400 invalid_request` with `fields["x-audit-reason"]`, checked after the caller is authorized. ' +
        'Never diverted to a proposal: an approval-required API key with the write action rolls back directly, since stopping exposure must not wait for an approver. ' +
        '`409 rollout_nothing_to_roll_back` when the rollout is completed, cancelled or already rolled back.',
      body: c.noBody(),
      headers: MutationHeaders,
      responses: { 200: Rollout, ...errorResponses(400, 401, 403, 404, 409) },
    },
    addTargetIds: {
      method: 'POST',
      path: `${base}/target-ids/add` as const,
      summary: `Add IDs to the ${noun} rollout's allow-list`,
      description: 'Up to 100,000 IDs per request; duplicates are ignored and `added` counts only new IDs.' + diverted + archived,
      body: TargetIdsRequest,
      headers: MutationHeaders,
      responses: { 200: TargetIdsAdded, 202: Proposal, ...errorResponses(400, 401, 403, 404, 409, 413) },
    },
    removeTargetIds: {
      method: 'POST',
      path: `${base}/target-ids/remove` as const,
      summary: `Remove IDs from the ${noun} rollout's allow-list`,
      description: 'Up to 100,000 IDs per request; absent IDs are skipped.' + diverted + archived,
      body: TargetIdsRequest,
      headers: MutationHeaders,
      responses: { 200: TargetIdsRemoved, 202: Proposal, ...errorResponses(400, 401, 403, 404, 409, 413) },
    },
    replaceTargetIds: {
      method: 'POST',
      path: `${base}/target-ids/replace` as const,
      summary: `Replace the ${noun} rollout's whole allow-list atomically`,
      description: 'Up to 1,000,000 IDs (request bodies of the target-ID endpoints may reach 64 MiB).' + diverted + archived,
      body: ReplaceTargetIdsRequest,
      headers: MutationHeaders,
      responses: { 200: TargetIdsCount, 202: Proposal, ...errorResponses(400, 401, 403, 404, 409, 413) },
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
  getFlagRolloutRamp: flag.ramp,
  getFlagRolloutGuard: flag.guard,
  putFlagRollout: flag.put,
  deleteFlagRollout: flag.delete,
  pauseFlagRollout: flag.pause,
  resumeFlagRollout: flag.resume,
  cancelFlagRollout: flag.cancel,
  advanceFlagRollout: flag.advance,
  rollbackFlagRollout: flag.rollback,
  addFlagTargetIds: flag.addTargetIds,
  removeFlagTargetIds: flag.removeTargetIds,
  replaceFlagTargetIds: flag.replaceTargetIds,
  listFlagTargetIds: flag.listTargetIds,
  checkFlagTargetId: flag.checkTargetId,
});

export const configRolloutsContract = c.router({
  getConfigRollout: config.get,
  getConfigRolloutRamp: config.ramp,
  getConfigRolloutGuard: config.guard,
  putConfigRollout: config.put,
  deleteConfigRollout: config.delete,
  pauseConfigRollout: config.pause,
  resumeConfigRollout: config.resume,
  cancelConfigRollout: config.cancel,
  advanceConfigRollout: config.advance,
  rollbackConfigRollout: config.rollback,
  addConfigTargetIds: config.addTargetIds,
  removeConfigTargetIds: config.removeTargetIds,
  replaceConfigTargetIds: config.replaceTargetIds,
  listConfigTargetIds: config.listTargetIds,
  checkConfigTargetId: config.checkTargetId,
});
