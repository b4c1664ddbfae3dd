import type { EntityManager } from '@mikro-orm/postgresql';
import type { Session } from '@gradual/contract';
import { MembershipEntity, OrgEntity, SessionEntity, UserEntity } from '../../db/entities/index.js';
import { generateToken, hashToken } from '../../domain/secrets.js';
import { SESSION_LIFETIME_MS } from '../access/principal.js';

/** Creates a session in `tx` and returns the raw cookie token (stored hashed). */
export function createSession(tx: EntityManager, userId: string, now: Date): { token: string; expiresAt: Date } {
  const token = generateToken('', 43);
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  tx.create(SessionEntity, { tokenHash: hashToken(token), userId, expiresAt, createdAt: now, lastSeenAt: now });
  return { token, expiresAt };
}

/** The session body (docs/auth.md): the user and their organizations with roles. */
export async function sessionBody(em: EntityManager, userId: string): Promise<Session> {
  const user = await em.findOneOrFail(UserEntity, { id: userId });
  const memberships = await em.find(MembershipEntity, { userId });
  const orgs = memberships.length
    ? await em.find(OrgEntity, { id: { $in: memberships.map((m) => m.orgId) } }, { orderBy: { name: 'asc' } })
    : [];
  const roleOf = new Map(memberships.map((m) => [m.orgId, m.role]));
  return {
    user: { id: user.id, email: user.email, displayName: user.displayName },
    organizations: orgs.map((o) => ({ id: o.id, slug: o.slug, name: o.name, role: roleOf.get(o.id)! })),
  };
}

export async function deleteSession(em: EntityManager, token: string): Promise<void> {
  await em.nativeDelete(SessionEntity, { tokenHash: hashToken(token) });
}
