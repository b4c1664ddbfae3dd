import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, timestamp } from './common.js';
import { EnvironmentEntity } from './environment.js';
import { PRIMITIVE_KINDS } from './primitive.js';

/** An env-scoped secret that can only fire rollbacks. Only the SHA-256 of the token is stored. */
export const RollbackSecretEntity = defineEntity({
  name: 'RollbackSecret',
  tableName: 'rollback_webhook_secrets',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid(),
    envId: p.manyToOne(EnvironmentEntity).mapToPk().fieldName('env_id').deleteRule('cascade').index(),
    name: p.text(),
    tokenPrefix: p.text(),
    tokenHash: p.text().unique(),
    createdAt: timestamp(),
    createdByUserId: p.uuid().nullable(),
    lastFiredAt: timestamp().nullable(),
    revokedAt: timestamp().nullable(),
  }),
  indexes: [
    {
      name: 'rollback_webhook_secrets_live_name_unique',
      expression:
        'create unique index "rollback_webhook_secrets_live_name_unique" on "rollback_webhook_secrets" ("env_id", "name") where "revoked_at" is null',
    },
  ],
});
export type RollbackSecret = InferEntity<typeof RollbackSecretEntity>;

export const ROLLBACK_OUTCOMES = [
  'transitioned',
  'noop_already_rolled_back',
  'noop_terminal_state',
  'error_unauthorized',
  'error_not_found',
  'error_rate_limited',
  'error_invalid_request',
] as const;
export type RollbackOutcome = (typeof ROLLBACK_OUTCOMES)[number];

/**
 * One record per rollback fire, whatever its outcome. No foreign keys: the
 * history outlives secrets and rollouts, and unauthorized fires name none.
 */
export const RollbackFireEntity = defineEntity({
  name: 'RollbackFire',
  tableName: 'rollback_fires',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid().nullable(),
    envId: p.uuid(),
    rolloutId: p.uuid().nullable(),
    secretId: p.uuid().nullable(),
    secretName: p.text().nullable(),
    primitiveKind: p.enum([...PRIMITIVE_KINDS]),
    primitiveKey: p.text(),
    outcome: p.enum([...ROLLBACK_OUTCOMES]),
    sourceIp: p.text(),
    parsedMonitorUrl: p.text().nullable(),
    payloadFingerprint: p.text(),
    firedAt: timestamp(),
  }),
  indexes: [
    { name: 'rollback_fires_env_index', expression: 'create index "rollback_fires_env_index" on "rollback_fires" ("env_id", "fired_at" desc, "id" desc)' },
    { name: 'rollback_fires_secret_index', expression: 'create index "rollback_fires_secret_index" on "rollback_fires" ("secret_id", "fired_at" desc, "id" desc)' },
    {
      name: 'rollback_fires_primitive_index',
      expression: 'create index "rollback_fires_primitive_index" on "rollback_fires" ("env_id", "primitive_kind", "primitive_key", "fired_at" desc, "id" desc)',
    },
  ],
});
export type RollbackFire = InferEntity<typeof RollbackFireEntity>;
