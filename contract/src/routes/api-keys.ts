import { z } from 'zod';
import { errorResponses } from '../errors.js';
import { ApiKey, CreateApiKeyRequest, MintedApiKey } from '../schemas/api-keys.js';
import { c, MutationHeaders, type RouteMetadata } from './common.js';

export const apiKeysContract = c.router({
  createApiKey: {
    method: 'POST',
    path: '/orgs/:slug/api-keys',
    summary: 'Mint an API key',
    description: 'Session, admin or owner. The raw token is in this response only.',
    body: CreateApiKeyRequest,
    headers: MutationHeaders,
    responses: { 201: MintedApiKey, ...errorResponses(400, 401, 403, 404) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  listApiKeys: {
    method: 'GET',
    path: '/orgs/:slug/api-keys',
    summary: 'List API keys (revoked included, never a token)',
    responses: { 200: z.array(ApiKey), ...errorResponses(401, 403, 404) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  revokeApiKey: {
    method: 'DELETE',
    path: '/orgs/:slug/api-keys/:id',
    summary: 'Revoke an API key',
    description: 'Idempotent: 204 also when already revoked.',
    body: c.noBody(),
    headers: MutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(401, 403, 404) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
});
