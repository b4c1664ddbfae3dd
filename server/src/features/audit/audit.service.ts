import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditEventEntity, type AuditEvent } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, tokenScope, type Caller } from '../access/authorize.js';
import { findOrgBySlug, isUuid, iso } from '../common/lookup.js';
import { auditRowInScope, listAudit, type AuditFilter } from './audit.store.js';

export const DEFAULT_AUDIT_LIMIT = 50;

function toSummary(e: AuditEvent) {
  return {
    id: e.id,
    createdAt: iso(e.createdAt),
    actorType: e.actorType as 'user' | 'api_token' | 'agent_token' | 'system' | 'rollback_webhook',
    actorId: e.actorId ?? null,
    ...(e.actorEmail ? { actorEmail: e.actorEmail } : {}),
    delegatorUserId: e.delegatorUserId ?? null,
    approverUserId: e.approverUserId ?? null,
    resourceType: e.resourceType,
    resourceKey: e.resourceKey ?? null,
    resourceId: e.resourceId ?? null,
    envId: e.envId ?? null,
    action: e.action,
    version: e.version ?? null,
    reason: e.reason ?? null,
  };
}

/** An API key restricted to environments or resources lists only the rows inside them (auditRowInScope). */
export async function listAuditEvents(em: EntityManager, caller: Caller, slug: string, filter: Omit<AuditFilter, 'limit' | 'scope'> & { limit?: number | undefined }) {
  const org = await findOrgBySlug(em, slug);
  await authorize(em, caller, org.id, { action: 'read' });
  const page = await listAudit(em, org.id, { ...filter, limit: filter.limit ?? DEFAULT_AUDIT_LIMIT, scope: tokenScope(caller) });
  return { events: page.events.map(toSummary), nextCursor: page.nextCursor };
}

/** A row outside a restricted API key's scope is 404, like a row that does not exist. */
export async function getAuditEvent(em: EntityManager, caller: Caller, id: string) {
  const event = isUuid(id) ? await em.findOne(AuditEventEntity, { id }) : null;
  if (!event) throw new DomainError('not_found', 'Audit event not found.');
  await authorize(em, caller, event.orgId, { action: 'read' });
  if (!auditRowInScope(tokenScope(caller), event)) throw new DomainError('not_found', 'Audit event not found.');
  return { ...toSummary(event), previousValue: event.previousValue, newValue: event.newValue, diff: event.diff };
}
