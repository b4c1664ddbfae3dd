import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Invitation as InvitationDto, InvitationPreview, Role, Session } from '@gradual/contract';
import { InvitationEntity, MembershipEntity, OrgEntity, UserEntity, type Invitation, type User } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { digestsEqual, hashToken } from '../../domain/secrets.js';
import type { Mailer } from '../../mail/mailer.js';
import { invitationMail } from '../../mail/templates.js';
import { authorize, type Actor, type Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { isOneTimeTokenShaped, newOneTimeToken, retryOnUniqueViolation } from '../auth/one-time-tokens.js';
import type { PendingInvitations } from '../auth/magic-link.service.js';
import { createSession, sessionBody } from '../auth/session.service.js';
import { findOrgBySlug, isUuid, iso } from '../common/lookup.js';
import { lockOrg } from './members.service.js';
import { transaction } from '../../db/transaction.js';

export const INVITATION_TTL_DAYS = 7;
const INVITATION_TTL_MS = INVITATION_TTL_DAYS * 24 * 3600 * 1000;

type Status = InvitationDto['status'];

/** `expired` is computed: a pending invitation past its expiry. */
function statusOf(inv: Invitation, now: Date): Status | 'revoked' {
  if (inv.status === 'pending' && inv.expiresAt.getTime() <= now.getTime()) return 'expired';
  return inv.status;
}

export const toInvitationDto = (inv: Invitation, now: Date): InvitationDto => ({
  id: inv.id,
  email: inv.email,
  role: inv.role,
  status: statusOf(inv, now) as Status,
  expiresAt: iso(inv.expiresAt),
  createdAt: iso(inv.createdAt),
});

const auditValue = (inv: Invitation, now: Date) => ({ ...toInvitationDto(inv, now), status: statusOf(inv, now) });

/** The invitation URL in the mail: the dashboard's accept page. */
export const invitationUrl = (publicUrl: string, token: string) => `${publicUrl}/app/invite/${token}`;

/** Where invitation mails go out, and the server's public origin for their link. */
export interface InvitationMail {
  mailer: Mailer;
  publicUrl: string;
}

export async function createInvitation(
  mail: InvitationMail,
  em: EntityManager,
  caller: Caller,
  slug: string,
  input: { email: string; role: Role },
): Promise<InvitationDto> {
  const org = await findOrgBySlug(em, slug);
  const email = input.email.toLowerCase();
  const now = caller.now;
  const token = newOneTimeToken();
  const { invitation, actor } = await transaction(em, async (tx) => {
    await lockOrg(tx, org.id);
    const actor = await authorize(tx, caller, org.id, { action: 'write', role: 'admin', sessionOnly: true });
    if (input.role === 'owner' && actor.role !== 'owner') throw new DomainError('insufficient_role', 'Only an owner can invite an owner.');
    const user = await tx.findOne(UserEntity, { email });
    if (user?.deletedAt) throw emailLocked();
    if (user && (await tx.findOne(MembershipEntity, { orgId: org.id, userId: user.id }))) {
      throw new DomainError('already_member', `${email} is already a member of this organization.`, { fields: { email: 'already a member' } });
    }
    if (await tx.findOne(InvitationEntity, { orgId: org.id, email, status: 'pending', expiresAt: { $gt: now } })) {
      throw new DomainError('invitation_pending', `${email} already has a pending invitation; revoke it to send a new one.`, {
        fields: { email: 'already invited' },
      });
    }
    const invitation = tx.create(InvitationEntity, {
      orgId: org.id,
      email,
      role: input.role,
      tokenHash: hashToken(token),
      status: 'pending',
      createdAt: now,
      createdByUserId: actor.actorId,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      usedAt: null,
      revokedAt: null,
    });
    recordAudit(tx, caller, actor, {
      orgId: org.id,
      action: 'invitation.created',
      resourceType: 'invitation',
      resourceKey: email,
      resourceId: invitation.id,
      newValue: auditValue(invitation, now),
    });
    return { invitation, actor };
  });
  // After the commit, off the request path: a mail failure never undoes the invitation.
  const inviter = caller.principal?.kind === 'user' ? caller.principal.displayName : (actor.actorEmail ?? 'Someone');
  void mail.mailer.send(invitationMail(email, invitationUrl(mail.publicUrl, token), org.name, input.role, inviter, INVITATION_TTL_DAYS));
  return toInvitationDto(invitation, now);
}

export async function listInvitations(em: EntityManager, caller: Caller, slug: string): Promise<InvitationDto[]> {
  const org = await findOrgBySlug(em, slug);
  await authorize(em, caller, org.id, { action: 'read', role: 'admin', sessionOnly: true });
  const rows = await em.find(
    InvitationEntity,
    { orgId: org.id, status: { $ne: 'revoked' } },
    { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
  );
  return rows.map((inv) => toInvitationDto(inv, caller.now));
}

/** Revoked invitations disappear (their link answers 404). Idempotent; an accepted one is 410. */
export async function revokeInvitation(em: EntityManager, caller: Caller, slug: string, id: string): Promise<void> {
  const org = await findOrgBySlug(em, slug);
  await transaction(em, async (tx) => {
    await lockOrg(tx, org.id);
    const actor = await authorize(tx, caller, org.id, { action: 'write', role: 'admin', sessionOnly: true });
    const invitation = isUuid(id) ? await tx.findOne(InvitationEntity, { id, orgId: org.id }) : null;
    if (!invitation) throw new DomainError('not_found', 'Invitation not found.');
    if (invitation.status === 'revoked') return;
    if (invitation.status === 'used') throw new DomainError('invitation_used', 'This invitation was accepted; remove the member instead.');
    const previous = auditValue(invitation, caller.now);
    invitation.status = 'revoked';
    invitation.revokedAt = caller.now;
    recordAudit(tx, caller, actor, {
      orgId: org.id,
      action: 'invitation.revoked',
      resourceType: 'invitation',
      resourceKey: invitation.email,
      resourceId: invitation.id,
      previousValue: previous,
      newValue: auditValue(invitation, caller.now),
    });
  });
}

const unknownInvitation = () => new DomainError('not_found', 'This invitation does not exist or was revoked.');
const emailLocked = () =>
  new DomainError('invitation_email_locked', 'This address belongs to a deleted account and cannot join organizations.');

/** The invitation a link names, or 404 (unknown, forged or revoked); 410 when used or expired. */
async function findUsable(em: EntityManager, token: string, now: Date, lock: boolean): Promise<Invitation> {
  if (!isOneTimeTokenShaped(token)) throw unknownInvitation();
  const hash = hashToken(token);
  const invitation = await em.findOne(InvitationEntity, { tokenHash: hash }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!invitation || !digestsEqual(invitation.tokenHash, hash) || invitation.status === 'revoked') throw unknownInvitation();
  const status = statusOf(invitation, now);
  if (status === 'used') throw new DomainError('invitation_used', 'This invitation has already been accepted.');
  if (status === 'expired') throw new DomainError('invitation_expired', 'This invitation has expired; ask for a new one.');
  return invitation;
}

export async function previewInvitation(em: EntityManager, caller: Caller, token: string): Promise<InvitationPreview> {
  const invitation = await findUsable(em, token, caller.now, false);
  const org = await em.findOneOrFail(OrgEntity, { id: invitation.orgId });
  return { orgName: org.name, role: invitation.role, email: invitation.email };
}

/**
 * In `tx`: `user` joins the invitation's org with its role, the invitation
 * becomes used, and both get their audit row (the joining user is the actor).
 * Shared by invitation accept and by a first magic-link sign-in (pendingInvitations).
 */
export function joinByInvitation(tx: EntityManager, caller: Caller, invitation: Invitation, user: User): void {
  const now = caller.now;
  const actor: Actor = { actorType: 'user', actorId: user.id, actorEmail: user.email, delegatorUserId: null, role: invitation.role };
  const previous = auditValue(invitation, now);
  tx.create(MembershipEntity, { orgId: invitation.orgId, userId: user.id, role: invitation.role, createdAt: now });
  invitation.status = 'used';
  invitation.usedAt = now;
  recordAudit(tx, caller, actor, {
    orgId: invitation.orgId,
    action: 'invitation.accepted',
    resourceType: 'invitation',
    resourceKey: invitation.email,
    resourceId: invitation.id,
    previousValue: previous,
    newValue: auditValue(invitation, now),
  });
  recordAudit(tx, caller, actor, {
    orgId: invitation.orgId,
    action: 'member.added',
    resourceType: 'member',
    resourceKey: user.email,
    resourceId: user.id,
    newValue: { userId: user.id, email: user.email, role: invitation.role, invitationId: invitation.id },
  });
}

/**
 * Accepts an invitation (the token is the credential): creates the user if
 * new, adds the membership, marks the invitation used and starts a session,
 * in one transaction. The invitation row is locked, so of two concurrent
 * accepts one wins and the other gets `invitation_used`.
 */
export async function acceptInvitation(
  em: EntityManager,
  caller: Caller,
  token: string,
  input: { displayName: string },
): Promise<{ session: Session; token: string; expiresAt: Date }> {
  const now = caller.now;
  const result = await retryOnUniqueViolation(() =>
    transaction(em, async (tx) => {
      const invitation = await findUsable(tx, token, now, true);
      let user = await tx.findOne(UserEntity, { email: invitation.email });
      if (user?.deletedAt) throw emailLocked();
      if (user && (await tx.findOne(MembershipEntity, { orgId: invitation.orgId, userId: user.id }))) {
        throw new DomainError('already_member', 'You are already a member of this organization; sign in instead.');
      }
      user ??= tx.create(UserEntity, { email: invitation.email, displayName: input.displayName, createdAt: now, deletedAt: null });
      joinByInvitation(tx, caller, invitation, user);
      return { userId: user.id, ...createSession(tx, user.id, now) };
    }),
  );
  return { session: await sessionBody(em, result.userId), token: result.token, expiresAt: result.expiresAt };
}

/** Pending, unexpired invitations for an address, oldest first. */
const freshInvitations = (em: EntityManager, email: string, now: Date, lock = false) =>
  em.find(
    InvitationEntity,
    { email, status: 'pending', expiresAt: { $gt: now } },
    { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...(lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}) },
  );

/**
 * The sign-in port of features/auth: a new address's first magic link creates
 * the user (display name from the address) and accepts every fresh pending
 * invitation of it, each with its role.
 */
export const pendingInvitations: PendingInvitations = {
  exist: async (em, email, now) => (await freshInvitations(em, email, now)).length > 0,
  async join(tx, caller, email) {
    const invitations = await freshInvitations(tx, email, caller.now, true);
    if (!invitations.length) return null;
    const created = tx.create(UserEntity, { email, displayName: email.split('@')[0]!, createdAt: caller.now, deletedAt: null });
    const joined = new Set<string>();
    for (const invitation of invitations) {
      if (joined.has(invitation.orgId)) continue; // one fresh invitation per org; stay safe anyway
      joined.add(invitation.orgId);
      joinByInvitation(tx, caller, invitation, created);
    }
    return created.id;
  },
};
