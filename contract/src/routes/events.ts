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
      'An event `ready` with data `{"envId", "version"}` on connect, then an event `change` (id: the version) with data `{"envId", "version", "changes": [{"resourceType", "resourceKey", "action"}]}` after every committed write in the environment, from any source (API, scheduler, approval gates, rollback webhooks) and any server instance; a comment heartbeat every 15 s. `changes` lists the audited changes the caller may read, including the project-level ones of the same write that moved the environment (a flag created, archived or restored names the flag); an API key restricted to resources sees only theirs, and the list may be empty. Writes that move no version (rollback secrets, proposals) are not announced here; the organization stream has them as `org-change`. The data is the `LiveChangeEvent` schema. Same access as reading the environment; shares the ruleset stream’s caps and credential re-checks.',
    responses: { ...sse, ...errorResponses(401, 403, 404) },
    metadata: { sseEvents: { change: 'LiveChangeEvent' } } satisfies RouteMetadata,
  },
  streamOrgEvents: {
    method: 'GET',
    path: '/orgs/:slug/events',
    summary: 'Server-sent events announcing committed changes across an organization',
    description:
      'An event `ready` with data `{"orgId"}` on connect, then an event `change` with the same data as the environment stream (`LiveChangeEvent`) for every committed write that moved the version of one of the organization’s environments and carries an audited change there the caller may read, and an event `org-change` (`LiveOrgChangeEvent`: `{"projectId", "envId", "changes"}`) for the audited changes of a committed write that move no environment’s version, per project and environment, when the caller may read one: with `envId` null, the rows outside any environment (a flag’s or config’s definition, segments, plans, webhook subscriptions, projects, members, API keys); with `envId` set, rows of that environment that leave its version as it is (an environment created or deleted, rollback secrets, proposals made, cancelled or expired). A `change` event lists the environment’s own rows; the project-level rows of the same write (a flag created or archived) are not repeated there but arrive as an `org-change`. Each audited change reaches the stream once. The audit log’s rules decide what a restricted API key sees: one restricted to environments gets the `change` and `org-change` events of those environments only (none with `envId` null); one restricted to resources only the changes of the flags and configs its globs match (their rollouts and proposals). Every server instance announces the writes of every other. Same access as the audit log.',
    responses: { ...sse, ...errorResponses(401, 403, 404) },
    metadata: { sseEvents: { change: 'LiveChangeEvent', 'org-change': 'LiveOrgChangeEvent' } } satisfies RouteMetadata,
  },
});
