import { z } from 'zod';
import { named } from '../openapi-meta.js';

/** One audited change inside a committed write, as a live-change event lists it. */
export const LiveChange = named(
  'LiveChange',
  z
    .object({
      resourceType: z.string(),
      resourceKey: z.string().nullable(),
      action: z.string(),
    })
    .strict(),
);
export type LiveChange = z.infer<typeof LiveChange>;

/**
 * The data of a `change` event on an environment's or organization's event stream: one committed
 * write, the environment version it produced, and the audited changes in it that the caller may read.
 */
export const LiveChangeEvent = named(
  'LiveChangeEvent',
  z
    .object({
      envId: z.string().uuid(),
      version: z.number().int(),
      changes: z.array(LiveChange),
    })
    .strict(),
  'The data of a `change` event of `GET /envs/{envId}/events` and `GET /orgs/{slug}/events`: a committed write in an environment, the version it produced, and the audited changes in it the caller may read.',
);
export type LiveChangeEvent = z.infer<typeof LiveChangeEvent>;

/**
 * The data of an `org-change` event on an organization's event stream: the audited changes of a
 * committed write that move no environment's version, of one project and environment. Either
 * they are in no environment (a flag's or config's definition, a segment, a plan, a webhook
 * subscription, a project, members and API keys; `envId` null), or they name an environment and
 * leave its version as it is (an environment created or deleted, a rollback secret minted or
 * revoked, a proposal made, cancelled or expired; `envId` set, `projectId` the environment's project).
 * A rollback fire that moved no rollout is announced the same way (`rollback.fired`), though it is
 * in the environment's fire history and not in the audit log.
 */
export const LiveOrgChangeEvent = named(
  'LiveOrgChangeEvent',
  z
    .object({
      projectId: z.string().uuid().nullable(),
      envId: z.string().uuid().nullable(),
      changes: z.array(LiveChange),
    })
    .strict(),
  'The data of an `org-change` event of `GET /orgs/{slug}/events`: the audited changes of a committed write that move no environment’s version, of one project and environment. With `envId` null, changes outside any environment (definitions of flags and configs, segments, plans, webhook subscriptions, projects, members, API keys); `projectId` is null for organization-level rows. With `envId` set, the rows of that environment that leave its version as it is (an environment created or deleted, rollback secrets minted or revoked, proposals made, cancelled or expired); `projectId` is the environment’s project. A rollback fire that moved no rollout (refused, or the rollout already rolled back or ended) comes the same way as `{resourceType: \'rollout\', resourceKey: <flag or config key>, action: \'rollback.fired\'}`: it is in the environment’s fire history, not in the audit log.',
);
export type LiveOrgChangeEvent = z.infer<typeof LiveOrgChangeEvent>;

/** Payloads of the event streams, published as components of the OpenAPI document (their bodies are `text/event-stream`). */
export const liveEventSchemas = { LiveChange, LiveChangeEvent, LiveOrgChangeEvent } as const;
