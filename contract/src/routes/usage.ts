import { z } from 'zod';
import { errorResponses } from '../errors.js';
import { CodeReferenceReport, CodeReferenceReportAccepted, InsightsQuery, PrimitiveInsight, PrimitiveUsage, UsageQuery, UsageReport, UsageReportAccepted } from '../schemas/usage.js';
import { c } from './common.js';

export const usageContract = c.router({
  reportUsage: {
    method: 'POST',
    path: '/envs/:envId/usage',
    summary: 'Report evaluation counts (SDKs send these in batches)',
    description:
      'Any key that may evaluate the environment may report (`sdk`, `client`, server keys, sessions); a client key only for client-visible flags and configs. Bad windows (also one ending before the previous hour) or malformed entries are `400` naming the field; nothing is counted from a refused report. Entries with a variant the flag or config cannot serve are dropped (`dropped`), and each reporter\'s evaluations per hour are capped, per client address for a client key (`overLimit`).',
    body: UsageReport,
    responses: { 202: UsageReportAccepted, ...errorResponses(400, 401, 403, 404, 429) },
  },
  getFlagUsage: {
    method: 'GET',
    path: '/projects/:id/flags/:key/usage',
    summary: 'Evaluations of a flag per environment and variant',
    query: UsageQuery,
    responses: { 200: PrimitiveUsage, ...errorResponses(400, 401, 403, 404) },
  },
  getConfigUsage: {
    method: 'GET',
    path: '/projects/:id/configs/:key/usage',
    summary: 'Evaluations of a config per environment and variant',
    query: UsageQuery,
    responses: { 200: PrimitiveUsage, ...errorResponses(400, 401, 403, 404) },
  },
  listInsights: {
    method: 'GET',
    path: '/projects/:id/insights',
    summary: 'Which flags and configs are in use, stale or ready to remove',
    description: 'Live (not archived) flags and configs with their last evaluation and last change; filter by `status`.',
    query: InsightsQuery,
    responses: { 200: z.array(PrimitiveInsight), ...errorResponses(400, 401, 403, 404) },
  },
  reportCodeReferences: {
    method: 'PUT',
    path: '/projects/:id/code-references',
    summary: "Record what a code base's type check found about keys",
    description:
      "Replaces the repository's previous report (`gradual flags stale --report`); insights show each key's latest report per repository and whether it is `safeToRemove`. Keys are flags or configs of the project, live or not (`400` naming the entry otherwise); an API key restricted to resources may report only keys its globs match. Needs write access; approval-required keys get `403 approval_not_supported`.",
    body: CodeReferenceReport,
    responses: { 200: CodeReferenceReportAccepted, ...errorResponses(400, 401, 403, 404) },
  },
});
