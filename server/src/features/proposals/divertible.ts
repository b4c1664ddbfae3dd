import { PutRolloutRequest, ReplaceTargetIdsRequest, TargetIdsRequest, type ProposalKind, type ProposalRequest } from '@gradual/contract';
import type { Caller } from '../access/authorize.js';
import type { OpKind, RolloutOp } from '../rollouts/operations.js';

/**
 * The divertible mutations (docs/rollouts.md) are the rollout slice's operations
 * (features/rollouts/operations.ts): rollout state changes and target-ID edits of
 * one flag or config in one environment. This module says when a caller's
 * operation becomes a proposal (`mustPropose`), what a proposal stores of the
 * request (`storedRequest`) and which operation a stored request runs (`opOf`).
 */

// The proposal kinds the contract names are exactly the rollout slice's operations.
const SAME_KINDS: [ProposalKind, OpKind] extends [OpKind, ProposalKind] ? true : never = true;
void SAME_KINDS;

/** What a proposal keeps of the request the key sent (method, path, validated body, If-Match and reason). */
export function storedRequest(sent: { method: ProposalRequest['method']; path: string; reason: string | null }, op: RolloutOp): ProposalRequest {
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

/** Each operation from its stored request; the body was validated when the proposal was made and is parsed again by the same schema. */
const fromStored: { [K in OpKind]: (request: ProposalRequest) => RolloutOp<K> } = {
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
export const opOf = (kind: ProposalKind, request: ProposalRequest): RolloutOp => fromStored[kind](request);

/** Whether this caller's divertible writes become proposals. */
export function mustPropose(caller: Caller): boolean {
  return caller.principal?.kind === 'token' && caller.principal.key.requiresApproval && !caller.approverUserId;
}
