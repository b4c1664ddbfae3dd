import { errorResponses } from '../errors.js';
import { OpenFeatureManifest } from '../schemas/manifest.js';
import { c, ConditionalGetHeaders, type RouteMetadata } from './common.js';

export const manifestContract = c.router({
  getManifest: {
    method: 'GET',
    path: '/projects/:id/manifest',
    summary: 'The project\'s flags as an OpenFeature flag manifest',
    description:
      'Every live (not archived) flag and config of the project the caller may read, keyed by key, in the OpenFeature CLI\'s manifest format with Gradual\'s fields under `x-gradual`; `gradual types` generates typed accessors from it. A key restricted to resources sees only the keys its globs match. Sends a strong ETag; `If-None-Match` answers 304.',
    headers: ConditionalGetHeaders,
    responses: { 200: OpenFeatureManifest, 304: c.noBody(), ...errorResponses(401, 403, 404) },
    metadata: { etag: true } satisfies RouteMetadata,
  },
});
