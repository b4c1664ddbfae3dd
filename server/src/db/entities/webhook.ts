import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, jsonb, timestamp, type JsonValue } from './common.js';
import { ProjectEntity } from './project.js';

export const WEBHOOK_FORMATS = ['standard', 'slack'] as const;
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** A project's outbound webhook: where to send which events. */
export const WebhookSubscriptionEntity = defineEntity({
  name: 'WebhookSubscription',
  tableName: 'webhook_subscriptions',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid(),
    projectId: p.manyToOne(ProjectEntity).mapToPk().fieldName('project_id').deleteRule('cascade').index(),
    name: p.text(),
    url: p.text(),
    /** The contract's WebhookEventType values. */
    events: jsonb<string[]>(),
    format: p.enum([...WEBHOOK_FORMATS]),
    enabled: p.boolean().default(true),
    /** The Standard Webhooks signing secret (`whsec_…`); the server must sign with it, so it is kept, not hashed. */
    secret: p.text(),
    createdByUserId: p.uuid().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
});
export type WebhookSubscription = InferEntity<typeof WebhookSubscriptionEntity>;

/**
 * One event for one subscription: the durable queue and the delivery log in one row. Enqueued in
 * the transaction of the change that caused it; workers on every instance claim due rows with
 * `FOR UPDATE SKIP LOCKED` and a lease (`lockedUntil`), so each is delivered by one of them.
 */
export const WebhookDeliveryEntity = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: (p) => ({
    /** The `webhook-id` (`msg_…`), the same on every attempt. */
    id: p.text().primary(),
    subscriptionId: p.manyToOne(WebhookSubscriptionEntity).mapToPk().fieldName('subscription_id').deleteRule('cascade'),
    /** Where it is sent: the subscription's URL when it was queued (a later change of the URL does not redirect it). */
    url: p.text(),
    eventType: p.text(),
    /** The body as sent (already in the subscription's format at enqueue time). */
    payload: jsonb<JsonValue>(),
    status: p.enum([...WEBHOOK_DELIVERY_STATUSES]),
    attempts: p.integer().default(0),
    nextAttemptAt: timestamp().nullable(),
    lockedUntil: timestamp().nullable(),
    lastAttemptAt: timestamp().nullable(),
    responseStatus: p.integer().nullable(),
    lastError: p.text().nullable(),
    createdAt: timestamp(),
  }),
  indexes: [
    { properties: ['subscriptionId', 'createdAt'] },
    {
      name: 'webhook_deliveries_due_index',
      expression: 'create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "status" = \'pending\'',
    },
  ],
});
export type WebhookDelivery = InferEntity<typeof WebhookDeliveryEntity>;
