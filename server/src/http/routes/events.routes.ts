import type { Request, Response } from 'express';
import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import type { Caller } from '../../features/access/authorize.js';
import { DomainError } from '../../domain/errors.js';
import { environmentEventsAccess, orgEventsAccess, type EventStreamAccess } from '../../features/evaluation/change-events.service.js';
import { eventStream, streamRequester } from './evaluation.routes.js';

const s = initServer();

export const eventsRoutes = (deps: AppDeps) => {
  /** Opens an event stream under the ruleset streams' caps and credential re-checks. */
  const open = async (req: Request, res: Response, access: (caller: Caller) => Promise<EventStreamAccess>) => {
    if (deps.streams.closing) {
      throw new DomainError('service_unavailable', 'This instance is shutting down.', { retryAfterSeconds: 1, closeConnection: true });
    }
    // The caps are checked before any database read, so a flood of stream requests over them costs nothing.
    const slot = deps.streams.reserve(streamRequester(req));
    try {
      const caller = await admit(req, res, deps);
      const { target, grant, visible } = await access(caller);
      return { status: 200 as const, body: eventStream(deps, req, res, (sink, onClose) => deps.streams.openEventStream(slot, target, grant, visible, sink, onClose)) };
    } catch (err) {
      slot.release();
      throw err;
    }
  };

  return s.router(contract.events, {
    streamEnvironmentEvents: ({ req, res, params }) => open(req, res, (caller) => environmentEventsAccess(req.em, caller, params.envId)),
    streamOrgEvents: ({ req, res, params }) => open(req, res, (caller) => orgEventsAccess(req.em, caller, params.slug)),
  });
};
