import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WEBHOOK_SUBSCRIPTIONS_PER_PROJECT_MAX, type WebhookEventType } from '@gradual/contract';
import {
  OrgEntity,
  ProjectEntity,
  WebhookDeliveryEntity,
  WebhookSubscriptionEntity,
  type Project,
  type WebhookDelivery,
  type WebhookSubscription,
} from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, type Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { pendingDelivery, renderTestEvent } from '../audit/webhook-outbox.js';
import { findProject, isUuid, iso } from '../common/lookup.js';
import { checkWebhookUrl, type WebhookNetworkPolicy } from './url-policy.js';
import { dropOverCap, dropPendingOfDisabled } from './deliveries.store.js';
import { transaction } from '../../db/transaction.js';

export const DEFAULT_DELIVERY_PAGE = 50;
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export const newWebhookSecret = (): string => `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

export const toSubscriptionDto = (s: WebhookSubscription) => ({
  id: s.id,
  projectId: s.projectId,
  name: s.name,
  url: s.url,
  events: s.events as WebhookEventType[],
  format: s.format,
  enabled: s.enabled,
  createdAt: iso(s.createdAt),
  updatedAt: iso(s.updatedAt),
});

/**
 * What the audit log keeps of a subscription: never the secret, and the URL without its path or
 * query (a Slack incoming-webhook URL is itself a credential).
 */
function auditValue(s: WebhookSubscription) {
  const url = new URL(s.url);
  const hidden = url.pathname !== '/' || url.search ? '/…' : '';
  return { ...toSubscriptionDto(s), url: `${url.origin}${hidden}` };
}

export const toDeliveryDto = (d: WebhookDelivery) => ({
  id: d.id,
  subscriptionId: d.subscriptionId,
  eventType: d.eventType,
  payload: d.payload,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt ? iso(d.nextAttemptAt) : null,
  lastAttemptAt: d.lastAttemptAt ? iso(d.lastAttemptAt) : null,
  responseStatus: d.responseStatus ?? null,
  lastError: d.lastError ?? null,
  createdAt: iso(d.createdAt),
});

/** Webhooks are an admin's business, for the whole project: a key restricted to environments or resources is refused. */
async function admit(em: EntityManager, caller: Caller, projectId: string, action: 'read' | 'write') {
  const project = await findProject(em, projectId);
  const actor = await authorize(em, caller, project.orgId, {
    action,
    role: 'admin',
    projectId: project.id,
    allEnvironments: true,
    allResources: true,
  });
  return { project, actor };
}

async function findSubscription(em: EntityManager, project: Project, id: string, lock = false): Promise<WebhookSubscription> {
  const found = isUuid(id)
    ? await em.findOne(WebhookSubscriptionEntity, { id, projectId: project.id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {})
    : null;
  if (!found) throw new DomainError('not_found', 'Webhook subscription not found.');
  return found;
}

export interface SubscriptionInput {
  name: string;
  url: string;
  events: WebhookEventType[];
  format?: 'standard' | 'slack' | undefined;
  enabled?: boolean | undefined;
}

export async function createSubscription(em: EntityManager, caller: Caller, projectId: string, input: SubscriptionInput, policy: WebhookNetworkPolicy) {
  const { project, actor } = await admit(em, caller, projectId, 'write');
  const url = checkWebhookUrl(input.url, policy);
  const secret = newWebhookSecret();
  const subscription = await transaction(em, async (tx) => {
    // The project's row lock makes concurrent creates take turns at the quota.
    await tx.findOneOrFail(ProjectEntity, { id: project.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const count = await tx.count(WebhookSubscriptionEntity, {
      projectId: project.id,
    });
    if (count >= WEBHOOK_SUBSCRIPTIONS_PER_PROJECT_MAX) {
      throw new DomainError('quota_exceeded', `A project can have at most ${WEBHOOK_SUBSCRIPTIONS_PER_PROJECT_MAX} webhook subscriptions.`, {
        details: {
          dimension: 'webhook_subscriptions_per_project',
          limit: WEBHOOK_SUBSCRIPTIONS_PER_PROJECT_MAX,
        },
      });
    }
    const created = tx.create(WebhookSubscriptionEntity, {
      orgId: project.orgId,
      projectId: project.id,
      name: input.name,
      url,
      events: [...new Set(input.events)],
      format: input.format ?? 'standard',
      enabled: input.enabled ?? true,
      secret,
      createdByUserId: actor.actorType === 'user' ? actor.actorId : null,
      createdAt: caller.now,
      updatedAt: caller.now,
    });
    recordAudit(tx, caller, actor, {
      orgId: project.orgId,
      projectId: project.id,
      action: 'webhook.created',
      resourceType: 'webhook',
      resourceKey: created.name,
      resourceId: created.id,
      newValue: auditValue(created),
    });
    return created;
  });
  return { ...toSubscriptionDto(subscription), secret };
}

export async function listSubscriptions(em: EntityManager, caller: Caller, projectId: string) {
  const { project } = await admit(em, caller, projectId, 'read');
  const rows = await em.find(WebhookSubscriptionEntity, { projectId: project.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return rows.map(toSubscriptionDto);
}

export async function getSubscription(em: EntityManager, caller: Caller, projectId: string, id: string) {
  const { project } = await admit(em, caller, projectId, 'read');
  return toSubscriptionDto(await findSubscription(em, project, id));
}

export type SubscriptionPatch = Partial<{
  [K in keyof SubscriptionInput]: SubscriptionInput[K] | undefined;
}>;

/** A patch that changes nothing commits nothing (no audit row). */
export async function updateSubscription(
  em: EntityManager,
  caller: Caller,
  projectId: string,
  id: string,
  patch: SubscriptionPatch,
  policy: WebhookNetworkPolicy
) {
  const { project, actor } = await admit(em, caller, projectId, 'write');
  const url = patch.url === undefined ? undefined : checkWebhookUrl(patch.url, policy);
  const subscription = await transaction(em, async (tx) => {
    const s = await findSubscription(tx, project, id, true);
    const before = auditValue(s);
    const next = {
      name: patch.name ?? s.name,
      url: url ?? s.url,
      events: patch.events ? [...new Set(patch.events)] : s.events,
      format: patch.format ?? s.format,
      enabled: patch.enabled ?? s.enabled,
    };
    const changed =
      next.name !== s.name ||
      next.url !== s.url ||
      JSON.stringify(next.events) !== JSON.stringify(s.events) ||
      next.format !== s.format ||
      next.enabled !== s.enabled;
    if (!changed) return s;
    Object.assign(s, next, { updatedAt: caller.now });
    // Disabled means nothing more is sent: its pending deliveries are dropped now (test events
    // excepted), not sent hours later when it is enabled again. A new URL needs nothing here:
    // each attempt reads the subscription's URL and secret.
    if (!next.enabled) {
      await tx.flush();
      await dropPendingOfDisabled(tx, caller.now, s.id);
    }
    recordAudit(tx, caller, actor, {
      orgId: project.orgId,
      projectId: project.id,
      action: 'webhook.updated',
      resourceType: 'webhook',
      resourceKey: s.name,
      resourceId: s.id,
      previousValue: before,
      newValue: auditValue(s),
    });
    return s;
  });
  return toSubscriptionDto(subscription);
}

/** The subscription and its delivery log (pending deliveries included) go; its audit history stays. */
export async function deleteSubscription(em: EntityManager, caller: Caller, projectId: string, id: string): Promise<void> {
  const { project, actor } = await admit(em, caller, projectId, 'write');
  await transaction(em, async (tx) => {
    const s = await findSubscription(tx, project, id, true);
    recordAudit(tx, caller, actor, {
      orgId: project.orgId,
      projectId: project.id,
      action: 'webhook.deleted',
      resourceType: 'webhook',
      resourceKey: s.name,
      resourceId: s.id,
      previousValue: auditValue(s),
    });
    await tx.nativeDelete(WebhookDeliveryEntity, { subscriptionId: s.id });
    tx.remove(s);
  });
}

/**
 * Queues a `webhook.test` event for the subscription (enabled or not); the worker sends it like any
 * other. It counts towards the subscription's cap of pending deliveries (`maxPending`): beyond it
 * the oldest pending ones are dropped, in the same transaction. The subscription's row lock makes
 * concurrent calls take turns, so the cap holds exactly however many arrive at once.
 */
export async function queueTestEvent(em: EntityManager, caller: Caller, projectId: string, id: string, maxPending: number) {
  const { project } = await admit(em, caller, projectId, 'write');
  const org = await em.findOneOrFail(OrgEntity, { id: project.orgId });
  const delivery = await transaction(em, async (tx) => {
    const s = await findSubscription(tx, project, id, true);
    const payload = renderTestEvent(
      s.format,
      { id: s.id, name: s.name, projectId: project.id },
      { orgSlug: org.slug, projectKey: project.key, envKey: null },
      caller.now
    );
    const created = tx.create(WebhookDeliveryEntity, pendingDelivery(s, 'webhook.test', payload, caller.now));
    await tx.flush();
    await dropOverCap(tx, caller.now, maxPending, s.id);
    return created;
  });
  return toDeliveryDto(delivery);
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime()) || !/^msg_[0-9a-f]{32}$/.test(id)) {
    throw new DomainError('invalid_request', 'The cursor is invalid.', {
      fields: { cursor: 'invalid cursor' },
    });
  }
  return { createdAt, id };
}

const encodeCursor = (d: WebhookDelivery) => Buffer.from(`${d.createdAt.toISOString()}|${d.id}`, 'utf8').toString('base64url');

/** Newest first (created_at desc, id desc), keyset-paged; `nextCursor` only when the page is full. */
export async function listDeliveries(
  em: EntityManager,
  caller: Caller,
  projectId: string,
  id: string,
  query: {
    status?: WebhookDelivery['status'] | undefined;
    cursor?: string | undefined;
    limit?: number | undefined;
  }
) {
  const { project } = await admit(em, caller, projectId, 'read');
  const s = await findSubscription(em, project, id);
  const limit = query.limit ?? DEFAULT_DELIVERY_PAGE;
  const where: Record<string, unknown> = { subscriptionId: s.id };
  if (query.status) where.status = query.status;
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    where.$or = [{ createdAt: { $lt: c.createdAt } }, { createdAt: c.createdAt, id: { $lt: c.id } }];
  }
  const rows = await em.find(WebhookDeliveryEntity, where, {
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  return {
    items: page.map(toDeliveryDto),
    ...(rows.length > limit ? { nextCursor: encodeCursor(page[page.length - 1]!) } : {}),
  };
}
