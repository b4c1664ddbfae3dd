import type { EntityManager } from '@mikro-orm/postgresql';
import {
  PutRolloutRequest,
  ReplaceTargetIdsRequest,
  TargetIdsRequest,
  type ProposalKind,
  type ProposalRequest,
  type Rollout as RolloutDto,
  type TargetIdsAdded,
  type TargetIdsCount,
  type TargetIdsRemoved,
} from '@gradual/contract';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { applyCommand } from '../../domain/rollouts/state-machine.js';
import { checkIfMatch } from '../common/etag.js';
import type { Caller } from '../access/authorize.js';
import type { EnvChangeBus } from '../environments/env-changes.js';
import { toRolloutDto, toState } from '../rollouts/rollout.mapper.js';
import { checkCandidate, commandRollout, loadPlanSnapshot, putRollout, resolveTarget, type PutRolloutBody, type RolloutTarget } from '../rollouts/rollouts.service.js';
import { findCurrentRollout } from '../rollouts/rollouts.store.js';
import { editTargetIds, type TargetIdEdit } from '../rollouts/target-ids.service.js';

/**
 * The divertible mutations (docs/rollouts.md): rollout state changes and
 * target-ID edits of one flag or config in one environment. This module is
 * the one place that knows them: the rollout routes run every such request
 * with `executeOp`, or store it with `propose` when `mustPropose` says the
 * caller's writes need approval, and applying a proposal runs the stored request
 * through the same `executeOp`, so both paths call the same service functions.
 */
export interface OpTarget {
  primitiveKind: PrimitiveKind;
  envId: string;
  key: string;
}

type Command = 'pause' | 'resume' | 'cancel' | 'advance';

/** What each divertible mutation takes besides its target. */
interface OpInputs {
  'rollout.put': { body: PutRolloutBody; ifMatch?: string | undefined };
  'rollout.delete': object;
  'rollout.pause': object;
  'rollout.resume': object;
  'rollout.cancel': object;
  'rollout.advance': object;
  'target_ids.add': { body: { targetIds: string[] } };
  'target_ids.remove': { body: { targetIds: string[] } };
  'target_ids.replace': { body: { targetIds: string[] } };
}
export type OpKind = keyof OpInputs;
/** One divertible mutation (of kind `K`, or any). */
export type DivertibleOp<K extends OpKind = OpKind> = { [P in K]: { kind: P } & OpInputs[P] }[K];

/** What the direct call of each mutation answers (an applied proposal's `result` repeats the body). */
export interface OpResults {
  'rollout.put': { status: 200; body: RolloutDto };
  'rollout.delete': { status: 204; body: undefined };
  'rollout.pause': { status: 200; body: RolloutDto };
  'rollout.resume': { status: 200; body: RolloutDto };
  'rollout.cancel': { status: 200; body: RolloutDto };
  'rollout.advance': { status: 200; body: RolloutDto };
  'target_ids.add': { status: 200; body: TargetIdsAdded };
  'target_ids.remove': { status: 200; body: TargetIdsRemoved };
  'target_ids.replace': { status: 200; body: TargetIdsCount };
}

// The proposal kinds the contract names are exactly the mutations this module runs.
const SAME_KINDS: [ProposalKind, OpKind] extends [OpKind, ProposalKind] ? true : never = true;
void SAME_KINDS;

interface OpContext {
  em: EntityManager;
  caller: Caller;
  bus: EnvChangeBus;
  target: OpTarget;
}

const command =
  (type: Command) =>
  async ({ em, caller, bus, target: t }: OpContext) => ({
    status: 200 as const,
    body: await commandRollout(em, caller, bus, t.primitiveKind, t.envId, t.key, { type }),
  });
const edit =
  <E extends TargetIdEdit>(kind: E) =>
  async ({ em, caller, bus, target: t }: OpContext, op: { body: { targetIds: string[] } }) => ({
    status: 200 as const,
    body: await editTargetIds(em, caller, bus, t.primitiveKind, t.envId, t.key, kind, op.body.targetIds),
  });

const runners: { [K in OpKind]: (ctx: OpContext, op: DivertibleOp<K>) => Promise<OpResults[K]> } = {
  // `newValue: null` is a value; an absent newValue gates the primitive's rules.
  'rollout.put': async ({ em, caller, bus, target: t }, op) => ({
    status: 200,
    body: await putRollout(em, caller, bus, t.primitiveKind, t.envId, t.key, op.body, 'newValue' in op.body, op.ifMatch),
  }),
  'rollout.delete': async ({ em, caller, bus, target: t }) => {
    await commandRollout(em, caller, bus, t.primitiveKind, t.envId, t.key, { type: 'cancel' });
    return { status: 204, body: undefined };
  },
  'rollout.pause': command('pause'),
  'rollout.resume': command('resume'),
  'rollout.cancel': command('cancel'),
  'rollout.advance': command('advance'),
  'target_ids.add': edit('add'),
  'target_ids.remove': edit('remove'),
  'target_ids.replace': edit('replace'),
};

