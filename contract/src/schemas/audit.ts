import { z } from 'zod';
import { RECORDED_KEY_MAX_LENGTH } from '../limits.js';
import { named } from '../openapi-meta.js';
import { Id, JsonValue, Timestamp } from './common.js';

export const ActorType = named(
  'ActorType',
  z.enum(['user', 'api_token', 'agent_token', 'system', 'rollback_webhook']),
);

/**
 * Every action the server records. A flag's and a config's rows share the shapes
 * (`flag.update_value`, `config.update_value`); rollout rows are the state machine's transitions.
 */
export const AUDIT_ACTIONS = [
  'org.created',
  'project.created',
  'project.updated',
  'project.deleted',
  'environment.created',
  'environment.deleted',
  'member.added',
  'member.role_changed',
  'member.removed',
  'invitation.created',
  'invitation.revoked',
  'invitation.accepted',
  'api_token.created',
  'api_token.revoked',
  'rollback_secret.created',
  'rollback_secret.revoked',
  'rollout_plan.created',
  'rollout_plan.updated',
  'rollout_plan.deleted',
  'guard_metric.created',
  'guard_metric.deleted',
  'flag.created',
  'flag.update_value',
  'flag.update_rules',
  'flag.updated',
  'flag.archived',
  'flag.restored',
  'flag.deleted',
  'config.created',
  'config.update_value',
  'config.update_rules',
  'config.updated',
  'config.archived',
  'config.restored',
  'config.deleted',
  'segment.created',
  'segment.updated',
  'segment.deleted',
  'segment.target_ids_added',
  'segment.target_ids_removed',
  'segment.target_ids_replaced',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'rollout.created',
  'rollout.updated',
  'rollout.paused',
  'rollout.resumed',
  'rollout.advanced',
  'rollout.approval_gate_reached',
  'rollout.approval_resolved',
  'rollout.cancelled',
  'rollout.completed',
  'rollout.auto_rollback',
  'rollout.rolled_back',
  'rollout.rollback_converged',
  'rollout.target_ids_added',
  'rollout.target_ids_removed',
  'rollout.target_ids_replaced',
  'proposal.created',
  'proposal.applied',
  'proposal.cancelled',
  'proposal.expired',
] as const;

export const AuditAction = named(
  'AuditAction',
  z.enum(AUDIT_ACTIONS),
  '`rollout.approval_gate_reached`: the scheduler stopped before a step that requires approval (the row\'s reason names the step); the rollout is paused until someone resumes or advances it.',
);
export type AuditAction = z.infer<typeof AuditAction>;

export const AuditEventSummary = named(
  'AuditEventSummary',
  z.object({
    id: Id,
    createdAt: Timestamp,
    actorType: ActorType,
    actorId: z.string().nullable(),
    actorEmail: z.string().optional(),
    /** Resolved when listed: a user's display name, an API key's or rollback secret's name. */
    actorName: z.string().optional(),
    delegatorUserId: Id.nullable(),
    approverUserId: Id.nullable(),
    resourceType: z.string(),
    resourceKey: z.string().nullable(),
    resourceId: z.string().nullable(),
    envId: Id.nullable(),
    action: AuditAction,
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
  /**
   * With `envId`: also the rows of the environment's project that name no environment (a flag's or
   * config's creation, details, archive and restore), as a flag's history in one environment shows.
   */
  includeProjectRows: z.enum(['true', 'false']).optional(),
  actorId: z.string().uuid().optional(),
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const AuditEventPage = named(
  'AuditEventPage',
  z.object({ events: z.array(AuditEventSummary), nextCursor: z.string().nullable() }),
);
