import { z } from 'zod';
import { errorResponses } from '../errors.js';
import { EvaluateRequest, EvaluateResponse, Ruleset } from '../schemas/evaluation.js';
import { c, ConditionalGetHeaders, serializable, type RouteMetadata } from './common.js';

export const evaluationContract = c.router({
  getRuleset: {
    method: 'GET',
    path: '/envs/:envId/ruleset',
    summary: 'The ruleset an SDK evaluates locally',
    description:
      'Gzip when accepted, strong ETag, `If-None-Match` → 304. `503 ruleset_not_cached` (with `Retry-After: 1`) until the environment’s first write.',
    headers: ConditionalGetHeaders,
    responses: { 200: serializable(Ruleset), 304: c.noBody(), ...errorResponses(401, 403, 404, 503) },
    metadata: { etag: true } satisfies RouteMetadata,
  },
  streamRuleset: {
    method: 'GET',
    path: '/envs/:envId/ruleset/stream',
    summary: 'Server-sent events announcing each new ruleset version',
    description:
      'An event `ruleset` with data `{"version": n}` on connect and after every committed write in the environment, from any server instance; a comment heartbeat every 15 s.',
    responses: {
      200: c.otherResponse({ contentType: 'text/event-stream', body: serializable(z.string()) }),
      ...errorResponses(401, 403, 404),
    },
  },
  evaluate: {
    method: 'POST',
    path: '/envs/:envId/evaluate',
    summary: 'Evaluate flags and configs for one context on the server',
    description: 'Uses the same evaluator as the SDK’s local evaluation.',
    body: EvaluateRequest,
    responses: { 200: EvaluateResponse, ...errorResponses(400, 401, 403, 404) },
  },
});
