import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { listApiKeys, mintApiKey, revokeApiKey } from '../../features/api-keys/api-keys.service.js';
import type { PreflightOrigins } from '../cors.js';

const s = initServer();

export const apiKeysRoutes = (deps: AppDeps, preflights: Pick<PreflightOrigins, 'clientKeyMinted'>) =>
  s.router(contract.apiKeys, {
    createApiKey: async ({ req, res, params, body }) => {
      const minted = await mintApiKey(req.em, await admit(req, res, deps), params.slug, body);
      // Its pages' preflights are granted at once on this instance (http/cors.ts).
      if (minted.allowedOrigins) preflights.clientKeyMinted();
      return { status: 201, body: minted };
    },
    listApiKeys: async ({ req, res, params }) => ({ status: 200, body: await listApiKeys(req.em, await admit(req, res, deps), params.slug) }),
    revokeApiKey: async ({ req, res, params }) => {
      await revokeApiKey(req.em, await admit(req, res, deps), params.slug, params.id);
      deps.apiKeys.forgetKey(params.id);
      deps.streams.endKey(params.id); // its open streams end here at once (other instances: their next re-check)
      return { status: 204, body: undefined };
    },
  });
