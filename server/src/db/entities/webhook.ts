import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, jsonb, timestamp, type JsonValue } from './common.js';
import { ProjectEntity } from './project.js';

export const WEBHOOK_FORMATS = ['standard', 'slack'] as const;
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dropped'] as const;

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
 * the transaction of the change that caused it; workers on every instance claim the due head of
 * each subscription's queue (its subscription row locked `FOR NO KEY UPDATE SKIP LOCKED`) with a
 * lease (`lockedUntil`) longer than one attempt, so each is delivered by one of them, and a
 * subscription has at most one attempt in flight (features/webhooks/worker.ts).
 */
export const WebhookDeliveryEntity = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: (p) => ({
    /** The `webhook-id` (`msg_…`), the same on every attempt. */
    id: p.text().primary(),
    subscriptionId: p.manyToOne(WebhookSubscriptionEntity).mapToPk().fieldName('subscription_id').deleteRule('cascade'),
    /**
     * The subscription's URL when the event was queued, for the record. Attempts go to the
     * subscription's URL (and are signed with its secret) as they are at the time of the attempt.
     */
    url: p.text(),
    eventType: p.text(),
    /** The body as sent (already in the subscription's format at enqueue time). */
    payload: jsonb<JsonValue>(),
    /** `dropped`: never sent (again): over the subscription's pending cap, or the subscription was disabled (`lastError` says which). */
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
    {
      // Each subscription's queue in order: its due head, and its length (the pending cap).
      name: 'webhook_deliveries_queue_index',
      expression:
        'create index "webhook_deliveries_queue_index" on "webhook_deliveries" ("subscription_id", "next_attempt_at", "id") where "status" = \'pending\'',
    },
    {
      // The attempts in flight (leased), per subscription: a few rows, whatever the queues hold.
      name: 'webhook_deliveries_leased_index',
      expression:
        'create index "webhook_deliveries_leased_index" on "webhook_deliveries" ("subscription_id") where "status" = \'pending\' and "locked_until" is not null',
    },
  ],
});
export type WebhookDelivery = InferEntity<typeof WebhookDeliveryEntity>;
