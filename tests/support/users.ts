import { MembershipEntity, UserEntity } from '../../server/src/db/entities/index.js';
import type { Database } from '../../server/src/db/database.js';
import { createSession } from '../../server/src/features/auth/session.service.js';

/**
 * Seeds a user (optionally a member of `orgId` with `role`) and a session for
 * them, straight through the persistence layer. Sign-in and invitations have
 * their own HTTP tests; this is only a shortcut for tests that need a second
 * person, e.g. to prove cross-tenant 404s and role checks.
 */
export async function seedUser(db: Database, email: string, membership?: { orgId: string; role: 'owner' | 'admin' | 'member' }) {
  const em = db.em();
  const now = new Date();
  return em.transactional((tx) => {
    const user = tx.create(UserEntity, { email, displayName: email.split('@')[0]!, createdAt: now, deletedAt: null });
    if (membership) tx.create(MembershipEntity, { orgId: membership.orgId, userId: user.id, role: membership.role, createdAt: now });
    const { token } = createSession(tx, user.id, now);
    return { userId: user.id, sessionToken: token };
  });
}
