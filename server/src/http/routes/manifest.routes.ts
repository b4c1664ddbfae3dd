import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { notModified } from '../etag.js';
import { createSyncFlag, getManifest, getSyncManifest, updateSyncFlag } from '../../features/primitives/manifest.service.js';

const s = initServer();

/** The project's flags as an OpenFeature flag manifest, and the OpenFeature CLI's pull and push (docs/typed-flags.md). */
export const manifestRoutes = (deps: AppDeps) =>
  s.router(contract.manifest, {
    getManifest: async ({ req, res, params }) => {
      const body = await getManifest(req.em, await admit(req, res, deps), params.id);
      return notModified(req, res, body) ? { status: 304 as const, body: undefined } : { status: 200 as const, body };
    },
    syncGetManifest: async ({ req, res, params }) => ({ status: 200, body: await getSyncManifest(req.em, await admit(req, res, deps), params.id) }),
    syncCreateFlag: async ({ req, res, params, body }) => ({
      status: 201,
      body: await createSyncFlag(req.em, await admit(req, res, deps), deps.bus, params.id, body),
    }),
    syncUpdateFlag: async ({ req, res, params, body }) => ({
      status: 200,
      body: await updateSyncFlag(req.em, await admit(req, res, deps), deps.bus, params.id, params.key, body),
    }),
  });
