import { errorResponses } from '../errors.js';
import { AuditEventDetail, AuditEventPage, AuditListQuery } from '../schemas/audit.js';
import { c } from './common.js';

export const auditContract = c.router({
  listAuditEvents: {
    method: 'GET',
    path: '/orgs/:slug/audit',
    summary: 'List audit events, newest first',
    description:
      'Filters combine with AND, except `includeProjectRows=true`, which widens `envId` to the environment or no environment of its project (a flag’s history in one environment: its rollouts and values there, and its creation, details, archive and restore). `includeProjectRows` without `envId` is `400 invalid_request`. `nextCursor` is null on the last page. An API key restricted to environments lists only the rows of those environments (no organization- or project-level rows); one restricted to resources only the rows of the flags and configs its globs match.',
    query: AuditListQuery,
    responses: { 200: AuditEventPage, ...errorResponses(400, 401, 403, 404) },
  },
  getAuditEvent: {
    method: 'GET',
    path: '/audit/events/:id',
    summary: 'Get one audit event with its previous and new values and their diff',
    description: 'A row outside a restricted API key\'s environments or resources is `404 not_found`.',
    responses: { 200: AuditEventDetail, ...errorResponses(401, 403, 404) },
  },
});
