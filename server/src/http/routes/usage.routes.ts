import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { getPrimitiveUsage, listInsights, reportCodeReferences, reportUsage } from '../../features/usage/usage.service.js';

const s = initServer();

/** Usage reports, per-flag and per-config usage, and the project's insights (docs/usage.md). */
export const usageRoutes = (deps: AppDeps) =>
  s.router(contract.usage, {
    reportUsage: async ({ req, res, params, body }) => ({
      status: 202,
      body: await reportUsage(req.em, await admit(req, res, deps), deps.envs, params.envId, body, deps.config.usageReports),
    }),
    getFlagUsage: async ({ req, res, params, query }) => ({
      status: 200,
      body: await getPrimitiveUsage(req.em, await admit(req, res, deps), 'flag', params.id, params.key, query.days),
    }),
    getConfigUsage: async ({ req, res, params, query }) => ({
      status: 200,
      body: await getPrimitiveUsage(req.em, await admit(req, res, deps), 'config', params.id, params.key, query.days),
    }),
    listInsights: async ({ req, res, params, query }) => ({
      status: 200,
      body: await listInsights(req.em, await admit(req, res, deps), params.id, query),
    }),
    reportCodeReferences: async ({ req, res, params, body }) => ({
      status: 200,
      body: await reportCodeReferences(req.em, await admit(req, res, deps), params.id, body),
    }),
  });
