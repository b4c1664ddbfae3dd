import { helper, type EventSubscriber, type FlushEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { v7 as uuidv7 } from 'uuid';
import type { AuditAction, WebhookEventType } from '@gradual/contract';
import { AuditEventEntity, WebhookDeliveryEntity, type AuditEvent, type JsonValue, type WebhookDelivery } from '../../db/entities/index.js';
import { BoundRows, rawQuery } from '../common/sql.js';

/*
 * The transactional outbox of outbound webhooks. Every audited change can be a webhook event:
 * when its audit row is written, the same transaction inserts one webhook_deliveries row per
 * enabled subscription of the row's project that asked for the event, with the body already
 * rendered in the subscription's format. A change that rolls back leaves no delivery behind, and
 * a committed one always has its deliveries; the webhooks slice's worker sends them later.
 *
 * The three ways audit rows are written all reach this module:
 *   - recordAudit (the unit of work): webhookOutboxSubscriber, before the flush that inserts them;
 *   - an environment change set's statement (environments/env-changes.ts): enqueueWebhookEvents,
 *     after the statement, in its transaction;
 *   - the optimistic rollout write, one statement without a transaction: planWebhookDeliveries
 *     before it, and deliveryInsertStatement as one more part of the same statement.
 */

/** The audit actions that are webhook events, and the event each one is. */
export const WEBHOOK_EVENT_OF_ACTION: Partial<Record<AuditAction, WebhookEventType>> = {
  'rollout.created': 'rollout.created',
  'rollout.advanced': 'rollout.advanced',
  'rollout.paused': 'rollout.paused',
  'rollout.approval_gate_reached': 'rollout.paused',
  'rollout.resumed': 'rollout.resumed',
  'rollout.approval_resolved': 'rollout.resumed',
  'rollout.completed': 'rollout.completed',
  'rollout.cancelled': 'rollout.cancelled',
  'rollout.auto_rollback': 'rollout.rolled_back',
  'rollout.rolled_back': 'rollout.rolled_back',
  'rollout.rollback_converged': 'rollout.rollback_converged',
  'proposal.created': 'proposal.created',
  'proposal.applied': 'proposal.approved',
  'proposal.cancelled': 'proposal.rejected',
  'flag.archived': 'flag.archived',
  'flag.deleted': 'flag.deleted',
  'config.archived': 'config.archived',
  'config.deleted': 'config.deleted',
};

export const webhookEventOf = (action: string): WebhookEventType | undefined => WEBHOOK_EVENT_OF_ACTION[action as AuditAction];

/** The `webhook-id` of a new delivery: `msg_` and a time-ordered UUID, so ids sort in the order deliveries were queued. */
export const newDeliveryId = (): string => `msg_${uuidv7().replaceAll('-', '')}`;

/** What a rendered event says about where it happened (read once per project per write). */
export interface EventPlace {
  orgSlug: string | null;
  projectKey: string | null;
  envKey: string | null;
}

interface SubscriptionTarget {
  id: string;
  url: string;
  name: string;
  format: 'standard' | 'slack';
  events: string[];
}

type JsonObject = { [key: string]: JsonValue };

const asObject = (v: JsonValue | null | undefined): JsonObject | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null);

/**
 * The `standard` body: `{type, timestamp, data}` (docs/webhooks.md). `data.rollout`,
 * `data.proposal`, `data.flag` or `data.config` is the resource after the change (before it for
 * a deletion), as the audit log records it. `data.version` is the environment version the change
 * produced (null when it produced none).
 */
