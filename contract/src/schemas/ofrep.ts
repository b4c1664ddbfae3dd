/**
 * The OpenFeature Remote Evaluation Protocol (OFREP, open-feature/protocol `service/openapi.yaml`,
 * v0.3): the request and response bodies of its two evaluation endpoints and of its event stream.
 * Names follow the protocol's own components; docs/ofrep.md describes how Gradual serves them.
 */
import { z } from 'zod';
import { example, named } from '../openapi-meta.js';
import { JsonValue } from './common.js';
import { EvaluationReason } from './evaluation.js';

/** Flag or flag-set metadata: flat values only, as the protocol allows. */
export const OfrepMetadata = named('OfrepMetadata', z.record(z.union([z.boolean(), z.string(), z.number()])));

export const OfrepContext = example(
  named(
    'OfrepContext',
    z.object({ targetingKey: z.string().max(1024).optional() }).catchall(JsonValue),
    '`targetingKey` is what a rollout buckets on when the context does not carry the rollout\'s own bucket field (e.g. `userId`); the other attributes are what rules match.',
  ),
  { targetingKey: 'user-123', email: 'ann@example.com', plan: 'pro' },
);

export const OfrepEvaluationRequest = example(
  named('OfrepEvaluationRequest', z.object({ context: OfrepContext })),
  { context: { targetingKey: 'user-123', email: 'ann@example.com' } },
);

export const OfrepEvaluationSuccess = example(
  named(
    'OfrepEvaluationSuccess',
    z.object({
      key: z.string(),
      value: JsonValue,
      // DISABLED is OfrepCodeDefault's: an archived flag or config has no value here.
      reason: EvaluationReason.exclude(['DISABLED']),
      variant: z.string(),
      metadata: OfrepMetadata.optional(),
    }),
    '`metadata` carries the flag\'s custom metadata and, with a live rollout, `rolloutPercent` (and `bucket` when the context was bucketed).',
  ),
  { key: 'new-checkout', value: true, reason: 'SPLIT', variant: 'rollout-new', metadata: { owner: 'team-checkout', rolloutPercent: 25, bucket: 12.3456 } },
);

export const OfrepCodeDefault = example(
  named(
    'OfrepCodeDefault',
    z.object({
      key: z.string(),
      reason: z.literal('DISABLED'),
      metadata: OfrepMetadata.optional(),
    }),
    'The protocol\'s `codeDefaultFlag`: an archived flag or config, which the provider answers with the caller\'s default value (no `value`, no `variant`).',
  ),
  { key: 'old-banner', reason: 'DISABLED', metadata: {} },
);

export const OfrepErrorCode = named('OfrepErrorCode', z.enum(['PARSE_ERROR', 'TARGETING_KEY_MISSING', 'INVALID_CONTEXT', 'GENERAL']));

export const OfrepEvaluationFailure = example(
  named(
    'OfrepEvaluationFailure',
    z.object({ key: z.string(), errorCode: OfrepErrorCode, errorDetails: z.string().optional(), metadata: OfrepMetadata.optional() }),
  ),
  { key: 'new-checkout', errorCode: 'TARGETING_KEY_MISSING', errorDetails: 'The rollout of "new-checkout" buckets on "userId"; send it or a targetingKey.' },
);

export const OfrepFlagNotFound = example(
  named(
    'OfrepFlagNotFound',
    z.object({ key: z.string(), errorCode: z.literal('FLAG_NOT_FOUND'), errorDetails: z.string().optional(), metadata: OfrepMetadata.optional() }),
  ),
  { key: 'no-such-flag', errorCode: 'FLAG_NOT_FOUND', errorDetails: 'Flag "no-such-flag" was not found.' },
);

export const OfrepBulkEvaluationFailure = example(
  named('OfrepBulkEvaluationFailure', z.object({ errorCode: OfrepErrorCode, errorDetails: z.string().optional() })),
  { errorCode: 'INVALID_CONTEXT', errorDetails: 'context: Expected object, received string' },
);

export const OfrepEventStream = named(
  'OfrepEventStream',
  z.object({
    type: z.literal('sse'),
    url: z.string().url(),
    inactivityDelaySec: z.number().int().min(1).optional(),
  }),
  'A server-sent event stream announcing changes (OFREP ADR-0008). The URL carries a short-lived ticket for this key and environment: treat it as a secret.',
);

export const OfrepBulkEvaluationSuccess = example(
  named(
    'OfrepBulkEvaluationSuccess',
    z.object({
      flags: z.array(z.union([OfrepEvaluationSuccess, OfrepCodeDefault, OfrepEvaluationFailure])),
      metadata: OfrepMetadata.optional(),
      eventStreams: z.array(OfrepEventStream).optional(),
    }),
    'Every flag and config the key may see, evaluated for one context. `metadata.rulesetVersion` is the environment\'s ruleset version.',
  ),
  {
    flags: [
      { key: 'new-checkout', value: true, reason: 'SPLIT', variant: 'rollout-new', metadata: { owner: 'team-checkout', rolloutPercent: 25, bucket: 12.3456 } },
      { key: 'banner-text', value: 'Hello', reason: 'STATIC', variant: 'default', metadata: {} },
      { key: 'old-banner', reason: 'DISABLED', metadata: {} },
    ],
    metadata: { rulesetVersion: 42 },
    eventStreams: [{ type: 'sse', url: 'https://gradual.example.com/api/v1/ofrep/v1/events?ticket=t1.abc', inactivityDelaySec: 120 }],
  },
);

/** The `data` of each event on the OFREP event stream. */
export const OfrepStreamEvent = named(
  'OfrepStreamEvent',
  z.object({ type: z.literal('refetchEvaluation'), etag: z.string().optional(), lastModified: z.number().int().optional() }),
  '`etag` names the environment\'s new ruleset version; providers pass it back as `flagConfigEtag`.',
);

/** The protocol's 500 body. */
export const OfrepGeneralError = named('OfrepGeneralError', z.object({ errorDetails: z.string().optional() }));
