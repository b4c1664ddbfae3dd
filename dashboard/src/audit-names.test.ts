import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTION_NAMES, auditActionName, auditActorName, auditReasonText, autoRollbackAlertUrl } from './audit-names';

/** The actions the server may record, as the API states them (openapi.yaml, generated from the contract). */
function documentedActions(): string[] {
  const spec: unknown = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));
  const actions = property(property(property(property(spec, 'components'), 'schemas'), 'AuditAction'), 'enum');
  if (!Array.isArray(actions) || !actions.every((a) => typeof a === 'string')) throw new Error('openapi.yaml has no AuditAction enum');
  return actions;
}

function property(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined;
}

describe('audit action names', () => {
  it('names exactly the actions openapi.yaml lists, each differently and never as the raw code', () => {
    const actions = documentedActions();
    expect(actions.length).toBeGreaterThan(30);
    expect(Object.keys(AUDIT_ACTION_NAMES).sort()).toEqual([...actions].sort());
    const names = Object.values(AUDIT_ACTION_NAMES);
    expect(new Set(names).size).toBe(names.length);
    for (const action of actions) {
      expect(auditActionName(action)).not.toBe(action);
      expect(auditActionName(action)).not.toMatch(/[._]/);
    }
  });

  it('names the approval gate and target-ID edits in words', () => {
    expect(auditActionName('rollout.approval_gate_reached')).toBe('Waiting for approval');
    expect(auditActionName('rollout.target_ids_added')).toBe('Target IDs added');
  });

  it('shows an action unknown to this build as recorded', () => {
    expect(auditActionName('rollout.teleported')).toBe('rollout.teleported');
    expect(auditActionName('toString')).toBe('toString');
  });
});

describe('audit actor names', () => {
  const id = '0198f0c2-7a4b-7c3d-9e8f-0123456789ab';
  it('names people, keys and webhook secrets, falling back to the kind and a short id', () => {
    expect(auditActorName({ actorType: 'user', actorId: id, actorEmail: 'olive@example.com', actorName: 'Olive Owner' })).toBe('Olive Owner (olive@example.com)');
    expect(auditActorName({ actorType: 'user', actorId: id, actorEmail: 'olive@example.com' })).toBe('olive@example.com');
    expect(auditActorName({ actorType: 'api_token', actorId: id, actorName: 'deploy bot' })).toBe('API key “deploy bot”');
    expect(auditActorName({ actorType: 'rollback_webhook', actorId: id, actorName: 'alertmanager' })).toBe('rollback webhook “alertmanager”');
    expect(auditActorName({ actorType: 'rollback_webhook', actorId: id })).toBe('rollback webhook 0198f0c2');
    expect(auditActorName({ actorType: 'system', actorId: null })).toBe('scheduler');
  });
});

describe('audit reasons', () => {
  const alert = { reason: 'rollout:auto_rollback', actorType: 'rollback_webhook', actorName: 'grafana' } as const;
  it('reads an alert rollback in words: the secret that fired and, from the row, the alert’s link', () => {
    expect(auditReasonText(alert)).toBe('Alert via the rollback secret “grafana”');
    expect(auditReasonText(alert, 'https://grafana.example.com/alerting/x')).toBe('Alert via the rollback secret “grafana”: https://grafana.example.com/alerting/x');
    expect(auditReasonText(alert, null)).toBe('Alert via the rollback secret “grafana” (the alert carried no link)');
    expect(auditReasonText({ ...alert, actorName: undefined })).toBe('Alert via the rollback secret');
  });

  it('shows any other reason as written', () => {
    expect(auditReasonText({ reason: 'checking metrics', actorType: 'user', actorName: 'Olive' })).toBe('checking metrics');
    expect(auditReasonText({ reason: 'rollout:auto_rollback', actorType: 'user' })).toBe('rollout:auto_rollback');
    expect(auditReasonText({ reason: null, actorType: 'rollback_webhook' })).toBeNull();
  });

  it('finds the alert’s link in the rolled-back rollout of the row’s newValue', () => {
    expect(autoRollbackAlertUrl({ lastAutoRollback: { secretName: 'grafana', parsedMonitorUrl: 'https://grafana.example.com/alerting/x' } })).toBe('https://grafana.example.com/alerting/x');
    expect(autoRollbackAlertUrl({ lastAutoRollback: { secretName: 'grafana', parsedMonitorUrl: null } })).toBeNull();
    expect(autoRollbackAlertUrl({ lastAutoRollback: null })).toBeUndefined();
    expect(autoRollbackAlertUrl('v2')).toBeUndefined();
  });
});
