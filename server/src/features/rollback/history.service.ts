import type { EntityManager } from '@mikro-orm/postgresql';
import { RollbackFireEntity, RollbackSecretEntity, type PrimitiveKind, type RollbackFire } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, scopeConditions, tokenScope, type Caller } from '../access/authorize.js';
import { findEnvironment, isUuid, iso } from '../common/lookup.js';

export const DEFAULT_FIRE_PAGE = 50;

export const toFireDto = (f: RollbackFire) => ({
  id: f.id,
  rolloutId: f.rolloutId ?? null,
  secretId: f.secretId ?? null,
  secretName: f.secretName ?? null,
  primitiveKind: f.primitiveKind,
  primitiveKey: f.primitiveKey,
  outcome: f.outcome,
  sourceIp: f.sourceIp,
  parsedMonitorUrl: f.parsedMonitorUrl ?? null,
  payloadFingerprint: f.payloadFingerprint,
  firedAt: iso(f.firedAt),
});

export type FireScope = { secretId: string } | { primitiveKind: PrimitiveKind; primitiveKey: string } | Record<string, never>;

function decodeCursor(cursor: string): { firedAt: Date; id: string } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const firedAt = new Date(iso ?? '');
  if (!id || !isUuid(id) || Number.isNaN(firedAt.getTime())) {
    throw new DomainError('invalid_request', 'The cursor is invalid.', { fields: { cursor: 'invalid cursor' } });
  }
  return { firedAt, id };
}

/**
 * Fire history of an environment, optionally narrowed to a secret or a primitive; newest first,
 * keyset-paged. An API key restricted to resources reads one primitive's history only when it
 * matches, and the other lists hold just the fires of the primitives it matches (in the query,
 * so pages stay full).
 */
export async function listFires(
  em: EntityManager,
  caller: Caller,
  envId: string,
  scope: FireScope,
  query: { cursor?: string | undefined; limit?: number | undefined },
) {
  const env = await findEnvironment(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id, ...('primitiveKey' in scope ? { resourceKey: scope.primitiveKey } : {}) });
  if ('secretId' in scope) {
    const secret = isUuid(scope.secretId) ? await em.findOne(RollbackSecretEntity, { id: scope.secretId, envId: env.id }) : null;
    if (!secret) throw new DomainError('not_found', 'Rollback secret not found.');
  }
  const limit = query.limit ?? DEFAULT_FIRE_PAGE;
  const where: Record<string, unknown> = { envId: env.id, ...scope };
  const keyScope = tokenScope(caller);
  const and = keyScope ? scopeConditions(keyScope, { resourceKey: 'primitiveKey' }) : [];
  if (!and) return { fires: [] };
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    and.push({ $or: [{ firedAt: { $lt: c.firedAt } }, { firedAt: c.firedAt, id: { $lt: c.id } }] });
  }
  if (and.length) where.$and = and;
  const fires = await em.find(RollbackFireEntity, where, { orderBy: [{ firedAt: 'desc' }, { id: 'desc' }], limit });
  const last = fires[fires.length - 1];
  return {
    fires: fires.map(toFireDto),
    ...(fires.length === limit && last ? { nextCursor: Buffer.from(`${iso(last.firedAt)}|${last.id}`).toString('base64url') } : {}),
  };
}
