import { z } from 'zod';
import { RECORDED_KEY_MAX_LENGTH } from '../limits.js';
import { named } from '../openapi-meta.js';
import { Id, JsonValue, Timestamp } from './common.js';

export const ActorType = named(
  'ActorType',
  z.enum(['user', 'api_token', 'agent_token', 'system', 'rollback_webhook']),
);

export const AuditEventSummary = named(
  'AuditEventSummary',
  z.object({
    id: Id,
    createdAt: Timestamp,
    actorType: ActorType,
    actorId: z.string().nullable(),
    actorEmail: z.string().optional(),
    delegatorUserId: Id.nullable(),
    approverUserId: Id.nullable(),
    resourceType: z.string(),
    resourceKey: z.string().nullable(),
    resourceId: z.string().nullable(),
    envId: Id.nullable(),
    action: z.string(),
    version: z.number().int().nullable(),
    reason: z.string().nullable(),
  }),
);

export const AuditEventDetail = named(
  'AuditEventDetail',
  AuditEventSummary.extend({
    previousValue: JsonValue,
    newValue: JsonValue,
    diff: JsonValue,
  }),
  '`diff` is an RFC 6902 JSON Patch from `previousValue` to `newValue`.',
);

export const AuditListQuery = z.object({
  resourceType: z.string().max(64).optional(),
  resourceKey: z.string().max(RECORDED_KEY_MAX_LENGTH).optional(),
  envId: Id.optional(),
  actorId: z.string().uuid().optional(),
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const AuditEventPage = named(
  'AuditEventPage',
  z.object({ events: z.array(AuditEventSummary), nextCursor: z.string().nullable() }),
);