export function renderStandard(type: string, row: AuditEvent, place: EventPlace): JsonObject {
  const resource = row.newValue ?? row.previousValue ?? null;
  const data: JsonObject = {
    orgSlug: place.orgSlug,
    projectId: row.projectId ?? null,
    projectKey: place.projectKey,
    envId: row.envId ?? null,
    envKey: place.envKey,
    resourceType: row.resourceType,
    resourceKey: row.resourceKey ?? null,
    resourceId: row.resourceId ?? null,
    action: row.action,
    actor: {
      type: row.actorType,
      id: row.actorId ?? null,
      ...(row.actorEmail ? { email: row.actorEmail } : {}),
    },
    reason: row.reason ?? null,
    version: row.version ?? null,
    auditEventId: row.id,
  };
  if (row.resourceType === 'rollout' || row.resourceType === 'proposal' || row.resourceType === 'flag' || row.resourceType === 'config') {
    data[row.resourceType] = resource;
  }
  if (type === 'rollout.paused')
    data.pausedReason = asObject(resource)?.pausedReason ?? (row.action === 'rollout.approval_gate_reached' ? 'approval_gate' : 'user');
  // A guarded step's stop (reason guard:<metric>): the check's evidence (docs/guards.md).
  if (guardStopped(row)) data.guardStop = asObject(resource)?.lastGuardStop ?? null;
  // When the fleet served a rollback: the time it took (docs/convergence.md).
  if (type === 'rollout.rollback_converged') data.rollbackConvergence = asObject(resource)?.lastRollbackConvergence ?? null;
  return { type, timestamp: row.createdAt.toISOString(), data };
}

/** The row of a guarded step's automatic stop: its reason is `guard:<metric key>` (or guard:srm, guard:insufficient_data). */
const guardStopped = (row: Pick<AuditEvent, 'actorType' | 'reason'>): boolean => row.actorType === 'system' && (row.reason?.startsWith('guard:') ?? false);

/** Slack's mrkdwn escapes (&, <, >): a key or a reason cannot become a link or a mention. */
const slackEscape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

const percentOf = (rollout: JsonObject | null) => (typeof rollout?.percent === 'number' ? `${rollout.percent}%` : null);

/** The one-line summary a `slack` body leads with, e.g. "Rollout of new-checkout in production advanced to 25%". */
export function summary(type: string, row: AuditEvent, place: EventPlace): string {
  const key = row.resourceKey ?? row.resourceId ?? '?';
  const where = place.envKey ? ` in ${place.envKey}` : place.projectKey ? ` in project ${place.projectKey}` : '';
  const rollout = asObject(row.newValue ?? null);
  const percent = percentOf(rollout);
  const subject = `Rollout of ${key}${where}`;
  switch (type) {
    case 'rollout.created':
      return `${subject} started${percent ? ` at ${percent}` : ''}`;
    case 'rollout.advanced':
      return `${subject} advanced${percent ? ` to ${percent}` : ''}`;
    case 'rollout.paused':
      return row.action === 'rollout.approval_gate_reached'
        ? `${subject} is waiting for approval${percent ? ` at ${percent}` : ''}`
        : `${subject} paused${percent ? ` at ${percent}` : ''}${guardStopped(row) ? ` by its guard (${row.reason!.slice('guard:'.length)})` : ''}`;
    case 'rollout.resumed':
      return `${subject} ${row.action === 'rollout.approval_resolved' ? 'was approved and resumed' : 'resumed'}${percent ? ` at ${percent}` : ''}`;
    case 'rollout.completed':
      return `${subject} completed`;
    case 'rollout.cancelled':
      return `${subject} was cancelled`;
    case 'rollout.rolled_back':
      return `${subject} was rolled back${guardStopped(row) ? ` by its guard (${row.reason!.slice('guard:'.length)})` : row.action === 'rollout.auto_rollback' ? ' by an alert' : ''}`;
    case 'rollout.rollback_converged': {
      const seen = asObject(rollout?.lastRollbackConvergence ?? null);
      const share = typeof seen?.serving === 'number' && typeof seen.instances === 'number' ? `${seen.serving.toLocaleString('en-US')} of ${seen.instances.toLocaleString('en-US')} SDK instances` : 'the SDK instances';
      return `Rollback of ${key}${where} reached ${share}${typeof seen?.convergedMs === 'number' ? ` in ${seen.convergedMs.toLocaleString('en-US')} ms` : ''}`;
    }
    case 'proposal.created':
      return `Proposal for ${key}${where} is waiting for approval`;
    case 'proposal.approved':
      return `Proposal for ${key}${where} was approved and applied`;
    case 'proposal.rejected':
      return `Proposal for ${key}${where} was rejected`;
    case 'flag.archived':
    case 'config.archived':
    case 'flag.deleted':
    case 'config.deleted': {
      const [kind, verb] = type.split('.') as [string, string];
      return `${kind === 'flag' ? 'Flag' : 'Config'} ${key}${place.projectKey ? ` in project ${place.projectKey}` : ''} was ${verb}`;
    }
    default:
      return `${type}: ${key}${where}`;
  }
}

