import type { EntityManager } from '@mikro-orm/postgresql';
import type { Session } from '@gradual/contract';
import { MembershipEntity, OrgEntity, UserEntity } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { recordAudit } from '../audit/audit.store.js';
import type { Actor, Caller } from '../access/authorize.js';
import { createSession, sessionBody } from './session.service.js';
import { transaction } from '../../db/transaction.js';

/** Serializes concurrent claims: only one can see zero orgs and create the first. */
const INSTALL_CLAIM_LOCK = 0x67726164; // "grad"

export async function isClaimed(em: EntityManager): Promise<boolean> {
  return (await em.count(OrgEntity, {})) > 0;
}

export interface ClaimInput {
  email: string;
  displayName: string;
  orgName: string;
  orgSlug: string;
}

/** First-install claim: user, org, owner membership and session in one transaction. */
export async function claimInstall(em: EntityManager, caller: Caller, input: ClaimInput): Promise<{ session: Session; token: string; expiresAt: Date }> {
  const now = caller.now;
  const email = input.email.toLowerCase();
  const result = await transaction(em, async (tx) => {
    // tx.execute (not getConnection().execute) runs on the transaction's own connection.
    await tx.execute(`select pg_advisory_xact_lock(${INSTALL_CLAIM_LOCK})`);
    if (await isClaimed(tx)) throw new DomainError('already_claimed', 'This instance has already been claimed.');
    const user =
      (await tx.findOne(UserEntity, { email })) ??
      tx.create(UserEntity, { email, displayName: input.displayName, createdAt: now, deletedAt: null });
    const org = tx.create(OrgEntity, { slug: input.orgSlug, name: input.orgName, createdAt: now, updatedAt: now });
    tx.create(MembershipEntity, { orgId: org.id, userId: user.id, role: 'owner', createdAt: now });
    const actor: Actor = { actorType: 'user', actorId: user.id, actorEmail: email, delegatorUserId: null, role: 'owner' };
    recordAudit(tx, caller, actor, {
      orgId: org.id,
      action: 'org.created',
      resourceType: 'org',
      resourceKey: org.slug,
      resourceId: org.id,
      newValue: { slug: org.slug, name: org.name, via: 'install-claim' },
    });
    recordAudit(tx, caller, actor, {
      orgId: org.id,
      action: 'member.added',
      resourceType: 'member',
      resourceKey: email,
      resourceId: user.id,
      newValue: { userId: user.id, email, role: 'owner' },
    });
    const session = createSession(tx, user.id, now);
    return { userId: user.id, ...session };
  });
  return { session: await sessionBody(em, result.userId), token: result.token, expiresAt: result.expiresAt };
}