/** Runs the mutation now, as `caller`: the same service calls for a direct request and for an applied proposal. */
export function executeOp<K extends OpKind>(em: EntityManager, caller: Caller, bus: EnvChangeBus, target: OpTarget, op: DivertibleOp<K>): Promise<OpResults[K]> {
  const run: (ctx: OpContext, op: DivertibleOp<K>) => Promise<OpResults[K]> = runners[op.kind];
  return run({ em, caller, bus, target }, op);
}

const noRollout = () => new DomainError('not_found', 'There is no rollout for this primitive in this environment.');

/** The state-machine command each rollout mutation applies (DELETE cancels). */
const COMMAND_OF: Partial<Record<OpKind, Command>> = {
  'rollout.delete': 'cancel',
  'rollout.pause': 'pause',
  'rollout.resume': 'resume',
  'rollout.cancel': 'cancel',
  'rollout.advance': 'advance',
};

/**
 * Proposal-time checks: the caller is authorized exactly as for the direct call
 * (cross-tenant 404; IP, action, environment, resource), the primitive exists,
 * and the domain checks that cost a read or two pass against the current state:
 * If-Match, the candidate's type and the plan of a PUT; a rollout to act on;
 * and the pure state machine accepts a command (e.g. resume needs a paused
 * rollout). Nothing is written.
 */
export async function checkOp(em: EntityManager, caller: Caller, t: OpTarget, op: DivertibleOp): Promise<RolloutTarget> {
  const target = await resolveTarget(em, caller, t.primitiveKind, t.envId, t.key, 'propose');
  const current = await findCurrentRollout(em, target.env.id, target.primitive.id);
  if (op.kind === 'rollout.put') {
    checkIfMatch(op.ifMatch, current ? toRolloutDto(current) : null);
    if ('newValue' in op.body) checkCandidate(target.primitive, op.body.newValue);
    if (typeof op.body.planKey === 'string') await loadPlanSnapshot(em, target.env.projectId, op.body.planKey);
    return target;
  }
  if (!current) throw noRollout();
  const type = COMMAND_OF[op.kind];
  if (type) applyCommand(toState(current), { type }, caller.now);
  return target;
}

/** What a proposal keeps of the request the key sent (method, path, validated body, If-Match and reason). */
export function storedRequest(sent: { method: ProposalRequest['method']; path: string; reason: string | null }, op: DivertibleOp): ProposalRequest {
  const headers: Record<string, string> = {};
  if (op.kind === 'rollout.put' && op.ifMatch !== undefined) headers['if-match'] = op.ifMatch;
  if (sent.reason) headers['x-audit-reason'] = sent.reason;
  return {
    method: sent.method,
    path: sent.path,
    ...('body' in op ? { body: op.body } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
  };
}

/** Each mutation from its stored request; the body was validated when the proposal was made and is parsed again by the same schema. */
const fromStored: { [K in OpKind]: (request: ProposalRequest) => DivertibleOp<K> } = {
  'rollout.put': (r) => ({ kind: 'rollout.put', body: PutRolloutRequest.parse(r.body), ifMatch: r.headers?.['if-match'] }),
  'rollout.delete': () => ({ kind: 'rollout.delete' }),
  'rollout.pause': () => ({ kind: 'rollout.pause' }),
  'rollout.resume': () => ({ kind: 'rollout.resume' }),
  'rollout.cancel': () => ({ kind: 'rollout.cancel' }),
  'rollout.advance': () => ({ kind: 'rollout.advance' }),
  'target_ids.add': (r) => ({ kind: 'target_ids.add', body: TargetIdsRequest.parse(r.body) }),
  'target_ids.remove': (r) => ({ kind: 'target_ids.remove', body: TargetIdsRequest.parse(r.body) }),
  'target_ids.replace': (r) => ({ kind: 'target_ids.replace', body: ReplaceTargetIdsRequest.parse(r.body) }),
};

/** The operation a stored proposal runs when applied. */
export const opOf = (kind: ProposalKind, request: ProposalRequest): DivertibleOp => fromStored[kind](request);

/** Whether this caller's divertible writes become proposals. */
export function mustPropose(caller: Caller): boolean {
  return caller.principal?.kind === 'token' && caller.principal.key.requiresApproval && !caller.approverUserId;
}
