import type { EntityManager } from '@mikro-orm/postgresql';
import { API_PREFIX, type Proposal as ProposalDto, type ProposalKind } from '@gradual/contract';
import type { Request, Response } from 'express';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { applyCommand } from '../../domain/rollouts/state-machine.js';
import { callerOf } from '../../http/caller.js';
import type { AppDeps } from '../../http/deps.js';
import { checkIfMatch } from '../../http/etag.js';
import type { Caller } from '../access/authorize.js';
import type { EnvChangeBus } from '../environments/env-changes.js';
import { toRolloutDto, toState } from '../rollouts/rollout.mapper.js';
import { checkCandidate, commandRollout, loadPlanSnapshot, putRollout, resolveTarget, type PutRolloutBody, type RolloutTarget } from '../rollouts/rollouts.service.js';
import { findCurrentRollout } from '../rollouts/rollouts.store.js';
import { editTargetIds } from '../rollouts/target-ids.service.js';
import { propose } from './proposals.service.js';

/**
 * The divertible mutations (docs/rollouts.md): rollout state changes and
 * target-ID edits of one flag or config in one environment. This module is
 * the one place that knows them: the rollout routes send every such request
 * through `divertibleHandler` (direct execution, or a proposal for an
 * approval-required API key), and applying a proposal runs the stored request
 * through the same `executeOp`, so both paths call the same service functions.
 */
export interface OpTarget {
  primitiveKind: PrimitiveKind;
  envId: string;
  key: string;
}

type Command = 'pause' | 'resume' | 'cancel' | 'advance';
type Edit = 'add' | 'remove' | 'replace';

export type DivertibleOp =
  | { kind: 'rollout.put'; body: PutRolloutBody; ifMatch?: string | undefined }
  | { kind: 'rollout.delete' | `rollout.${Command}` }
  | { kind: `target_ids.${Edit}`; body: { targetIds: string[] } };

/** What the direct call answers (the proposal's apply response repeats it as `result`). */
export type OpResult = { status: 200; body: unknown } | { status: 204; body: undefined };

/** Runs the mutation now, as `caller`: the same service calls for a direct request and for an applied proposal. */
export async function executeOp(em: EntityManager, caller: Caller, bus: EnvChangeBus, t: OpTarget, op: DivertibleOp): Promise<OpResult> {
  const { primitiveKind: kind, envId, key } = t;
  switch (op.kind) {
    case 'rollout.put':
      // `newValue: null` is a value; an absent newValue gates the primitive's rules.
      return { status: 200, body: await putRollout(em, caller, bus, kind, envId, key, op.body, 'newValue' in op.body, op.ifMatch) };
    case 'rollout.delete':
      await commandRollout(em, caller, bus, kind, envId, key, { type: 'cancel' });
      return { status: 204, body: undefined };
    case 'rollout.pause':
    case 'rollout.resume':
    case 'rollout.cancel':
    case 'rollout.advance':
      return { status: 200, body: await commandRollout(em, caller, bus, kind, envId, key, { type: commandOf(op.kind) }) };
    case 'target_ids.add':
    case 'target_ids.remove':
    case 'target_ids.replace':
      return { status: 200, body: await editTargetIds(em, caller, bus, kind, envId, key, editOf(op.kind), op.body.targetIds) };
  }
}

const commandOf = (kind: `rollout.${Command}`) => kind.slice('rollout.'.length) as Command;
const editOf = (kind: `target_ids.${Edit}`) => kind.slice('target_ids.'.length) as Edit;
const noRollout = () => new DomainError('not_found', 'There is no rollout for this primitive in this environment.');

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
  if (op.kind.startsWith('rollout.')) {
    const type = op.kind === 'rollout.delete' ? 'cancel' : commandOf(op.kind as `rollout.${Command}`);
    applyCommand(toState(current), { type }, caller.now);
  }
  return target;
}

/** The stored `request` of a proposal: what the key sent. */
export interface StoredRequest {
  method: 'PUT' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export function storedRequest(req: Request, op: DivertibleOp): StoredRequest {
  const headers: Record<string, string> = {};
  if (op.kind === 'rollout.put' && op.ifMatch !== undefined) headers['if-match'] = op.ifMatch;
  const reason = req.headers['x-audit-reason'];
  if (typeof reason === 'string' && reason.length) headers['x-audit-reason'] = reason;
  return {
    method: req.method as StoredRequest['method'],
    path: req.path,
    ...('body' in op ? { body: op.body } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
  };
}

/** The operation a stored proposal runs when applied. */
export function opOf(kind: ProposalKind, request: StoredRequest): DivertibleOp {
  if (kind === 'rollout.put') return { kind, body: request.body as PutRolloutBody, ifMatch: request.headers?.['if-match'] };
  if (kind.startsWith('target_ids.')) return { kind: kind as `target_ids.${Edit}`, body: request.body as { targetIds: string[] } };
  return { kind: kind as 'rollout.delete' | `rollout.${Command}` };
}

/** Whether this caller's divertible writes become proposals. */
export function mustPropose(caller: Caller): boolean {
  return caller.principal?.kind === 'token' && caller.principal.key.requiresApproval && !caller.approverUserId;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRequest = Request<any, any, any, any>;

/**
 * The rollout routes' one entry for divertible mutations: an approval-required
 * API key gets `202` + Location with the stored proposal; everyone else gets
 * the direct call's answer.
 */
export function divertibleHandler(deps: AppDeps, primitiveKind: PrimitiveKind) {
  return async (
    req: AnyRequest,
    res: Response,
    params: { envId: string; key: string },
    op: DivertibleOp,
  ): Promise<OpResult | { status: 202; body: ProposalDto }> => {
    const caller = await callerOf(req, deps);
    const target = { primitiveKind, envId: params.envId, key: params.key };
    if (!mustPropose(caller)) return executeOp(req.em, caller, deps.bus, target, op);
    const proposal = await propose(req.em, caller, target, op, storedRequest(req, op));
    res.setHeader('Location', `${API_PREFIX}/proposals/${proposal.id}`);
    return { status: 202, body: proposal };
  };
}
