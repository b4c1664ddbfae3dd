import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKey as ApiKeyDto } from '@gradual/contract';
import ipaddr from 'ipaddr.js';
import { ApiKeyEntity, EnvironmentEntity, OrgEntity, type ApiKey } from '../../db/entities/index.js';
import type { ApiKeyKind } from '../../db/entities/api-key.js';
import { DomainError, invalid } from '../../domain/errors.js';
import { generateToken, hashToken } from '../../domain/secrets.js';
import { authorize, type Actor, type Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { findOrgBySlug, isUuid, iso } from '../common/lookup.js';
import { transaction } from '../../db/transaction.js';

export const DEFAULT_RATE_LIMIT_PER_MIN = 600;
/**
 * A client key's default: the cap of every visitor together (each client address has its own,
 * much smaller bucket: CLIENT_KEY_RATE_LIMIT_PER_IP_PER_MIN), so one visitor cannot use it up.
 */
export const DEFAULT_CLIENT_KEY_RATE_LIMIT_PER_MIN = 30_000;
const TOKEN_PREFIX_LENGTH = 8; // "svc_" + 4 characters: enough to recognise a key in a list
/** A token's prefix by the key's kind: `sdk_` and `pub_` (client) say what the key may do at a glance. */
const TOKEN_PREFIXES: Record<ApiKeyKind, string> = { api: 'svc_', agent: 'svc_', sdk: 'sdk_', client: 'pub_' };

export const toApiKeyDto = (k: ApiKey): ApiKeyDto => ({
  id: k.id,
  name: k.name,
  kind: k.kind,
  tokenPrefix: k.tokenPrefix,
  actions: k.actions,
  environments: k.environments ?? null,
  resources: k.resources ?? null,
  ipAllowlist: k.ipAllowlist ?? null,
  rateLimitPerMin: k.rateLimitPerMin,
  expiresAt: k.expiresAt ? iso(k.expiresAt) : null,
  requiresApproval: k.requiresApproval,
  allowedOrigins: k.allowedOrigins ?? null,
  createdAt: iso(k.createdAt),
  createdByUserId: k.createdByUserId ?? null,
  lastUsedAt: k.lastUsedAt ? iso(k.lastUsedAt) : null,
  revokedAt: k.revokedAt ? iso(k.revokedAt) : null,
});

/** An API key as it describes itself (`GET /auth/whoami`): the key without its token, and its organization. */
export async function describeApiKey(em: EntityManager, key: ApiKey) {
  const org = await em.findOneOrFail(OrgEntity, { id: key.orgId });
  return { apiKey: toApiKeyDto(key), organization: { id: org.id, slug: org.slug, name: org.name } };
}

export interface MintInput {
  name: string;
  kind?: ApiKeyKind | undefined;
  actions?: Array<'read' | 'write'> | undefined;
  environments?: string[] | undefined;
  resources?: string[] | undefined;
  ipAllowlist?: string[] | undefined;
  rateLimitPerMin?: number | undefined;
  ttlSeconds?: number | undefined;
  requiresApproval?: boolean | undefined;
  allowedOrigins?: string[] | undefined;
}

/** An origin as browsers send it in the Origin header: lowercase, without a trailing slash. */
export function normalizeOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

/**
 * The restrictions of the environment-bound kinds (docs/auth.md): `sdk` and `client` keys name
 * exactly one environment, take only the read action and never wait for approval; only `client`
 * keys take `allowedOrigins`. Answers the key's actions.
 */
function checkKind(kind: ApiKeyKind, input: MintInput): Array<'read' | 'write'> {
  const bound = kind === 'sdk' || kind === 'client';
  if (input.allowedOrigins !== undefined && kind !== 'client') throw invalid({ allowedOrigins: 'only client keys take allowed origins' });
  if (!bound) return [...new Set(input.actions ?? (['read', 'write'] as const))].sort();
  const environments = input.environments ? new Set(input.environments) : null;
  if (!environments || environments.size !== 1) throw invalid({ environments: `${kind} keys are bound to exactly one environment` });
  if (input.actions && input.actions.some((a) => a !== 'read')) throw invalid({ actions: `${kind} keys take only the read action` });
  if (input.requiresApproval) throw invalid({ requiresApproval: `${kind} keys only read; they cannot require approval` });
  return ['read'];
}

function checkCidrs(list: string[]): void {
  const fields: Record<string, string> = {};
  list.forEach((entry, i) => {
    try {
      if (entry.includes('/')) ipaddr.parseCIDR(entry);
      else ipaddr.parse(entry);
    } catch {
      fields[`ipAllowlist.${i}`] = 'not a valid IP address or CIDR block';
    }
  });
  if (Object.keys(fields).length) throw invalid(fields);
}

export async function mintApiKey(em: EntityManager, caller: Caller, slug: string, input: MintInput) {
  const org = await findOrgBySlug(em, slug);
  const actor = await authorize(em, caller, org.id, { action: 'write', role: 'admin', sessionOnly: true });
  const kind = input.kind ?? 'api';
  const actions = checkKind(kind, input);
  if (input.ipAllowlist) checkCidrs(input.ipAllowlist);
  const environments = input.environments ? [...new Set(input.environments)] : null;
  if (environments?.length) {
    const known = await em.find(EnvironmentEntity, { id: { $in: environments.filter(isUuid) }, orgId: org.id });
    const unknown = environments.findIndex((id) => !known.some((e) => e.id === id));
    if (unknown >= 0) throw invalid({ [`environments.${unknown}`]: 'no such environment in this organization' });
  }
  const token = generateToken(TOKEN_PREFIXES[kind]);
  const now = caller.now;
  const key = await transaction(em, (tx) => {
    const key = tx.create(ApiKeyEntity, {
      orgId: org.id,
      name: input.name,
      kind,
      tokenPrefix: token.slice(0, TOKEN_PREFIX_LENGTH),
      tokenHash: hashToken(token),
      actions,
      environments,
      resources: input.resources ? [...new Set(input.resources)] : null,
      ipAllowlist: input.ipAllowlist ?? null,
      rateLimitPerMin: input.rateLimitPerMin ?? (kind === 'client' ? DEFAULT_CLIENT_KEY_RATE_LIMIT_PER_MIN : DEFAULT_RATE_LIMIT_PER_MIN),
      expiresAt: input.ttlSeconds ? new Date(now.getTime() + input.ttlSeconds * 1000) : null,
      requiresApproval: input.requiresApproval ?? false,
      allowedOrigins: input.allowedOrigins ? [...new Set(input.allowedOrigins.map(normalizeOrigin))] : null,
      createdAt: now,
      createdByUserId: actor.actorId,
      lastUsedAt: null,
      revokedAt: null,
    });
    recordAudit(tx, caller, actor, {
      orgId: org.id,
      action: 'api_token.created',
      resourceType: 'api_token',
      resourceKey: key.name,
      resourceId: key.id,
      newValue: toApiKeyDto(key),
    });
    return key;
  });
  return {
    ...toApiKeyDto(key),
    token,
    warning: 'This token is shown only once. Store it now: Gradual keeps only its hash.',
  };
}

export async function listApiKeys(em: EntityManager, caller: Caller, slug: string) {
  const org = await findOrgBySlug(em, slug);
  await authorize(em, caller, org.id, { action: 'read', role: 'admin', sessionOnly: true });
  const keys = await em.find(ApiKeyEntity, { orgId: org.id }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  return keys.map(toApiKeyDto);
}

/** Idempotent: revoking a revoked key changes nothing and still succeeds. */
export async function revokeApiKey(em: EntityManager, caller: Caller, slug: string, id: string): Promise<void> {
  const org = await findOrgBySlug(em, slug);
  const actor = await authorize(em, caller, org.id, { action: 'write', role: 'admin', sessionOnly: true });
  await transaction(em, async (tx) => {
    const key = isUuid(id) ? await tx.findOne(ApiKeyEntity, { id, orgId: org.id }) : null;
    if (!key) throw new DomainError('not_found', 'API key not found.');
    if (key.revokedAt) return;
    revoke(tx, caller, actor, key);
  });
}

/** Marks a live key revoked, with its audit row, in the caller's transaction. */
function revoke(tx: EntityManager, caller: Caller, actor: Actor, key: ApiKey): void {
  const before = toApiKeyDto(key);
  key.revokedAt = caller.now;
  recordAudit(tx, caller, actor, {
    orgId: key.orgId,
    action: 'api_token.revoked',
    resourceType: 'api_token',
    resourceKey: key.name,
    resourceId: key.id,
    previousValue: before,
    newValue: toApiKeyDto(key),
  });
}

/**
 * Revokes, in the caller's transaction, the live keys that `userId` minted in the org: a person
 * who leaves the organization, is removed or loses the role that mints keys takes the authority
 * of those keys along. One `api_token.revoked` audit row per key, by the caller's actor. Answers
 * the revoked keys' ids: after the commit the route evicts them from this instance's key cache,
 * which ends every answer remembered for them (http/answer-cache.ts keyAdmission) at once.
 */
export async function revokeKeysMintedBy(tx: EntityManager, caller: Caller, actor: Actor, orgId: string, userId: string): Promise<string[]> {
  const keys = await tx.find(ApiKeyEntity, { orgId, createdByUserId: userId, revokedAt: null }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  for (const key of keys) revoke(tx, caller, actor, key);
  return keys.map((k) => k.id);
}
