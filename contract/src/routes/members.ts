import { z } from 'zod';
import { errorResponses } from '../errors.js';
import { Session } from '../schemas/auth.js';
import {
  AcceptInvitationRequest,
  CreateInvitationRequest,
  Invitation,
  InvitationPreview,
  Member,
  UpdateMemberRequest,
} from '../schemas/members.js';
import { c, MutationHeaders, type RouteMetadata } from './common.js';

export const membersContract = c.router({
  listMembers: {
    method: 'GET',
    path: '/orgs/:slug/members',
    summary: 'List the members of an organization',
    description: 'Any member. Ordered by email.',
    responses: { 200: z.array(Member), ...errorResponses(401, 403, 404) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  updateMember: {
    method: 'PATCH',
    path: '/orgs/:slug/members/:userId',
    summary: "Change a member's role",
    description:
      'Admin or owner. Only an owner grants the owner role or changes an owner. `409 last_owner_cannot_demote_or_remove` for the last owner.',
    body: UpdateMemberRequest,
    headers: MutationHeaders,
    responses: { 200: Member, ...errorResponses(400, 401, 403, 404, 409) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  removeMember: {
    method: 'DELETE',
    path: '/orgs/:slug/members/:userId',
    summary: 'Remove a member from an organization',
    description:
      'Admin or owner; any member may remove themselves (leave). Only an owner removes an owner. `409 last_owner_cannot_demote_or_remove` for the last owner.',
    body: c.noBody(),
    headers: MutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(401, 403, 404, 409) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
});

export const invitationsContract = c.router({
  createInvitation: {
    method: 'POST',
    path: '/orgs/:slug/invitations',
    summary: 'Invite someone to an organization',
    description:
      'Admin or owner (only an owner invites an owner). Mails `PUBLIC_URL/app/invite/<token>`; the invitation expires after 7 days. `409 already_member`, `409 invitation_pending` (a live invitation exists for that address), `410 invitation_email_locked` (the address belongs to a deleted user).',
    body: CreateInvitationRequest,
    headers: MutationHeaders,
    responses: { 201: Invitation, ...errorResponses(400, 401, 403, 404, 409, 410) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  listInvitations: {
    method: 'GET',
    path: '/orgs/:slug/invitations',
    summary: 'List the invitations of an organization',
    description: 'Admin or owner. Pending, used and expired invitations, newest first (revoked ones are gone).',
    responses: { 200: z.array(Invitation), ...errorResponses(401, 403, 404) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  revokeInvitation: {
    method: 'DELETE',
    path: '/orgs/:slug/invitations/:id',
    summary: 'Revoke an invitation',
    description: 'Admin or owner. Its link stops working (404). 204 also when already revoked; `410 invitation_used` once accepted.',
    body: c.noBody(),
    headers: MutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(401, 403, 404, 410) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  getInvitation: {
    method: 'GET',
    path: '/invitations/:token',
    summary: 'Preview an invitation',
    description: 'Unauthenticated: the token from the invitation link is the credential. `404 not_found` for an unknown or revoked token.',
    responses: { 200: InvitationPreview, ...errorResponses(404, 410) },
    metadata: { auth: 'public' } satisfies RouteMetadata,
  },
  acceptInvitation: {
    method: 'POST',
    path: '/invitations/:token/accept',
    summary: 'Accept an invitation and sign in',
    description:
      'Unauthenticated: the token is the credential. Creates the user if new, adds the membership, marks the invitation used and starts a session (sets `svc_session`), in one transaction. `409 already_member`; `410 invitation_used`, `invitation_expired`, `invitation_email_locked`.',
    body: AcceptInvitationRequest,
    responses: { 200: Session, ...errorResponses(400, 404, 409, 410) },
    metadata: { auth: 'public' } satisfies RouteMetadata,
  },
});
