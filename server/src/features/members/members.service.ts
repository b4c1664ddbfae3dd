import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Member as MemberDto, Role } from '@gradual/contract';
import { MembershipEntity, OrgEntity, UserEntity, type Membership, type Org, type User } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, type Actor, type Caller } from '../access/authorize.js';
import { revokeKeysMintedBy } from '../api-keys/api-keys.service.js';
import { recordAudit } from '../audit/audit.store.js';
import { findOrgBySlug, isUuid, iso } from '../common/lookup.js';
import { transaction } from '../../db/transaction.js';

/**
 * Role rules (LaunchDarkly-like):
 * - any member lists members;
 * - admins and owners change roles and remove members, and invite;
 * - only an owner grants the owner role, or changes or removes an owner;
 * - anyone may remove themselves (leave), except the last active owner;
 * - the last active owner (a non-deleted user) can be neither demoted nor removed.
 * People management is for signed-in users: API keys get `scope_denied`.
 * API keys act with the authority of the admin who minted them: when that person leaves, is
 * removed, or falls below the admin role, the keys they minted in the org are revoked in the
 * same transaction (revokeKeysMintedBy), and the ids are answered for the key cache.
 */

/** The lowest role that mints API keys (POST /orgs/{slug}/api-keys). */
const MINTS_KEYS: Role = 'admin';
const mintsKeys = (role: Role) => role === MINTS_KEYS || role === 'owner';

/** A membership change, and the API keys it revoked (the route evicts them from the key cache). */
export interface MembershipChange<T> {
  result: T;
  revokedKeyIds: string[];
}

export const toMemberDto = (m: Membership, u: User): MemberDto => ({
  userId: u.id,
  email: u.email,
  displayName: u.displayName,
  role: m.role,
  createdAt: iso(m.createdAt),
});

/**
 * Locks the org row for the rest of the transaction: membership and
 * invitation changes of one org happen one at a time, so the last-owner and
 * pending-invitation checks cannot race. A concurrently deleted org is 404.
 */
export async function lockOrg(tx: EntityManager, orgId: string): Promise<Org> {
  const org = await tx.findOne(OrgEntity, { id: orgId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!org) throw new DomainError('not_found', 'Organization not found.');
  return org;
}

async function activeOwnersOtherThan(tx: EntityManager, orgId: string, userId: string): Promise<number> {
  const owners = await tx.find(MembershipEntity, { orgId, role: 'owner', userId: { $ne: userId } });
  if (!owners.length) return 0;
  return tx.count(UserEntity, { id: { $in: owners.map((o) => o.userId) }, deletedAt: null });
}

const lastOwner = () =>
  new DomainError('last_owner_cannot_demote_or_remove', 'The organization needs at least one owner: make someone else owner first.');

async function findTarget(tx: EntityManager, orgId: string, userId: string): Promise<{ membership: Membership; user: User }> {
  const membership = isUuid(userId) ? await tx.findOne(MembershipEntity, { orgId, userId }) : null;
  const user = membership ? await tx.findOne(UserEntity, { id: userId }) : null;
  if (!membership || !user) throw new DomainError('not_found', 'Member not found.');
  return { membership, user };
}

/** The target is the last active owner and the change would leave none. */
async function wouldLeaveNoOwner(tx: EntityManager, orgId: string, target: { membership: Membership; user: User }): Promise<boolean> {
  if (target.membership.role !== 'owner' || target.user.deletedAt) return false;
  return (await activeOwnersOtherThan(tx, orgId, target.user.id)) === 0;
}

function requireOwnerFor(actor: Actor, what: string): void {
  if (actor.role !== 'owner') throw new DomainError('insufficient_role', `Only an owner can ${what}.`);
}

export async function listMembers(em: EntityManager, caller: Caller, slug: string): Promise<MemberDto[]> {
  const org = await findOrgBySlug(em, slug);
  await authorize(em, caller, org.id, { action: 'read', sessionOnly: true });
  const memberships = await em.find(MembershipEntity, { orgId: org.id });
  const users = memberships.length ? await em.find(UserEntity, { id: { $in: memberships.map((m) => m.userId) } }) : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  return memberships
    .filter((m) => byId.has(m.userId))
    .map((m) => toMemberDto(m, byId.get(m.userId)!))
    .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}

export async function updateMember(em: EntityManager, caller: Caller, slug: string, userId: string, role: Role): Promise<MembershipChange<MemberDto>> {
  const org = await findOrgBySlug(em, slug);
  return transaction(em, async (tx) => {
    await lockOrg(tx, org.id);
    const actor = await authorize(tx, caller, org.id, { action: 'write', role: 'admin', sessionOnly: true });
    const target = await findTarget(tx, org.id, userId);
    const previous = target.membership.role;
    if (previous === role) return { result: toMemberDto(target.membership, target.user), revokedKeyIds: [] };
    if (previous === 'owner' || role === 'owner') requireOwnerFor(actor, previous === 'owner' ? "change an owner's role" : 'grant the owner role');
    if (await wouldLeaveNoOwner(tx, org.id, target)) throw lastOwner();
    target.membership.role = role;
    recordAudit(tx, caller, actor, {
      orgId: org.id,
      action: 'member.role_changed',
      resourceType: 'member',
      resourceKey: target.user.email,
      resourceId: target.user.id,
      previousValue: { userId: target.user.id, email: target.user.email, role: previous },
      newValue: { userId: target.user.id, email: target.user.email, role },
    });
    const revokedKeyIds = mintsKeys(previous) && !mintsKeys(role) ? await revokeKeysMintedBy(tx, caller, actor, org.id, target.user.id) : [];
    return { result: toMemberDto(target.membership, target.user), revokedKeyIds };
  });
}

export async function removeMember(em: EntityManager, caller: Caller, slug: string, userId: string): Promise<MembershipChange<null>> {
  const org = await findOrgBySlug(em, slug);
  const self = caller.principal?.kind === 'user' && caller.principal.userId === userId;
  return transaction(em, async (tx) => {
    await lockOrg(tx, org.id);
    // Leaving needs no role; removing someone else needs admin.
    const actor = await authorize(tx, caller, org.id, { action: 'write', sessionOnly: true, ...(self ? {} : { role: 'admin' as const }) });
    const target = await findTarget(tx, org.id, userId);
    if (target.membership.role === 'owner' && !self) requireOwnerFor(actor, 'remove an owner');
    if (await wouldLeaveNoOwner(tx, org.id, target)) throw lastOwner();
    recordAudit(tx, caller, actor, {
      orgId: org.id,
      action: 'member.removed',
      resourceType: 'member',
      resourceKey: target.user.email,
      resourceId: target.user.id,
      previousValue: { userId: target.user.id, email: target.user.email, role: target.membership.role },
      newValue: null,
    });
    tx.remove(target.membership);
    // Keys minted under any role: a member who minted them as an admin and was demoted since kept none.
    return { result: null, revokedKeyIds: await revokeKeysMintedBy(tx, caller, actor, org.id, target.user.id) };
  });
}
