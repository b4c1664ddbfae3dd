import { z } from 'zod';
import { named } from '../openapi-meta.js';
import { API_PREFIX } from '../routes/common.js';
import { Id, JsonValue, Timestamp } from './common.js';
import { PrimitiveKind } from './rollouts.js';

export const ProposalStatus = named('ProposalStatus', z.enum(['pending', 'applied', 'cancelled', 'expired']));
export type ProposalStatus = z.infer<typeof ProposalStatus>;

/** The divertible mutations: rollout state changes and target-ID edits, for flags and configs. */
export const ProposalKind = named(
  'ProposalKind',
  z.enum([
    'rollout.put',
    'rollout.delete',
    'rollout.pause',
    'rollout.resume',
    'rollout.cancel',
    'rollout.advance',
    'target_ids.add',
    'target_ids.remove',
    'target_ids.replace',
  ]),
);
export type ProposalKind = z.infer<typeof ProposalKind>;

export const ProposalRequest = named(
  'ProposalRequest',
  z.object({
    method: z.enum(['PUT', 'POST', 'DELETE']),
    path: z.string(),
    body: JsonValue.optional(),
    headers: z.record(z.string()).optional(),
  }),
  `The request the API key sent: method, path (under ${API_PREFIX}), validated body, and its If-Match and X-Audit-Reason headers when present.`,
);
export type ProposalRequest = z.infer<typeof ProposalRequest>;

export const Proposal = named(
  'Proposal',
  z.object({
    id: Id,
    status: ProposalStatus,
    kind: ProposalKind,
    envId: Id,
    resourceType: PrimitiveKind,
    resourceKey: z.string(),
    request: ProposalRequest,
    baseVersion: z.number().int(),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    createdByTokenId: Id,
    appliedAt: Timestamp.nullable(),
    appliedByUserId: Id.nullable(),
    cancelledAt: Timestamp.nullable(),
    cancelledByUserId: Id.nullable(),
  }),
  'A mutation by an approval-required API key, held until an admin applies or cancels it; pending proposals expire 7 days after `createdAt`. `baseVersion` is the environment version it was made against: applying after the environment moved is `409 version_drift`.',
);
export type Proposal = z.infer<typeof Proposal>;

export const AppliedProposal = named(
  'AppliedProposal',
  Proposal.extend({
    result: JsonValue.optional(),
  }),
  'The applied proposal, with `result`: the body the direct call would have answered (a Rollout, target-ID counts; absent for DELETE).',
);

export const ProposalListQuery = z.object({
  status: ProposalStatus.optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});