/** Who made the change, for a human. */
function actorLabel(row: Pick<AuditEvent, 'actorType' | 'actorEmail' | 'actorId'>): string {
  if (row.actorEmail) return row.actorEmail;
  switch (row.actorType) {
    case 'system':
      return 'the scheduler';
    case 'rollback_webhook':
      return 'a rollback alert';
    case 'api_token':
    case 'agent_token':
      return `API key ${row.actorId ?? ''}`.trim();
    default:
      return row.actorType;
  }
}

/** The `slack` body: an incoming-webhook message, `{text, blocks}`. */
export function renderSlack(type: string, row: AuditEvent, place: EventPlace): JsonObject {
  const text = summary(type, row, place);
  const context = [
    `${place.orgSlug ?? ''}${place.projectKey ? ` / ${place.projectKey}` : ''}`.trim(),
    `by ${actorLabel(row)}`,
    row.reason ? `reason: ${row.reason}` : null,
  ]
    .filter((part): part is string => !!part)
    .map(slackEscape)
    .join(' · ');
  return {
    text,
    blocks: [
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `*${slackEscape(text)}*` },
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: context }] },
    ],
  };
}

/** The body of the test event (POST …/test), in the subscription's format. */
export function renderTestEvent(
  format: 'standard' | 'slack',
  subscription: { id: string; name: string; projectId: string },
  place: EventPlace,
  now: Date
): JsonObject {
  if (format === 'slack') {
    const text = `Test event from Gradual for the webhook "${subscription.name}"`;
    return {
      text,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: slackEscape(text) } }],
    };
  }
  return {
    type: 'webhook.test',
    timestamp: now.toISOString(),
    data: {
      orgSlug: place.orgSlug,
      projectId: subscription.projectId,
      projectKey: place.projectKey,
      subscriptionId: subscription.id,
      subscriptionName: subscription.name,
    },
  };
}

/** A pending delivery of `payload` to the subscription's current URL, due at `now`. */
export function pendingDelivery(subscription: { id: string; url: string }, eventType: string, payload: JsonValue, now: Date): WebhookDelivery {
  return {
    id: newDeliveryId(),
    subscriptionId: subscription.id,
    url: subscription.url,
    eventType,
    payload,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    lockedUntil: null,
    lastAttemptAt: null,
    responseStatus: null,
    lastError: null,
    createdAt: now,
  };
}

/** A project's enabled subscriptions, its org's slug and key, and the keys of `envIds` (one statement). */
async function subscriptionsOf(em: EntityManager, projectId: string, envIds: string[]) {
  const { rows } = await rawQuery<{
    id: string;
    url: string;
    name: string;
    format: 'standard' | 'slack';
    events: string[];
    org_slug: string;
    project_key: string;
    env_keys: Record<string, string>;
  }>(
    em,
    `select s.id, s.url, s.name, s.format, s.events, o.slug as org_slug, p.key as project_key,
            (select coalesce(jsonb_object_agg(e.id, e.key), '{}'::jsonb) from environments e where e.id = any(?::uuid[])) as env_keys
       from webhook_subscriptions s join projects p on p.id = s.project_id join orgs o on o.id = p.org_id
      where s.project_id = ? and s.enabled`,
    [envIds, projectId]
  );
  return rows;
}

/**
 * The deliveries that audit rows call for: one per row that is an event and per enabled
 * subscription of its project that asked for that event, rendered in the subscription's format.
 * Reads only when a row is an event (one statement per project).
 */
