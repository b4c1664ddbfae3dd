import { z } from 'zod';
import { ErrorEnvelope } from '../errors.js';
import {
  OfrepBulkEvaluationFailure,
  OfrepBulkEvaluationSuccess,
  OfrepCodeDefault,
  OfrepEvaluationFailure,
  OfrepEvaluationRequest,
  OfrepEvaluationSuccess,
  OfrepFlagNotFound,
  OfrepGeneralError,
} from '../schemas/ofrep.js';
import { c, ConditionalGetHeaders, serializable, type RouteMetadata } from './common.js';

/**
 * The OpenFeature Remote Evaluation Protocol, served under the API prefix: an OFREP provider's
 * `baseUrl` is the server's address followed by `/api/v1`. The environment comes from the API key
 * (`Authorization: Bearer …` or `X-API-Key: …`): an SDK or client key, or any key restricted to
 * exactly one environment. Client keys see only client-visible flags and configs.
 */
const credentialErrors = { 401: ErrorEnvelope, 403: ErrorEnvelope, 429: ErrorEnvelope, 500: OfrepGeneralError } as const;

export const ofrepContract = c.router({
  ofrepEvaluateFlag: {
    method: 'POST',
    path: '/ofrep/v1/evaluate/flags/:key',
    summary: 'OFREP: evaluate one flag or config for a context',
    description:
      'Same evaluator as `POST /envs/{envId}/evaluate` and the SDK\'s local evaluation. `400` with an OFREP `errorCode`: `PARSE_ERROR` (not JSON), `INVALID_CONTEXT` (the context is not an object of JSON values), `TARGETING_KEY_MISSING` (a live rollout buckets on an attribute the context lacks, and it has no `targetingKey`). `404 FLAG_NOT_FOUND` for a key the API key cannot see. An archived flag or config answers `200` with reason `DISABLED` and no value (the protocol\'s `codeDefaultFlag`): the provider serves the caller\'s default. `401`/`403`/`429` carry the API\'s error envelope.',
    body: OfrepEvaluationRequest,
    responses: { 200: z.union([OfrepEvaluationSuccess, OfrepCodeDefault]), 400: OfrepEvaluationFailure, 404: OfrepFlagNotFound, ...credentialErrors },
    metadata: { auth: 'apiKey' } satisfies RouteMetadata,
  },
  ofrepEvaluateFlags: {
    method: 'POST',
    path: '/ofrep/v1/evaluate/flags',
    summary: 'OFREP: evaluate every flag and config for a context',
    description:
      'Strong `ETag` (the ruleset version, the key\'s view and the context); `If-None-Match` → `304`. `eventStreams` names a server-sent event stream that announces each new ruleset version with a `refetchEvaluation` event. A flag that cannot be evaluated for this context is an `OfrepEvaluationFailure` item; a context that is not an object is `400 INVALID_CONTEXT`.',
    headers: ConditionalGetHeaders,
    query: z.object({
      flagConfigEtag: z.string().max(512).optional(),
      flagConfigLastModified: z.string().max(64).optional(),
    }),
    body: OfrepEvaluationRequest,
    responses: { 200: serializable(OfrepBulkEvaluationSuccess), 304: c.noBody(), 400: OfrepBulkEvaluationFailure, ...credentialErrors },
    metadata: { auth: 'apiKey', etag: true } satisfies RouteMetadata,
  },
  ofrepEventStream: {
    method: 'GET',
    path: '/ofrep/v1/events',
    summary: 'OFREP: server-sent events announcing changes to the bulk evaluation',
    description:
      'The URL comes from a bulk evaluation\'s `eventStreams`; its `ticket` stands for the API key and environment (EventSource cannot send headers) and expires after an hour. On connect and after every committed write in the environment: an unnamed event whose data is `{"type":"refetchEvaluation","etag":"…"}`. Shares the ruleset streams\' caps; ends when the key is revoked. `401` for an expired or forged ticket.',
    query: z.object({ ticket: z.string().min(1).max(512) }),
    responses: {
      200: c.otherResponse({ contentType: 'text/event-stream', body: serializable(z.string()) }),
      400: ErrorEnvelope,
      401: ErrorEnvelope,
      403: ErrorEnvelope,
      429: ErrorEnvelope,
    },
    metadata: { auth: 'public' } satisfies RouteMetadata,
  },
});
