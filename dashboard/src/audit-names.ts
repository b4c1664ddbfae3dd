/**
 * How the audit views name what happened and who did it. One entry per action the server records
 * (the contract's AuditAction); the type makes a missing entry a compile error, and
 * audit-names.test.ts checks the list against openapi.yaml.
 */
import type { AuditAction, AuditEventSummary } from '@gradual/sdk';

export const AUDIT_ACTION_NAMES: Record<AuditAction, string> = {
  'org.created': 'Organization created',
  'project.created': 'Project created',
  'project.updated': 'Project renamed',
  'project.deleted': 'Project deleted',
  'environment.created': 'Environment created',
  'environment.deleted': 'Environment deleted',
  'member.added': 'Member added',
  'member.role_changed': 'Member role changed',
  'member.removed': 'Member removed',
  'invitation.created': 'Invitation sent',
  'invitation.revoked': 'Invitation revoked',
  'invitation.accepted': 'Invitation accepted',
  'api_token.created': 'API key created',
  'api_token.revoked': 'API key revoked',
  'rollback_secret.created': 'Rollback webhook secret created',
  'rollback_secret.revoked': 'Rollback webhook secret revoked',
  'rollout_plan.created': 'Rollout plan created',
  'guard_metric.created': 'Guard metric defined',
  'guard_metric.deleted': 'Guard metric deleted',
  'rollout_plan.updated': 'Rollout plan changed',
  'rollout_plan.deleted': 'Rollout plan deleted',
  'flag.created': 'Flag created',
  'flag.update_value': 'Flag value changed',
  'flag.update_rules': 'Flag rules changed',
  'flag.updated': 'Flag details changed',
  'flag.archived': 'Flag archived',
  'flag.restored': 'Flag restored',
  'flag.deleted': 'Flag deleted',
  'config.created': 'Config created',
  'config.update_value': 'Config value changed',
  'config.update_rules': 'Config rules changed',
  'config.updated': 'Config details changed',
  'config.archived': 'Config archived',
  'config.restored': 'Config restored',
  'config.deleted': 'Config deleted',
  'segment.created': 'Segment created',
  'segment.updated': 'Segment changed',
  'segment.deleted': 'Segment deleted',
  'segment.target_ids_added': 'Segment IDs added',
  'segment.target_ids_removed': 'Segment IDs removed',
  'segment.target_ids_replaced': 'Segment ID list replaced',
  'webhook.created': 'Webhook subscription created',
  'webhook.updated': 'Webhook subscription changed',
  'webhook.deleted': 'Webhook subscription deleted',
  'rollout.created': 'Rollout started',
  'rollout.updated': 'Rollout changed',
  'rollout.paused': 'Rollout paused',
  'rollout.resumed': 'Rollout resumed',
  'rollout.advanced': 'Rollout advanced a step',
  'rollout.approval_gate_reached': 'Waiting for approval',
  'rollout.approval_resolved': 'Approval given, step entered',
  'rollout.cancelled': 'Rollout cancelled',
  'rollout.completed': 'Rollout completed',
  'rollout.auto_rollback': 'Rolled back by webhook',
  'rollout.rolled_back': 'Rolled back by an operator',
  'rollout.rollback_converged': 'Rollback reached the fleet',
  'rollout.target_ids_added': 'Target IDs added',
  'rollout.target_ids_removed': 'Target IDs removed',
  'rollout.target_ids_replaced': 'Target ID list replaced',
  'proposal.created': 'Change proposed',
  'proposal.applied': 'Proposal applied',
  'proposal.cancelled': 'Proposal cancelled',
  'proposal.expired': 'Proposal expired',
};

/** The readable name of an action; an action this build does not know (a newer server) shows as recorded. */
export function auditActionName(action: string): string {
  return isAuditAction(action) ? AUDIT_ACTION_NAMES[action] : action;
}

const isAuditAction = (action: string): action is AuditAction => Object.hasOwn(AUDIT_ACTION_NAMES, action);

const ACTOR_KINDS: Record<AuditEventSummary['actorType'], string> = {
  user: 'person',
  api_token: 'API key',
  agent_token: 'agent key',
  system: 'scheduler',
  rollback_webhook: 'rollback webhook',
};

/**
 * Who acted, in words: a person by display name (and address), a key or webhook secret by its
 * name with its kind, the scheduler as such. Without a name, the kind and a short id.
 */
export function auditActorName(e: Pick<AuditEventSummary, 'actorType' | 'actorId' | 'actorEmail' | 'actorName'>): string {
  if (e.actorType === 'user') {
    if (e.actorName && e.actorEmail) return `${e.actorName} (${e.actorEmail})`;
    return e.actorName ?? e.actorEmail ?? 'a person';
  }
  if (e.actorType === 'system') return 'scheduler';
  const kind = ACTOR_KINDS[e.actorType];
  if (e.actorName) return `${kind} “${e.actorName}”`;
  return e.actorId ? `${kind} ${e.actorId.slice(0, 8)}` : kind;
}

/** The reason the server records on the audit row of an alert's rollback (a rollback webhook fire). */
export const AUTO_ROLLBACK_REASON = 'rollout:auto_rollback';

/**
 * A row's reason in words. An alert's rollback carries the code `rollout:auto_rollback`, read as
 * the rollback secret that fired (the row's actor) and, when `alertUrl` is given, the alert's link
 * (null: the alert carried none). Any other reason is shown as written.
 */
export function auditReasonText(e: Pick<AuditEventSummary, 'reason' | 'actorType' | 'actorName'>, alertUrl?: string | null): string | null {
  if (e.reason !== AUTO_ROLLBACK_REASON || e.actorType !== 'rollback_webhook') return e.reason;
  const via = `Alert via the rollback secret${e.actorName ? ` “${e.actorName}”` : ''}`;
  if (alertUrl === undefined) return via;
  return alertUrl ? `${via}: ${alertUrl}` : `${via} (the alert carried no link)`;
}

/**
 * The alert's link of an alert's rollback, from its audit row's newValue (the rollout it paused,
 * whose `lastAutoRollback` names the secret and the link): the link, null when the alert carried
 * none, undefined when the value holds no rollback.
 */
export function autoRollbackAlertUrl(newValue: unknown): string | null | undefined {
  if (typeof newValue !== 'object' || newValue === null || !('lastAutoRollback' in newValue)) return undefined;
  const info = newValue.lastAutoRollback;
  if (typeof info !== 'object' || info === null || !('parsedMonitorUrl' in info)) return undefined;
  const url = info.parsedMonitorUrl;
  return typeof url === 'string' ? url : null;
}
