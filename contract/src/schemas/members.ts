import { z } from 'zod';
import { named } from '../openapi-meta.js';
import { Email } from './auth.js';
import { Id, Name, Role, Timestamp } from './common.js';

export const Member = named(
  'Member',
  z.object({
    userId: Id,
    email: z.string(),
    displayName: z.string(),
    role: Role,
    /** When the membership was created. */
    createdAt: Timestamp,
  }),
);
export type Member = z.infer<typeof Member>;

export const UpdateMemberRequest = named('UpdateMemberRequest', z.object({ role: Role }));

export const InvitationStatus = named(
  'InvitationStatus',
  z.enum(['pending', 'used', 'expired']),
  '`pending` until accepted (`used`) or 7 days old (`expired`); used and expired are terminal.',
);

export const Invitation = named(
  'Invitation',
  z.object({
    id: Id,
    email: z.string(),
    role: Role,
    status: InvitationStatus,
    expiresAt: Timestamp,
    createdAt: Timestamp,
  }),
);
export type Invitation = z.infer<typeof Invitation>;

export const CreateInvitationRequest = named('CreateInvitationRequest', z.object({ email: Email, role: Role }));

export const InvitationPreview = named(
  'InvitationPreview',
  z.object({ orgName: z.string(), role: Role, email: z.string() }),
  'What an invitation link offers, shown before accepting.',
);
export type InvitationPreview = z.infer<typeof InvitationPreview>;

export const AcceptInvitationRequest = named(
  'AcceptInvitationRequest',
  z.object({ displayName: Name }),
  '`displayName` names a new user; an existing user keeps theirs.',
);

export const DeleteOrgRequest = named(
  'DeleteOrgRequest',
  z.object({ confirm: z.string().max(200).optional() }),
  '`confirm` must be the organization slug, typed again.',
);
