import { z } from 'zod';
import { errorResponses } from '../errors.js';
import { c, serializable } from './common.js';

const sse = { 200: c.otherResponse({ contentType: 'text/event-stream', body: serializable(z.string()) }) };

/** Server-sent events announcing committed changes, for pages that show live state. */
export const eventsContract = c.router({
  streamEnvironmentEvents: {
    method: 'GET',
    path: '/envs/:envId/events',
    summary: 'Server-sent events announcing each committed change in an environment',
    description:
      'An event `ready` with data `{"envId", "version"}` on connect, then an event `change` (id: the version) with data `{"envId", "version", "changes": [{"resourceType", "resourceKey", "action"}]}` after every committed write in the environment, from any source (API, scheduler, approval gates, rollback webhooks) and any server instance; a comment heartbeat every 15 s. `changes` lists the audited changes the caller may read (an API key restricted to resources sees only theirs; the list may be empty). Same access as reading the environment; shares the ruleset stream’s caps and credential re-checks.',
    responses: { ...sse, ...errorResponses(401, 403, 404) },
  },
  streamOrgEvents: {
    method: 'GET',
    path: '/orgs/:slug/events',
    summary: 'Server-sent events announcing committed environment changes across an organization',
    description:
      'An event `ready` with data `{"orgId"}` on connect, then an event `change` with the same data as the environment stream for every committed write in one of the organization’s environments that carries an audited change the caller may read (an API key restricted to environments or resources sees only those). Same access as the audit log.',
    responses: { ...sse, ...errorResponses(401, 403, 404) },
  },
});
