import { z } from 'zod';
import { named } from './openapi-meta.js';

/**
 * The one catalog of error codes and their HTTP statuses (spec "Code catalog").
 * The server maps domain errors through it and the SDK types `code` from it,
 * so adding a code here is the only step needed to make it exist everywhere.
 * Redirect-only codes (magic links) carry 303: they never appear in an envelope.
 */
export const errorCatalog = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  precondition_failed: 412,
  internal: 500,
  ruleset_not_cached: 503,
  magic_link_invalid: 303,
  magic_link_used: 303,
  magic_link_already_used: 303,
  magic_link_expired: 303,
  no_invitation: 303,
  already_claimed: 409,
  slug_unavailable: 409,
  insufficient_role: 403,
  scope_denied: 403,
  token_action_denied: 403,
  token_env_out_of_scope: 403,
  token_resource_out_of_scope: 403,
  token_ip_denied: 403,
  token_rate_limit: 429,
  approval_not_supported: 403,
  last_owner_cannot_demote_or_remove: 409,
  already_member: 409,
  invitation_pending: 409,
  invitation_used: 410,
  invitation_expired: 410,
  invitation_email_locked: 410,
  in_use: 409,
  /** Not in the spec's catalog: a segment reference would close a cycle (`details.cycle`). */
  segment_cycle: 409,
  /** Not in the spec's catalog: a segment reference would nest segments deeper than SEGMENT_NESTING_MAX (`details.chain`). */
  segment_nesting_too_deep: 409,
  /** Not in the spec's catalog: the flag or config is archived (restore it first). */
  primitive_archived: 409,
  /** Not in the spec's catalog: only an archived flag or config can be deleted. */
  primitive_not_archived: 409,
  /** Not in the spec's catalog: a declared variant that a value, rule or live rollout uses cannot be renamed, changed or removed (`details.variants`). */
  variant_in_use: 409,
  /** Not in the spec's catalog: a flag's or config's type and default value are set when it is created (`fields` names them). */
  definition_fixed: 409,
  version_drift: 409,
  proposal_gone: 410,
  invalid_confirmation: 400,
  rollout_seed_locked: 400,
  rollout_not_paused: 409,
  rollout_already_at_final_step: 409,
  /** A manual rollback of a rollout that is not live, or already rolled back. */
  rollout_nothing_to_roll_back: 409,
  rollout_plan_key_conflict: 409,
  rollout_plan_in_use: 409,
  rollout_plan_invalid_ramp: 400,
  guard_metric_key_conflict: 409,
  guard_metric_in_use: 409,
  rollback_unauthorized: 401,
  rollback_rollout_not_found: 404,
  rollback_rate_limited: 429,
  quota_exceeded: 403,
  /** Also used when a project, environment, flag or config key is taken (`fields.key`). */
  key_in_use: 409,
  /** Not in the spec's catalog: the database is unreachable (retryable). */
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalog;
export type ErrorStatus = (typeof errorCatalog)[ErrorCode];
export const errorCodes = Object.keys(errorCatalog) as [ErrorCode, ...ErrorCode[]];

export const ErrorEnvelope = named(
  'ErrorEnvelope',
  z.object({
    code: z.enum(errorCodes),
    message: z.string(),
    fields: z.record(z.string()).optional(),
    details: z.record(z.unknown()).optional(),
    requestId: z.string(),
  }),
  'Every non-2xx response carries this envelope; match on `code`, never on `message`.',
);
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/**
 * Response map entries for the given error statuses, all with the envelope body. Every route also
 * gets 400: whatever its own inputs, a request can be malformed in ways the server refuses before
 * or around the route (an over-long `X-Audit-Reason` or `If-None-Match`, a body that is not JSON,
 * NUL or lone surrogates in text, JSON nested too deep), always as 400 `invalid_request`.
 */
export function errorResponses<S extends number>(...statuses: S[]): Record<S | 400, typeof ErrorEnvelope> {
  const out = {} as Record<S | 400, typeof ErrorEnvelope>;
  for (const status of [400, ...statuses] as Array<S | 400>) out[status] = ErrorEnvelope;
  return out;
}
