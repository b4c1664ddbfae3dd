import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import type { Request } from 'express';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { callerOf } from '../../http/caller.js';
import type { AppDeps } from '../../http/deps.js';
import { fireRollback } from './fire.service.js';
import { listFires } from './history.service.js';
import { listRollbackSecrets, mintRollbackSecret, revokeRollbackSecret } from './secrets.service.js';

const s = initServer();

export const rollbackRoutes = (deps: AppDeps) => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const fire = (kind: PrimitiveKind) => async ({ req, params }: { req: Request<any, any, any, any>; params: { envId: string; key: string } }) => ({
    status: 200 as const,
    body: await fireRollback(
      { em: req.em, bus: deps.bus, limits: deps.limits, logger: req.log, metrics: deps.metrics },
      {
        envId: params.envId,
        kind,
        key: params.key,
        authorization: req.headers.authorization,
        body: req.fireBody?.bytes ?? Buffer.alloc(0),
        tooLarge: req.fireBody?.tooLarge ?? false,
        contentType: req.headers['content-type'],
        sourceIp: req.ip ?? req.socket.remoteAddress ?? '',
        now: deps.clock.now(),
      },
    ),
  });
  return s.router(contract.rollback, {
    createRollbackSecret: async ({ req, params, body }) => ({
      status: 201,
      body: await mintRollbackSecret(req.em, await callerOf(req, deps), params.envId, body.name),
    }),
    listRollbackSecrets: async ({ req, params }) => ({ status: 200, body: await listRollbackSecrets(req.em, await callerOf(req, deps), params.envId) }),
    revokeRollbackSecret: async ({ req, params }) => {
      await revokeRollbackSecret(req.em, await callerOf(req, deps), params.envId, params.id);
      return { status: 204, body: undefined };
    },
    fireFlagRollback: fire('flag'),
    fireConfigRollback: fire('config'),
    listRollbackFires: async ({ req, params, query }) => ({ status: 200, body: await listFires(req.em, await callerOf(req, deps), params.envId, {}, query) }),
    listRollbackSecretFires: async ({ req, params, query }) => ({
      status: 200,
      body: await listFires(req.em, await callerOf(req, deps), params.envId, { secretId: params.id }, query),
    }),
    listFlagRollbackFires: async ({ req, params, query }) => ({
      status: 200,
      body: await listFires(req.em, await callerOf(req, deps), params.envId, { primitiveKind: 'flag', primitiveKey: params.flagKey }, query),
    }),
    listConfigRollbackFires: async ({ req, params, query }) => ({
      status: 200,
      body: await listFires(req.em, await callerOf(req, deps), params.envId, { primitiveKind: 'config', primitiveKey: params.configKey }, query),
    }),
  });
};
