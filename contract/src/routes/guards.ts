import { z } from 'zod';
import { errorResponses } from '../errors.js';
import { GUARD_METRICS_PER_PROJECT_MAX } from '../limits.js';
import { CreateGuardMetricRequest, GuardMetric, GuardReport, GuardReportAccepted } from '../schemas/guards.js';
import { c, MutationHeaders } from './common.js';

export const guardsContract = c.router({
  reportGuardMetrics: {
    method: 'POST',
    path: '/envs/:envId/guard-metrics',
    summary: 'Report what guarded rollouts\' arms did (SDKs send these in batches)',
    description:
      'Server and SDK keys that may evaluate the environment, and sessions; client keys are refused (`403 scope_denied`): a browser\'s numbers would be anyone\'s. A bad window or a malformed entry is `400` naming the field, and nothing of a refused report is counted. Entries for a rollout no longer at a guarded step of the reported percent are dropped (`dropped`).',
    body: GuardReport,
    responses: { 202: GuardReportAccepted, ...errorResponses(400, 401, 403, 404, 429) },
  },
  listGuardMetrics: {
    method: 'GET',
    path: '/projects/:id/guard-metrics',
    summary: 'List the metrics guarded ramp steps can watch',
    responses: { 200: z.array(GuardMetric), ...errorResponses(401, 403, 404) },
  },
  createGuardMetric: {
    method: 'POST',
    path: '/projects/:id/guard-metrics',
    summary: 'Define a metric guarded ramp steps can watch',
    description: `At most ${GUARD_METRICS_PER_PROJECT_MAX} per project (\`403 quota_exceeded\`). A key already defined answers \`409 guard_metric_key_conflict\`. The same permissions as rollout plans.`,
    body: CreateGuardMetricRequest,
    headers: MutationHeaders,
    responses: { 201: GuardMetric, ...errorResponses(400, 401, 403, 404, 409) },
  },
  deleteGuardMetric: {
    method: 'DELETE',
    path: '/projects/:id/guard-metrics/:key',
    summary: 'Delete a guard metric',
    description: 'Idempotent on an already-deleted metric. `409 guard_metric_in_use` while a rollout plan or a live rollout\'s plan watches it (`details.plans`, `details.rollouts`).',
    body: c.noBody(),
    headers: MutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(401, 403, 404, 409) },
  },
});
