import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, jsonb, timestamp, type JsonValue } from './common.js';

/** An RFC 6902 JSON Patch: the change from an audit row's previous value to its new one. */
export type JsonPatch = Array<{ op: string; path: string; value?: unknown; from?: string }>;

/**
 * Append-only audit log. No foreign keys on purpose: rows outlive the projects,
 * environments and users they mention.
 */
export const AuditEventEntity = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid(),
    projectId: p.uuid().nullable(),
    envId: p.uuid().nullable(),
    createdAt: timestamp(),
    actorType: p.text(),
    actorId: p.text().nullable(),
    actorEmail: p.text().nullable(),
    delegatorUserId: p.uuid().nullable(),
    approverUserId: p.uuid().nullable(),
    resourceType: p.text(),
    resourceKey: p.text().nullable(),
    resourceId: p.text().nullable(),
    action: p.text(),
    version: p.integer().nullable(),
    reason: p.text().nullable(),
    previousValue: jsonb<JsonValue>().nullable(),
    newValue: jsonb<JsonValue>().nullable(),
    diff: jsonb<JsonPatch>().nullable(),
  }),
  indexes: [
    // The audit list pages newest first: ORDER BY created_at DESC, id DESC within an org.
    {
      name: 'audit_events_org_id_created_at_id_index',
      expression:
        'create index "audit_events_org_id_created_at_id_index" on "audit_events" ("org_id", "created_at" desc, "id" desc)',
    },
    { properties: ['orgId', 'resourceType'] },
    { properties: ['orgId', 'envId'] },
    { properties: ['orgId', 'actorId'] },
    // The event streams read the rows of one environment version as its write is announced.
    { properties: ['envId', 'version'] },
  ],
});
export type AuditEvent = InferEntity<typeof AuditEventEntity>;