export async function planWebhookDeliveries(em: EntityManager, rows: readonly AuditEvent[]): Promise<WebhookDelivery[]> {
  const byProject = new Map<string, Array<{ row: AuditEvent; type: WebhookEventType }>>();
  for (const row of rows) {
    const type = webhookEventOf(row.action);
    if (!type || !row.projectId) continue;
    const list = byProject.get(row.projectId) ?? [];
    list.push({ row, type });
    byProject.set(row.projectId, list);
  }
  const deliveries: WebhookDelivery[] = [];
  for (const [projectId, events] of byProject) {
    const envIds = [...new Set(events.map((e) => e.row.envId).filter((id): id is string => !!id))];
    const subscriptions: Array<
      SubscriptionTarget & {
        place: Omit<EventPlace, 'envKey'>;
        envKeys: Record<string, string>;
      }
    > = (await subscriptionsOf(em, projectId, envIds)).map((s) => ({
      id: s.id,
      url: s.url,
      name: s.name,
      format: s.format,
      events: s.events,
      place: { orgSlug: s.org_slug, projectKey: s.project_key },
      envKeys: s.env_keys,
    }));
    for (const { row, type } of events) {
      for (const s of subscriptions) {
        if (!s.events.includes(type)) continue;
        const place = {
          ...s.place,
          envKey: row.envId ? s.envKeys[row.envId] ?? null : null,
        };
        const payload = s.format === 'slack' ? renderSlack(type, row, place) : renderStandard(type, row, place);
        deliveries.push(pendingDelivery(s, type, payload, row.createdAt));
      }
    }
  }
  return deliveries;
}

const deliveryRows = (em: EntityManager) => BoundRows.of<WebhookDelivery>(em, WebhookDeliveryEntity.meta.className);

/** Inserts planned deliveries on `em`'s connection (in its transaction when there is one). */
export async function insertWebhookDeliveries(em: EntityManager, deliveries: WebhookDelivery[]): Promise<void> {
  if (!deliveries.length) return;
  const rows = deliveryRows(em);
  await rawQuery(em, rows.insertStatement(), [rows.toJson(deliveries)]);
}

/** The deliveries that `rows` (written in `em`'s transaction) call for, inserted in that transaction. */
export async function enqueueWebhookEvents(em: EntityManager, rows: readonly AuditEvent[]): Promise<void> {
  await insertWebhookDeliveries(em, await planWebhookDeliveries(em, rows));
}

/**
 * The insert of planned deliveries as a data-modifying CTE of a statement that has a `bumped` CTE
 * answering the environment's new `version`: the deliveries go in only when the environment was
 * bumped, and a `standard` body without a version takes it. Binds one parameter (the rows,
 * deliveryInsertParameter).
 */
export function deliveryInsertStatement(em: EntityManager): string {
  return deliveryRows(em).insertStatement({
    expressions: {
      payload: `case when jsonb_typeof(r."payload" #> '{data,version}') = 'null' then jsonb_set(r."payload", '{data,version}', to_jsonb(bumped.version)) else r."payload" end`,
    },
    join: 'join bumped on true',
  });
}

export const deliveryInsertParameter = (em: EntityManager, deliveries: WebhookDelivery[]): string => deliveryRows(em).toJson(deliveries);

/**
 * recordAudit's half of the outbox: before a flush inserts audit rows created through the unit
 * of work, their deliveries join the same flush (and so its transaction). Registered once per
 * ORM (server.ts).
 */
export const webhookOutboxSubscriber: EventSubscriber = {
  async beforeFlush({ em, uow }: FlushEventArgs): Promise<void> {
    const rows = [...uow.getPersistStack()].filter((entity): entity is AuditEvent => helper(entity).__meta.className === AuditEventEntity.meta.className);
    if (!rows.some((row) => webhookEventOf(row.action))) return;
    for (const delivery of await planWebhookDeliveries(em as EntityManager, rows)) em.create(WebhookDeliveryEntity, delivery);
  },
};
