import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeyEntity, SessionEntity, UserEntity, type ApiKey } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { digestsEqual, hashToken } from '../../domain/secrets.js';
import type { ApiKeyCache } from './api-key-cache.js';

export const SESSION_LIFETIME_MS = 14 * 24 * 3600 * 1000;
/** A session with less than this left is renewed (sliding lifetime). */
export const SESSION_RENEW_BELOW_MS = 7 * 24 * 3600 * 1000;

export interface UserPrincipal {
  kind: 'user';
  userId: string;
  email: string;
  displayName: string;
  sessionId: string;
  sessionToken: string;
  /** The session has less than SESSION_RENEW_BELOW_MS left: renewSession extends it. */
  renewalDue: boolean;
}
export interface TokenPrincipal {
  kind: 'token';
  key: ApiKey;
}
export type Principal = UserPrincipal | TokenPrincipal;

/** What a request presents as credentials: the Authorization header's value and the session cookie's token. */
export interface Credentials {
  authorization?: string | undefined;
  sessionToken?: string | undefined;
}

/**
 * Who is calling; reads only. A bearer token wins over the session cookie (spec rule 1).
 * An invalid, expired or revoked bearer token is 401 even if a cookie is present.
 */
export async function resolvePrincipal(em: EntityManager, credentials: Credentials, now: Date, keys: ApiKeyCache): Promise<Principal | null> {
  const { authorization, sessionToken } = credentials;
  if (authorization !== undefined) return { kind: 'token', key: await resolveApiKey(em, authorization, now, keys) };
  return sessionToken ? resolveSession(em, sessionToken, now) : null;
}

/** Extends a session due for renewal (sliding lifetime) by SESSION_LIFETIME_MS from `now`; answers its new expiry. */
export async function renewSession(em: EntityManager, principal: UserPrincipal, now: Date): Promise<Date> {
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await em.nativeUpdate(SessionEntity, { id: principal.sessionId }, { expiresAt, lastSeenAt: now });
  return expiresAt;
}

/** The SHA-256 of the API key (`svc_…`, `sdk_…` or `pub_…`) in an `Authorization: Bearer …` header; null when it is not one. */
export function bearerKeyHash(authorization: string): string | null {
  const match = /^Bearer\s+((?:svc|sdk|pub)_[A-Za-z0-9]{32})\s*$/.exec(authorization);
  return match ? hashToken(match[1]!) : null;
}

async function resolveApiKey(em: EntityManager, authorization: string, now: Date, keys: ApiKeyCache): Promise<ApiKey> {
  const hash = bearerKeyHash(authorization);
  if (!hash) throw new DomainError('unauthorized', 'The bearer token is malformed or not an API key.');
  const key = keys.get(hash) ?? (await em.findOne(ApiKeyEntity, { tokenHash: hash }));
  if (!key || !digestsEqual(key.tokenHash, hash)) throw new DomainError('unauthorized', 'Unknown API key.');
  keys.remember(key);
  if (key.revokedAt) throw new DomainError('unauthorized', 'This API key has been revoked.');
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) throw new DomainError('unauthorized', 'This API key has expired.');
  return key;
}

async function resolveSession(em: EntityManager, token: string, now: Date): Promise<UserPrincipal | null> {
  if (token.length > 200) return null;
  const hash = hashToken(token);
  const session = await em.findOne(SessionEntity, { tokenHash: hash });
  if (!session || !digestsEqual(session.tokenHash, hash)) return null;
  if (session.expiresAt.getTime() <= now.getTime()) return null;
  const user = await em.findOne(UserEntity, { id: session.userId });
  if (!user || user.deletedAt) return null;
  return {
    kind: 'user',
    userId: user.id,
    email: user.email,
    displayName: user.displayName,
    sessionId: session.id,
    sessionToken: token,
    renewalDue: session.expiresAt.getTime() - now.getTime() < SESSION_RENEW_BELOW_MS,
  };
}
