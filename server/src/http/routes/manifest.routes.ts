import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { notModified } from '../etag.js';
import { getManifest } from '../../features/primitives/manifest.service.js';

const s = initServer();

/** The project's flags as an OpenFeature flag manifest (docs/typed-flags.md). */
export const manifestRoutes = (deps: AppDeps) =>
  s.router(contract.manifest, {
    getManifest: async ({ req, res, params }) => {
      const body = await getManifest(req.em, await admit(req, res, deps), params.id);
      return notModified(req, res, body) ? { status: 304 as const, body: undefined } : { status: 200 as const, body };
    },
  });
