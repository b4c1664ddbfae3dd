import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { notModified } from '../etag.js';
import { listMigrationWarnings } from '../../features/primitives/legacy-import.js';
import { createPlan, deletePlan, getPlan, listPlans, updatePlan } from '../../features/plans/plans.service.js';

const s = initServer();

export const plansRoutes = (deps: AppDeps) =>
  s.router(contract.rolloutPlans, {
    listRolloutPlans: async ({ req, res, params }) => ({ status: 200, body: await listPlans(req.em, await admit(req, res, deps), params.id) }),
    createRolloutPlan: async ({ req, res, params, body }) => ({ status: 201, body: await createPlan(req.em, await admit(req, res, deps), params.id, body) }),
    getRolloutPlan: async ({ req, res, params }) => {
      const body = await getPlan(req.em, await admit(req, res, deps), params.id, params.planKey);
      return notModified(req, res, body) ? { status: 304, body: undefined } : { status: 200, body };
    },
    updateRolloutPlan: async ({ req, res, params, body, headers }) => ({
      status: 200,
      body: await updatePlan(req.em, await admit(req, res, deps), params.id, params.planKey, body, headers['if-match']),
    }),
    deleteRolloutPlan: async ({ req, res, params }) => {
      await deletePlan(req.em, await admit(req, res, deps), params.id, params.planKey);
      return { status: 204, body: undefined };
    },
    listRolloutMigrationWarnings: async ({ req, res, params }) => ({
      status: 200,
      body: await listMigrationWarnings(req.em, await admit(req, res, deps), params.slug),
    }),
  });
