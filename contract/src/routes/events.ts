import { z } from 'zod';
import { errorResponses } from '../errors.js';
import { c, serializable, type RouteMetadata } from './common.js';

const sse = { 200: c.otherResponse({ contentType: 'text/event-stream', body: serializable(z.string()) }) };

/** Server-sent events announcing committed changes, for pages that show live state. */
export const eventsContract = c.router({
  streamEnvironmentEvents: {
    method: 'GET',
    path: '/envs/:envId/events',
    summary: 'Server-sent events announcing each committed change in an environment',
    description:
      'An event `ready` with data `{"envId", "version"}` on connect, then an event `change` (id: the version) with data `{"envId", "version", "changes": [{"resourceType", "resourceKey", "action"}]}` after every committed write in the environment, from any source (API, scheduler, approval gates, rollback webhooks) and any server instance; a comment heartbeat every 15 s. `changes` lists the audited changes the caller may read, including the project-level ones of the same write that moved the environment (a flag created, archived or restored names the flag); an API key restricted to resources sees only theirs, and the list may be empty. The data is the `LiveChangeEvent` schema. Same access as reading the environment; shares the ruleset stream’s caps and credential re-checks.',
    responses: { ...sse, ...errorResponses(401, 403, 404) },
    metadata: { sseEvents: { change: 'LiveChangeEvent' } } satisfies RouteMetadata,
  },
  streamOrgEvents: {
    method: 'GET',
    path: '/orgs/:slug/events',
    summary: 'Server-sent events announcing committed changes across an organization',
    description:
      'An event `ready` with data `{"orgId"}` on connect, then an event `change` with the same data as the environment stream (`LiveChangeEvent`) for every committed write in one of the organization’s environments that carries an audited change the caller may read, and an event `org-change` (`LiveOrgChangeEvent`: `{"projectId", "changes"}`) for every committed write outside any environment (a flag’s or config’s definition, segments, plans, webhook subscriptions, projects, members, API keys) that carries one. An API key restricted to environments sees only the `change` events of those; one restricted to resources only the changes of the flags and configs its globs match. Every server instance announces the writes of every other. Same access as the audit log.',
    responses: { ...sse, ...errorResponses(401, 403, 404) },
    metadata: { sseEvents: { change: 'LiveChangeEvent', 'org-change': 'LiveOrgChangeEvent' } } satisfies RouteMetadata,
  },
});
