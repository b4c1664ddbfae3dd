import type { EntityManager } from '@mikro-orm/postgresql';
import { AUDIT_ACTIONS, type AuditAction } from '@gradual/contract';
import { ApiKeyEntity, AuditEventEntity, EnvironmentEntity, RollbackSecretEntity, UserEntity, type AuditEvent } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, tokenScope, type Caller } from '../access/authorize.js';
import { findOrgBySlug, isUuid, iso } from '../common/lookup.js';
import { auditRowInScope, listAudit, type AuditFilter } from './audit.store.js';

export const DEFAULT_AUDIT_LIMIT = 50;

/** Actor ids to names: users by display name, API and agent keys and rollback secrets by their names. */
type ActorNames = Map<string, string>;

/**
 * The names of a page's actors, read when listed (a lookup per kind of actor at most), so a row shows the
 * name its actor has now; a deleted user or a revoked key or secret keeps its name.
 */
async function actorNames(em: EntityManager, orgId: string, events: readonly AuditEvent[]): Promise<ActorNames> {
  const ids = (types: readonly string[]) => [...new Set(events.filter((e) => e.actorId && types.includes(e.actorType)).map((e) => e.actorId!))];
  const userIds = ids(['user']);
  const keyIds = ids(['api_token', 'agent_token']);
  const secretIds = ids(['rollback_webhook']);
  const users = userIds.length ? await em.find(UserEntity, { id: { $in: userIds } }) : [];
  const keys = keyIds.length ? await em.find(ApiKeyEntity, { id: { $in: keyIds }, orgId }) : [];
  const secrets = secretIds.length ? await em.find(RollbackSecretEntity, { id: { $in: secretIds }, orgId }) : [];
  const names: ActorNames = new Map();
  for (const u of users) if (u.displayName) names.set(u.id, u.displayName);
  for (const k of keys) names.set(k.id, k.name);
  for (const s of secrets) names.set(s.id, s.name);
  return names;
}

const isAuditAction = (action: string): action is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(action);

/** Rows are written with AuditEntry's typed action only; another value in the table is a defect. */
function auditAction(action: string): AuditAction {
  if (!isAuditAction(action)) throw new Error(`Audit row with an action the contract does not list: ${action}`);
  return action;
}

function toSummary(e: AuditEvent, names: ActorNames) {
  const actorName = e.actorId ? names.get(e.actorId) : undefined;
  return {
    id: e.id,
    createdAt: iso(e.createdAt),
    actorType: e.actorType as 'user' | 'api_token' | 'agent_token' | 'system' | 'rollback_webhook',
    actorId: e.actorId ?? null,
    ...(e.actorEmail ? { actorEmail: e.actorEmail } : {}),
    ...(actorName ? { actorName } : {}),
    delegatorUserId: e.delegatorUserId ?? null,
    approverUserId: e.approverUserId ?? null,
    resourceType: e.resourceType,
    resourceKey: e.resourceKey ?? null,
    resourceId: e.resourceId ?? null,
    envId: e.envId ?? null,
    action: auditAction(e.action),
    version: e.version ?? null,
    reason: e.reason ?? null,
  };
}

type AuditListFilter = Omit<AuditFilter, 'limit' | 'scope' | 'projectRowsOf'> & { limit?: number | undefined; includeProjectRows?: 'true' | 'false' | undefined };

/**
 * An API key restricted to environments or resources lists only the rows inside them
 * (auditRowInScope). `includeProjectRows` widens `envId` to the rows of no environment of the
 * environment's project (none when the environment is not the organization's).
 */
export async function listAuditEvents(em: EntityManager, caller: Caller, slug: string, query: AuditListFilter) {
  const { includeProjectRows, ...filter } = query;
  if (includeProjectRows === 'true' && !filter.envId) {
    throw new DomainError('invalid_request', 'includeProjectRows widens envId; give envId too.', { fields: { includeProjectRows: 'requires envId' } });
  }
  const org = await findOrgBySlug(em, slug);
  await authorize(em, caller, org.id, { action: 'read' });
  const env = includeProjectRows === 'true' && filter.envId && isUuid(filter.envId) ? await em.findOne(EnvironmentEntity, { id: filter.envId, orgId: org.id }) : null;
  const page = await listAudit(em, org.id, { ...filter, ...(env ? { projectRowsOf: env.projectId } : {}), limit: filter.limit ?? DEFAULT_AUDIT_LIMIT, scope: tokenScope(caller) });
  const names = await actorNames(em, org.id, page.events);
  return { events: page.events.map((e) => toSummary(e, names)), nextCursor: page.nextCursor };
}

/** A row outside a restricted API key's scope is 404, like a row that does not exist. */
export async function getAuditEvent(em: EntityManager, caller: Caller, id: string) {
  const event = isUuid(id) ? await em.findOne(AuditEventEntity, { id }) : null;
  if (!event) throw new DomainError('not_found', 'Audit event not found.');
  await authorize(em, caller, event.orgId, { action: 'read' });
  if (!auditRowInScope(tokenScope(caller), event)) throw new DomainError('not_found', 'Audit event not found.');
  return { ...toSummary(event, await actorNames(em, event.orgId, [event])), previousValue: event.previousValue, newValue: event.newValue, diff: event.diff };
}
