import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { getAuditEvent, listAuditEvents } from '../../features/audit/audit.service.js';

const s = initServer();

export const auditRoutes = (deps: AppDeps) =>
  s.router(contract.audit, {
    listAuditEvents: async ({ req, res, params, query }) => ({
      status: 200,
      body: await listAuditEvents(req.em, await admit(req, res, deps), params.slug, query),
    }),
    getAuditEvent: async ({ req, res, params }) => ({ status: 200, body: await getAuditEvent(req.em, await admit(req, res, deps), params.id) }),
  });
