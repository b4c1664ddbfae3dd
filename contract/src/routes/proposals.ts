import { z } from 'zod';
import { errorResponses } from '../errors.js';
import { AppliedProposal, Proposal, ProposalListQuery } from '../schemas/proposals.js';
import { c, MutationHeaders, type RouteMetadata } from './common.js';

export const proposalsContract = c.router({
  getProposal: {
    method: 'GET',
    path: '/proposals/:id',
    summary: 'Get an approval proposal',
    description: 'A session of any member of the org, or an API key with the read action (and the proposal’s environment and key in scope). A pending proposal past `expiresAt` reads as `expired`.',
    responses: { 200: Proposal, ...errorResponses(401, 403, 404) },
  },
  listProposals: {
    method: 'GET',
    path: '/orgs/:slug/proposals',
    summary: 'List the approval proposals of an organization, newest first',
    description: 'Optionally filtered by `status`; `limit` 1–500 (default 100). API keys see only proposals in their environments and resources.',
    query: ProposalListQuery,
    responses: { 200: z.array(Proposal), ...errorResponses(400, 401, 403, 404) },
  },
  applyProposal: {
    method: 'POST',
    path: '/proposals/:id/apply',
    summary: 'Apply a pending proposal',
    description:
      'Session, admin or owner. Runs the stored request exactly as the API key’s direct call would, in one transaction with the proposal becoming `applied`; its audit rows name the key as actor, the applying user as `approverUserId`, and carry the reason `proposal:<id>`. `409 version_drift` (with `details.liveVersion` and `details.proposedVersion`) when the environment changed since `baseVersion`; `410 proposal_gone` when the proposal is applied, cancelled or expired. The stored request’s own errors (e.g. `412`, `409 rollout_not_paused`) are answered as they are and leave the proposal pending.',
    body: c.noBody(),
    headers: MutationHeaders,
    responses: { 200: AppliedProposal, ...errorResponses(400, 401, 403, 404, 409, 410, 412) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  cancelProposal: {
    method: 'POST',
    path: '/proposals/:id/cancel',
    summary: 'Cancel a pending proposal',
    description:
      'Session, admin or owner; or the API key that made the proposal (withdrawing it). `410 proposal_gone` when the proposal is applied, cancelled or expired.',
    body: c.noBody(),
    headers: MutationHeaders,
    responses: { 200: Proposal, ...errorResponses(401, 403, 404, 410) },
  },
});
