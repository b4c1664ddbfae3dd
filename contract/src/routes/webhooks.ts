import { z } from 'zod';
import { errorResponses } from '../errors.js';
import {
  CreatedWebhookSubscription,
  CreateWebhookSubscriptionRequest,
  UpdateWebhookSubscriptionRequest,
  WebhookDelivery,
  WebhookDeliveryListQuery,
  WebhookDeliveryPage,
  WebhookSubscription,
} from '../schemas/webhooks.js';
import { c, MutationHeaders } from './common.js';

const one = '/projects/:id/webhook-subscriptions/:subscriptionId' as const;
const admin = 'Admin or owner; approval-required keys get `403 approval_not_supported`.';

export const webhooksContract = c.router({
  createWebhookSubscription: {
    method: 'POST',
    path: '/projects/:id/webhook-subscriptions',
    summary: 'Subscribe a URL to the project\'s events (outbound webhook)',
    description: `${admin} The answer carries the signing secret once. At most 20 per project (\`403 quota_exceeded\`, dimension \`webhook_subscriptions_per_project\`). Audit action \`webhook.created\`.`,
    body: CreateWebhookSubscriptionRequest,
    headers: MutationHeaders,
    responses: { 201: CreatedWebhookSubscription, ...errorResponses(400, 401, 403, 404) },
  },
  listWebhookSubscriptions: {
    method: 'GET',
    path: '/projects/:id/webhook-subscriptions',
    summary: 'List the project\'s webhook subscriptions',
    responses: { 200: z.array(WebhookSubscription), ...errorResponses(401, 403, 404) },
  },
  getWebhookSubscription: {
    method: 'GET',
    path: one,
    summary: 'Get a webhook subscription',
    responses: { 200: WebhookSubscription, ...errorResponses(401, 403, 404) },
  },
  updateWebhookSubscription: {
    method: 'PATCH',
    path: one,
    summary: 'Change a webhook subscription (URL, events, format, enabled)',
    description: `${admin} Pending deliveries go to the new URL (each attempt reads the subscription's URL and secret). Disabling drops the pending deliveries, test events excepted (status \`dropped\`). Audit action \`webhook.updated\`.`,
    body: UpdateWebhookSubscriptionRequest,
    headers: MutationHeaders,
    responses: { 200: WebhookSubscription, ...errorResponses(400, 401, 403, 404) },
  },
  deleteWebhookSubscription: {
    method: 'DELETE',
    path: one,
    summary: 'Delete a webhook subscription and its delivery log',
    description: `${admin} Pending deliveries are dropped. Audit action \`webhook.deleted\`.`,
    body: c.noBody(),
    headers: MutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(401, 403, 404) },
  },
  testWebhookSubscription: {
    method: 'POST',
    path: `${one}/test`,
    summary: 'Queue a `webhook.test` event for the subscription',
    description: `${admin} Delivered like any event (signed, retried); follow it in the delivery log. Sent also when the subscription is disabled. Counts towards the subscription's cap of pending deliveries: beyond it the oldest pending ones are dropped.`,
    body: c.noBody(),
    headers: MutationHeaders,
    responses: { 202: WebhookDelivery, ...errorResponses(401, 403, 404) },
  },
  listWebhookDeliveries: {
    method: 'GET',
    path: `${one}/deliveries`,
    summary: 'The delivery log of a subscription, newest first',
    description: 'Deliveries are kept 30 days.',
    query: WebhookDeliveryListQuery,
    responses: { 200: WebhookDeliveryPage, ...errorResponses(400, 401, 403, 404) },
  },
});
