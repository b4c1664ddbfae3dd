import { createClient, isGradualApiError, type GradualClient } from '@gradual/sdk';

/**
 * The one API client of the app. The browser sends the `svc_session` cookie itself (same origin),
 * so no credentials are configured here. Tests replace it with setApi() (a fake fetch).
 */
let client: GradualClient | undefined;
let onSessionEnded: (() => void) | undefined;

/** Called when an API answer says the session is gone (401), e.g. it expired or was signed out elsewhere. */
export function whenSessionEnds(listener: (() => void) | undefined): void {
  onSessionEnded = listener;
}

export function api(): GradualClient {
  client ??= createClient({
    baseUrl: window.location.origin,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (res.status === 401) onSessionEnded?.();
      return res;
    },
  });
  return client;
}

export function setApi(next: GradualClient | undefined): void {
  client = next;
}

/** Request options carrying an optional audit reason as `X-Audit-Reason`. */
export function withReason(reason: string | undefined): { headers?: { 'x-audit-reason': string } } {
  const r = reason?.trim();
  return r ? { headers: { 'x-audit-reason': r } } : {};
}

/** Readable text for the error codes people actually meet in the dashboard. */
const FRIENDLY: Partial<Record<string, string>> = {
  unauthorized: 'Your session has ended. Sign in again.',
  insufficient_role: 'Your role in this organization does not allow this. Ask an admin or owner.',
  not_found: 'Not found. It may have been deleted, or it belongs to another organization.',
  precondition_failed: 'Someone else changed this meanwhile. Reload and try again.',
  rollout_not_paused: 'The rollout is not paused.',
  rollout_already_at_final_step: 'The rollout has no further step to advance to.',
  rollout_seed_locked: 'The seed cannot change once the rollout admits anyone (percent above 0).',
  rollout_plan_in_use: 'A live rollout uses this plan.',
  rollout_plan_key_conflict: 'A plan with this key already exists in the project.',
  quota_exceeded: 'This environment already has the maximum number of live rollback secrets (20).',
  key_in_use: 'A live secret with this name already exists in this environment.',
  last_owner_cannot_demote_or_remove: 'The organization needs at least one owner.',
  already_member: 'This person is already a member.',
  invitation_pending: 'A pending invitation for this address already exists.',
  token_rate_limit: 'Too many requests. Wait a moment and try again.',
  internal: 'Something went wrong on the server.',
};

/** A sentence for any failure: the server's message, made friendlier for well-known codes. */
export function errorMessage(err: unknown): string {
  if (isGradualApiError(err)) {
    if (err.status === 0) return 'The server could not be reached.';
    const friendly = FRIENDLY[err.code];
    if (err.code === 'invalid_request' || err.code === 'rollout_plan_invalid_ramp') return err.message;
    return friendly ?? err.message;
  }
  if (err instanceof TypeError) return 'The server could not be reached.';
  return err instanceof Error ? err.message : String(err);
}

/** The envelope's per-field messages (dotted paths), or an empty object. */
export function fieldErrors(err: unknown): Record<string, string> {
  return isGradualApiError(err) ? (err.fields ?? {}) : {};
}

export function isUnauthorized(err: unknown): boolean {
  return isGradualApiError(err) && err.status === 401;
}
