import { z } from 'zod';
import { example, named } from '../openapi-meta.js';
import { Id, JsonValue, Name, Timestamp } from './common.js';

/** What a subscription can receive. `webhook.test` is sent only by the test call. */
export const WEBHOOK_EVENT_TYPES = [
  'rollout.created',
  'rollout.advanced',
  'rollout.paused',
  'rollout.resumed',
  'rollout.completed',
  'rollout.cancelled',
  'rollout.rolled_back',
  'rollout.rollback_converged',
  'proposal.created',
  'proposal.approved',
  'proposal.rejected',
  'flag.archived',
  'flag.deleted',
  'config.archived',
  'config.deleted',
] as const;

export const WebhookEventType = named(
  'WebhookEventType',
  z.enum(WEBHOOK_EVENT_TYPES),
  '`rollout.paused` covers a person\'s pause and an approval gate (`data.pausedReason`); `rollout.rolled_back` an alert\'s rollback, a guard\'s and the manual one; `rollout.rollback_converged` when the SDK instances seen recently serve a rollback (`data.rollbackConvergence`); `proposal.approved` is a proposal applied, `proposal.rejected` one cancelled.',
);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

export const WebhookFormat = named(
  'WebhookFormat',
  z.enum(['standard', 'slack']),
  '`standard`: the event as JSON (`{type, timestamp, data}`), signed per Standard Webhooks; `slack`: a Slack incoming-webhook message (`{text, blocks}`), also signed.',
);

/** An HTTPS (or, where the operator allows it, HTTP) URL; private, loopback and link-local addresses are refused at delivery unless allowed. */
export const WebhookUrl = example(z.string().url().max(2048).regex(/^https?:\/\//i, 'http:// or https://'), 'https://hooks.example.com/gradual');

export const WebhookSubscription = named(
  'WebhookSubscription',
  z.object({
    id: Id,
    projectId: Id,
    name: z.string(),
    url: z.string(),
    events: z.array(WebhookEventType),
    format: WebhookFormat,
    enabled: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

export const CreatedWebhookSubscription = named(
  'CreatedWebhookSubscription',
  WebhookSubscription.extend({
    secret: z.string().describe('The signing secret (`whsec_…`, base64), shown only now. Verify `webhook-signature` with any Standard Webhooks library.'),
  }),
);

export const CreateWebhookSubscriptionRequest = named(
  'CreateWebhookSubscriptionRequest',
  z.object({
    name: Name,
    url: WebhookUrl,
    events: z.array(WebhookEventType).min(1).max(WEBHOOK_EVENT_TYPES.length),
    format: WebhookFormat.optional(),
    enabled: z.boolean().optional(),
  }),
  '`format` defaults to `standard`, `enabled` to true.',
);

export const UpdateWebhookSubscriptionRequest = named(
  'UpdateWebhookSubscriptionRequest',
  z
    .object({
      name: Name.optional(),
      url: WebhookUrl.optional(),
      events: z.array(WebhookEventType).min(1).max(WEBHOOK_EVENT_TYPES.length).optional(),
      format: WebhookFormat.optional(),
      enabled: z.boolean().optional(),
    })
    .refine((body) => Object.values(body).some((v) => v !== undefined), 'Send at least one of name, url, events, format, enabled.'),
);

export const WebhookDeliveryStatus = named(
  'WebhookDeliveryStatus',
  z.enum(['pending', 'succeeded', 'failed', 'dropped']),
  '`pending`: not delivered yet (first try or a retry is due at `nextAttemptAt`); `succeeded`: a 2xx answer; `failed`: every attempt failed, no more retries; `dropped`: not sent (again) because more deliveries were pending for the subscription than its cap allows (the oldest are dropped) or the subscription was disabled; `lastError` says which.',
);

export const WebhookDelivery = named(
  'WebhookDelivery',
  z.object({
    id: z.string().describe('The `webhook-id` header: the same on every attempt, for the receiver to deduplicate.'),
    subscriptionId: Id,
    eventType: z.string(),
    payload: JsonValue,
    status: WebhookDeliveryStatus,
    attempts: z.number().int(),
    nextAttemptAt: Timestamp.nullable(),
    lastAttemptAt: Timestamp.nullable(),
    responseStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: Timestamp,
  }),
);

export const WebhookDeliveryPage = named(
  'WebhookDeliveryPage',
  z.object({ items: z.array(WebhookDelivery), nextCursor: z.string().optional() }),
  'Newest first. `nextCursor` is present only when the page is full.',
);

export const WebhookDeliveryListQuery = z.object({
  status: WebhookDeliveryStatus.optional(),
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
