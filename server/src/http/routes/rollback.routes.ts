import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import type { Request } from 'express';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { fireRollback } from '../../features/rollback/fire.service.js';
import { listFires } from '../../features/rollback/history.service.js';
import { listRollbackSecrets, mintRollbackSecret, revokeRollbackSecret } from '../../features/rollback/secrets.service.js';
import { requestAddress } from '../request-address.js';

const s = initServer();

export const rollbackRoutes = (deps: AppDeps) => {
  const fire = (kind: PrimitiveKind) => async ({ req, params }: { req: Pick<Request, 'em' | 'log' | 'headers' | 'fireBody' | 'ip' | 'socket'>; params: { envId: string; key: string } }) => ({
    status: 200 as const,
    body: await fireRollback(
      {
        em: req.em,
        bus: deps.bus,
        limits: deps.limits,
        logger: req.log,
        metrics: deps.metrics,
        throttle: { failures: deps.limits.authFailures, perMinute: deps.config.authFailuresPerIpPerMin },
      },
      {
        envId: params.envId,
        kind,
        key: params.key,
        authorization: req.headers.authorization,
        body: req.fireBody?.bytes ?? Buffer.alloc(0),
        tooLarge: req.fireBody?.tooLarge ?? false,
        contentType: req.headers['content-type'],
        sourceIp: requestAddress(req),
        now: deps.clock.now(),
      },
    ),
  });
  return s.router(contract.rollback, {
    createRollbackSecret: async ({ req, res, params, body }) => ({
      status: 201,
      body: await mintRollbackSecret(req.em, await admit(req, res, deps), params.envId, body.name),
    }),
    listRollbackSecrets: async ({ req, res, params }) => ({ status: 200, body: await listRollbackSecrets(req.em, await admit(req, res, deps), params.envId) }),
    revokeRollbackSecret: async ({ req, res, params }) => {
      await revokeRollbackSecret(req.em, await admit(req, res, deps), params.envId, params.id);
      return { status: 204, body: undefined };
    },
    fireFlagRollback: fire('flag'),
    fireConfigRollback: fire('config'),
    listRollbackFires: async ({ req, res, params, query }) => ({ status: 200, body: await listFires(req.em, await admit(req, res, deps), params.envId, {}, query) }),
    listRollbackSecretFires: async ({ req, res, params, query }) => ({
      status: 200,
      body: await listFires(req.em, await admit(req, res, deps), params.envId, { secretId: params.id }, query),
    }),
    listFlagRollbackFires: async ({ req, res, params, query }) => ({
      status: 200,
      body: await listFires(req.em, await admit(req, res, deps), params.envId, { primitiveKind: 'flag', primitiveKey: params.flagKey }, query),
    }),
    listConfigRollbackFires: async ({ req, res, params, query }) => ({
      status: 200,
      body: await listFires(req.em, await admit(req, res, deps), params.envId, { primitiveKind: 'config', primitiveKey: params.configKey }, query),
    }),
  });
};
