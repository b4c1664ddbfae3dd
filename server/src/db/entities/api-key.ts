import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, jsonb, timestamp } from './common.js';
import { OrgEntity } from './org.js';

/** `sdk` and `client` keys are bound to one environment (docs/auth.md); `client` keys only evaluate. */
export const API_KEY_KINDS = ['api', 'agent', 'sdk', 'client'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];
export type ApiKeyAction = 'read' | 'write';

export const ApiKeyEntity = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: (p) => ({
    id: id(),
    orgId: p.manyToOne(OrgEntity).mapToPk().fieldName('org_id').deleteRule('cascade').index(),
    name: p.text(),
    kind: p.enum([...API_KEY_KINDS]),
    tokenPrefix: p.text(),
    /** Hex SHA-256 of the token. */
    tokenHash: p.text().unique(),
    actions: jsonb<ApiKeyAction[]>(),
    /** null = every environment */
    environments: jsonb<string[]>().nullable(),
    /** null = every resource */
    resources: jsonb<string[]>().nullable(),
    /** null = any address */
    ipAllowlist: jsonb<string[]>().nullable(),
    rateLimitPerMin: p.integer(),
    expiresAt: timestamp().nullable(),
    requiresApproval: p.boolean(),
    /** Client keys: the web origins allowed to evaluate with it (CORS); null = the server's default. */
    allowedOrigins: jsonb<string[]>().nullable(),
    createdAt: timestamp(),
    createdByUserId: p.uuid().nullable(),
    lastUsedAt: timestamp().nullable(),
    revokedAt: timestamp().nullable(),
  }),
});
export type ApiKey = InferEntity<typeof ApiKeyEntity>;
