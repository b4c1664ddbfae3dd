import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { createGuardMetric, deleteGuardMetric, listGuardMetrics } from '../../features/guards/guard-metrics.service.js';
import { reportGuardMetrics } from '../../features/guards/guard-reports.service.js';

const s = initServer();

export const guardsRoutes = (deps: AppDeps) =>
  s.router(contract.guards, {
    reportGuardMetrics: async ({ req, res, params, body }) => ({
      status: 202,
      body: await reportGuardMetrics(req.em, await admit(req, res, deps), deps.envs, params.envId, body),
    }),
    listGuardMetrics: async ({ req, res, params }) => ({ status: 200, body: await listGuardMetrics(req.em, await admit(req, res, deps), params.id) }),
    createGuardMetric: async ({ req, res, params, body }) => ({ status: 201, body: await createGuardMetric(req.em, await admit(req, res, deps), params.id, body, { prometheus: deps.prometheus !== null }) }),
    deleteGuardMetric: async ({ req, res, params }) => {
      await deleteGuardMetric(req.em, await admit(req, res, deps), params.id, params.key);
      return { status: 204, body: undefined };
    },
  });
