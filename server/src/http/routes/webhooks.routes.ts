import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  queueTestEvent,
  updateSubscription,
} from '../../features/webhooks/webhooks.service.js';

const s = initServer();

export const webhooksRoutes = (deps: AppDeps) => {
  const policy = deps.config.webhooks;
  return s.router(contract.webhooks, {
    createWebhookSubscription: async ({ req, res, params, body }) => ({
      status: 201,
      body: await createSubscription(req.em, await admit(req, res, deps), params.id, body, policy),
    }),
    listWebhookSubscriptions: async ({ req, res, params }) => ({
      status: 200,
      body: await listSubscriptions(req.em, await admit(req, res, deps), params.id),
    }),
    getWebhookSubscription: async ({ req, res, params }) => ({
      status: 200,
      body: await getSubscription(req.em, await admit(req, res, deps), params.id, params.subscriptionId),
    }),
    updateWebhookSubscription: async ({ req, res, params, body }) => ({
      status: 200,
      body: await updateSubscription(req.em, await admit(req, res, deps), params.id, params.subscriptionId, body, policy),
    }),
    deleteWebhookSubscription: async ({ req, res, params }) => {
      await deleteSubscription(req.em, await admit(req, res, deps), params.id, params.subscriptionId);
      return { status: 204, body: undefined };
    },
    testWebhookSubscription: async ({ req, res, params }) => ({
      status: 202,
      body: await queueTestEvent(req.em, await admit(req, res, deps), params.id, params.subscriptionId, policy.maxPendingPerSubscription),
    }),
    listWebhookDeliveries: async ({ req, res, params, query }) => ({
      status: 200,
      body: await listDeliveries(req.em, await admit(req, res, deps), params.id, params.subscriptionId, query),
    }),
  });
};
