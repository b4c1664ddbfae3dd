import type { EntityManager } from '@mikro-orm/postgresql';
import fastJsonPatch from 'fast-json-patch';
import { v7 as uuidv7 } from 'uuid';
import type { AuditAction } from '@gradual/contract';
import { AuditEventEntity, type AuditEvent, type JsonPatch, type JsonValue } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { globMatches } from '../../domain/resource-glob.js';
import { scopeConditions, type Actor, type Caller, type TokenScope } from '../access/authorize.js';

export interface AuditEntry {
  orgId: string;
  projectId?: string | null;
  envId?: string | null;
  action: AuditAction;
  resourceType: string;
  resourceKey?: string | null;
  resourceId?: string | null;
  /** The environment version this change produced (env-scoped changes only). */
  version?: number | null;
  previousValue?: unknown;
  newValue?: unknown;
}

/** RFC 6902 patch from previous to new; scalars and type changes become one root replace. */
export function jsonDiff(previous: unknown, next: unknown): JsonPatch {
  const isContainer = (v: unknown) => v !== null && typeof v === 'object';
  if (previous === undefined || previous === null) return next == null ? [] : [{ op: 'add', path: '', value: next }];
  if (isContainer(previous) && isContainer(next) && Array.isArray(previous) === Array.isArray(next)) {
    return fastJsonPatch.compare(previous, next);
  }
  if (next === undefined || next === null) return [{ op: 'remove', path: '' }];
  return JSON.stringify(previous) === JSON.stringify(next) ? [] : [{ op: 'replace', path: '', value: next }];
}

/**
 * One audit row, built but not written: recordAudit persists it through the unit of work; an
 * environment change writes its rows with its version bump (environments/env-changes.ts). The
 * reason and, when a proposal is being applied, the approver come from the caller.
 */
export function auditRow(caller: Pick<Caller, 'reason' | 'now' | 'approverUserId'>, actor: Actor, entry: AuditEntry): AuditEvent {
  const previousValue = entry.previousValue === undefined ? null : (entry.previousValue as JsonValue);
  const newValue = entry.newValue === undefined ? null : (entry.newValue as JsonValue);
  return {
    // Time-ordered (monotonic within a process), so rows of one transaction, which share
    // createdAt, still list in the order they were written.
    id: uuidv7(),
    orgId: entry.orgId,
    projectId: entry.projectId ?? null,
    envId: entry.envId ?? null,
    createdAt: caller.now,
    actorType: actor.actorType,
    actorId: actor.actorId,
    actorEmail: actor.actorEmail,
    delegatorUserId: actor.delegatorUserId,
    approverUserId: caller.approverUserId ?? null,
    resourceType: entry.resourceType,
    resourceKey: entry.resourceKey ?? null,
    resourceId: entry.resourceId ?? null,
    action: entry.action,
    version: entry.version ?? null,
    reason: caller.reason,
    previousValue,
    newValue,
    diff: jsonDiff(entry.previousValue, entry.newValue),
  };
}

/**
 * Writes one audit row in the caller's transaction (the `em` passed in), so a
 * change and its audit row commit or roll back together.
 */
export function recordAudit(
  em: EntityManager,
  caller: Pick<Caller, 'reason' | 'now' | 'approverUserId'>,
  actor: Actor,
  entry: AuditEntry,
): AuditEvent {
  return em.create(AuditEventEntity, auditRow(caller, actor, entry));
}

export interface AuditFilter {
  resourceType?: string;
  resourceKey?: string;
  envId?: string;
  /** With envId: also the rows of this project that name no environment (a flag's history in one environment). */
  projectRowsOf?: string;
  actorId?: string;
  cursor?: string;
  limit: number;
  /** An API key's restrictions: only rows inside them are listed (auditRowInScope, as a query). */
  scope?: TokenScope | null;
}

/** Resource types whose rows are about one flag or config, keyed by its key. */
export const PRIMITIVE_RESOURCE_TYPES: readonly string[] = ['flag', 'config', 'rollout', 'proposal'];

/**
 * Whether a restricted API key sees this row. A key restricted to environments sees the rows of
 * those environments only: rows of no environment (org and project history: members, keys,
 * projects, plans, definitions) are about more than its environments. A key restricted to
 * resources sees the rows of the flags and configs its globs match, and no others.
 */
export function auditRowInScope(scope: TokenScope | null, row: Pick<AuditEvent, 'envId' | 'resourceType' | 'resourceKey'>): boolean {
  if (!scope) return true;
  if (scope.environments && !(row.envId && scope.environments.includes(row.envId))) return false;
  if (scope.resources) {
    if (!PRIMITIVE_RESOURCE_TYPES.includes(row.resourceType) || row.resourceKey == null) return false;
    if (!scope.resources.some((glob) => globMatches(glob, row.resourceKey!))) return false;
  }
  return true;
}

/** auditRowInScope as query conditions; null when the scope admits no row at all. */
function auditScopeConditions(scope: TokenScope): Array<Record<string, unknown>> | null {
  const conditions = scopeConditions(scope, { envId: 'envId', resourceKey: 'resourceKey' });
  if (conditions && scope.resources) conditions.push({ resourceType: { $in: [...PRIMITIVE_RESOURCE_TYPES] } });
  return conditions;
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso ?? '');
  if (!id || Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/i.test(id)) {
    throw new DomainError('invalid_request', 'The cursor is invalid.', { fields: { cursor: 'invalid cursor' } });
  }
  return { createdAt, id };
}

const encodeCursor = (e: AuditEvent) => Buffer.from(`${e.createdAt.toISOString()}|${e.id}`, 'utf8').toString('base64url');

/**
 * Newest first (created_at desc, id desc); keyset pagination so pages never skip or repeat. A
 * key's scope is part of the query, so pages stay full and cursors stay valid.
 */
export async function listAudit(em: EntityManager, orgId: string, f: AuditFilter) {
  const where: Record<string, unknown> = { orgId };
  if (f.resourceType) where.resourceType = f.resourceType;
  if (f.resourceKey) where.resourceKey = f.resourceKey;
  if (f.envId && !f.projectRowsOf) where.envId = f.envId;
  if (f.actorId) where.actorId = f.actorId;
  const cursor = f.cursor ? decodeCursor(f.cursor) : null;
  const scoped = f.scope ? auditScopeConditions(f.scope) : [];
  if (!scoped) return { events: [], nextCursor: null };
  const and: Array<Record<string, unknown>> = [...scoped];
  if (f.envId && f.projectRowsOf) and.push({ $or: [{ envId: f.envId }, { envId: null, projectId: f.projectRowsOf }] });
  if (cursor) and.push({ $or: [{ createdAt: { $lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { $lt: cursor.id } }] });
  if (and.length) where.$and = and;
  const rows = await em.find(AuditEventEntity, where, {
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    limit: f.limit + 1,
  });
  const page = rows.slice(0, f.limit);
  return { events: page, nextCursor: rows.length > f.limit ? encodeCursor(page[page.length - 1]!) : null };
}
