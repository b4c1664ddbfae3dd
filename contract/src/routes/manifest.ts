import { errorResponses } from '../errors.js';
import { OpenFeatureManifest, SyncCreateFlagRequest, SyncFlagResponse, SyncManifest, SyncUpdateFlagRequest } from '../schemas/manifest.js';
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
  syncGetManifest: {
    method: 'GET',
    path: '/projects/:id/openfeature/v0/manifest',
    summary: 'OpenFeature CLI pull: the project\'s flags',
    description:
      'The OpenFeature CLI\'s Manifest Management API (`openfeature pull --provider-url <server>/api/v1/projects/<id>`): the live flags and configs the caller may read, as a list. Errors carry Gradual\'s envelope.',
    responses: { 200: SyncManifest, ...errorResponses(401, 403, 404) },
  },
  syncCreateFlag: {
    method: 'POST',
    path: '/projects/:id/openfeature/v0/manifest/flags',
    summary: 'OpenFeature CLI push: create a flag',
    description: 'Creates a flag or config (`object`) in every environment, as `POST /projects/{id}/flags` does. A key taken by a flag or a config, archived or not, answers `409 key_in_use`.',
    body: SyncCreateFlagRequest,
    responses: { 201: SyncFlagResponse, ...errorResponses(401, 403, 404, 409) },
  },
  syncUpdateFlag: {
    method: 'PUT',
    path: '/projects/:id/openfeature/v0/manifest/flags/:key',
    summary: 'OpenFeature CLI push: update a flag',
    description: 'Changes the name and description (as `PATCH` does); a different type or default value answers `409 definition_fixed`, an archived one `409 primitive_archived`.',
    body: SyncUpdateFlagRequest,
    responses: { 200: SyncFlagResponse, ...errorResponses(401, 403, 404, 409) },
  },
});
