import { z } from 'zod';
import { errorResponses } from '../errors.js';
import { HOLD_SECONDS_MAX, HOLD_SECONDS_MIN, RAMP_STEPS_MAX, RAMP_STEPS_MIN } from '../limits.js';
import { CreateRolloutPlanRequest, RolloutMigrationWarning, RolloutPlan, UpdateRolloutPlanRequest } from '../schemas/rollouts.js';
import { c, ConditionalGetHeaders, ConditionalMutationHeaders, MutationHeaders, type RouteMetadata } from './common.js';

export const plansContract = c.router({
  listRolloutPlans: {
    method: 'GET',
    path: '/projects/:id/rollout-plans',
    summary: 'List the rollout plans of a project',
    responses: { 200: z.array(RolloutPlan), ...errorResponses(401, 403, 404) },
  },
  createRolloutPlan: {
    method: 'POST',
    path: '/projects/:id/rollout-plans',
    summary: 'Create a rollout plan',
    description:
      `Ramp: ${RAMP_STEPS_MIN}–${RAMP_STEPS_MAX} steps, percents strictly increasing within (0, 100], non-final steps hold ${HOLD_SECONDS_MIN}–${HOLD_SECONDS_MAX.toLocaleString('en-US')} s, the final step holds 0, \`requiresApproval\` only with cadence auto; failures answer \`400 rollout_plan_invalid_ramp\` with \`fields\`. API keys restricted to environments or resources may not create, edit or delete plans (\`403 token_env_out_of_scope\` / \`token_resource_out_of_scope\`).`,
    body: CreateRolloutPlanRequest,
    headers: MutationHeaders,
    responses: { 201: RolloutPlan, ...errorResponses(400, 401, 403, 404, 409) },
  },
  getRolloutPlan: {
    method: 'GET',
    path: '/projects/:id/rollout-plans/:planKey',
    summary: 'Get a rollout plan',
    headers: ConditionalGetHeaders,
    responses: { 200: RolloutPlan, 304: c.noBody(), ...errorResponses(401, 403, 404) },
    metadata: { etag: true } satisfies RouteMetadata,
  },
  updateRolloutPlan: {
    method: 'PATCH',
    path: '/projects/:id/rollout-plans/:planKey',
    summary: 'Edit a rollout plan',
    description: 'Rollouts already attached keep their snapshot; rollouts attached afterwards use the new shape. API keys restricted to environments or resources may not create, edit or delete plans (`403 token_env_out_of_scope` / `token_resource_out_of_scope`).',
    body: UpdateRolloutPlanRequest,
    headers: ConditionalMutationHeaders,
    responses: { 200: RolloutPlan, ...errorResponses(400, 401, 403, 404, 412) },
  },
  deleteRolloutPlan: {
    method: 'DELETE',
    path: '/projects/:id/rollout-plans/:planKey',
    summary: 'Delete a rollout plan',
    description: 'Idempotent on an already-deleted plan. `409 rollout_plan_in_use` while a live rollout references it. API keys restricted to environments or resources may not create, edit or delete plans (`403 token_env_out_of_scope` / `token_resource_out_of_scope`).',
    body: c.noBody(),
    headers: MutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(401, 403, 404, 409) },
  },
  listRolloutMigrationWarnings: {
    method: 'GET',
    path: '/orgs/:slug/rollouts/migration-warnings',
    summary: 'Rollouts affected by the migration from per-rule rollout percentages',
    description: 'Session, admin or owner.',
    responses: { 200: z.array(RolloutMigrationWarning), ...errorResponses(401, 403, 404) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
});
