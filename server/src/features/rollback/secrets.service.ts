import type { EntityManager } from '@mikro-orm/postgresql';
import { RollbackSecretEntity, type RollbackSecret } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { generateToken, hashToken } from '../../domain/secrets.js';
import { authorize, type Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { findEnvironment, isUuid, iso, mapUniqueViolation } from '../common/lookup.js';
import { transaction } from '../../db/transaction.js';

export const MAX_LIVE_SECRETS_PER_ENV = 20;
export const ROLLBACK_TOKEN_PREFIX = 'svcrb_';
const TOKEN_PREFIX_LENGTH = 10; // "svcrb_" + 4 characters

export const toSecretDto = (s: RollbackSecret) => ({
  id: s.id,
  name: s.name,
  tokenPrefix: s.tokenPrefix,
  createdAt: iso(s.createdAt),
  lastFiredAt: s.lastFiredAt ? iso(s.lastFiredAt) : null,
  revokedAt: s.revokedAt ? iso(s.revokedAt) : null,
});

const nameInUse = (name: string) =>
  new DomainError('key_in_use', `A live rollback secret named "${name}" already exists in this environment.`, { fields: { name: 'already in use' } });

export async function mintRollbackSecret(em: EntityManager, caller: Caller, envId: string, name: string) {
  const env = await findEnvironment(em, envId);
  const actor = await authorize(em, caller, env.orgId, { action: 'write', role: 'admin', sessionOnly: true, envId: env.id });
  const token = generateToken(ROLLBACK_TOKEN_PREFIX);
  const now = caller.now;
  const secret = await mapUniqueViolation(
    () =>
      transaction(em, async (tx) => {
        const live = await tx.find(RollbackSecretEntity, { envId: env.id, revokedAt: null });
        if (live.some((s) => s.name === name)) throw nameInUse(name);
        if (live.length >= MAX_LIVE_SECRETS_PER_ENV) {
          throw new DomainError('quota_exceeded', `An environment can have at most ${MAX_LIVE_SECRETS_PER_ENV} live rollback secrets.`, {
            details: { dimension: 'rollback_webhook_secrets_per_env', limit: MAX_LIVE_SECRETS_PER_ENV },
          });
        }
        const secret = tx.create(RollbackSecretEntity, {
          orgId: env.orgId,
          envId: env.id,
          name,
          tokenPrefix: token.slice(0, TOKEN_PREFIX_LENGTH),
          tokenHash: hashToken(token),
          createdAt: now,
          createdByUserId: actor.actorId,
          lastFiredAt: null,
          revokedAt: null,
        });
        recordAudit(tx, caller, actor, {
          orgId: env.orgId,
          projectId: env.projectId,
          envId: env.id,
          action: 'rollback_secret.created',
          resourceType: 'rollback_secret',
          resourceKey: name,
          resourceId: secret.id,
          newValue: toSecretDto(secret),
        });
        return secret;
      }),
    () => nameInUse(name),
  );
  return { ...toSecretDto(secret), token, warning: 'This token is shown only once. Store it in your alerting tool now: Gradual keeps only its hash.' };
}

export async function listRollbackSecrets(em: EntityManager, caller: Caller, envId: string) {
  const env = await findEnvironment(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id });
  const secrets = await em.find(RollbackSecretEntity, { envId: env.id }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  return secrets.map(toSecretDto);
}

/** Idempotent: revoking a revoked secret succeeds and changes nothing. */
export async function revokeRollbackSecret(em: EntityManager, caller: Caller, envId: string, id: string): Promise<void> {
  const env = await findEnvironment(em, envId);
  const actor = await authorize(em, caller, env.orgId, { action: 'write', role: 'admin', sessionOnly: true, envId: env.id });
  await transaction(em, async (tx) => {
    const secret = isUuid(id) ? await tx.findOne(RollbackSecretEntity, { id, envId: env.id }) : null;
    if (!secret) throw new DomainError('not_found', 'Rollback secret not found.');
    if (secret.revokedAt) return;
    const before = toSecretDto(secret);
    secret.revokedAt = caller.now;
    recordAudit(tx, caller, actor, {
      orgId: env.orgId,
      projectId: env.projectId,
      envId: env.id,
      action: 'rollback_secret.revoked',
      resourceType: 'rollback_secret',
      resourceKey: secret.name,
      resourceId: secret.id,
      previousValue: before,
      newValue: toSecretDto(secret),
    });
  });
}
