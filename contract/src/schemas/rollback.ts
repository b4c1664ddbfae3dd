import { z } from 'zod';
import { example, named } from '../openapi-meta.js';
import { Id, Timestamp } from './common.js';
import { PrimitiveKind, RolloutStatus } from './rollouts.js';

export const CreateRollbackSecretRequest = named(
  'CreateRollbackSecretRequest',
  z.object({ name: z.string().trim().min(1).max(64) }),
  'Unique among the live secrets of the environment.',
);

export const RollbackWebhookSecret = named(
  'RollbackWebhookSecret',
  z.object({
    id: Id,
    name: z.string(),
    tokenPrefix: z.string(),
    createdAt: Timestamp,
    lastFiredAt: Timestamp.nullable(),
    revokedAt: Timestamp.nullable(),
  }),
  '`lastFiredAt` is updated at most once a minute per secret.',
);

export const MintedRollbackWebhookSecret = named(
  'MintedRollbackWebhookSecret',
  RollbackWebhookSecret.extend({ token: example(z.string(), 'svcrb_3kTf0P2qLw8ZxYb1Nc4Vd7Hs9Ja6Me5R'), warning: z.string() }),
  'The raw `token` (svcrb_ + 32 characters) is returned once, here; only its SHA-256 is stored.',
);

export const RollbackFireOutcome = named(
  'RollbackFireOutcome',
  z.enum([
    'transitioned',
    'noop_already_rolled_back',
    'noop_terminal_state',
    'error_unauthorized',
    'error_not_found',
    'error_rate_limited',
    'error_invalid_request',
  ]),
);

export const RollbackFireEvent = named(
  'RollbackFireEvent',
  z.object({
    id: Id,
    rolloutId: Id.nullable(),
    secretId: Id.nullable(),
    secretName: z.string().nullable(),
    primitiveKind: PrimitiveKind,
    primitiveKey: z.string(),
    outcome: RollbackFireOutcome,
    sourceIp: z.string(),
    parsedMonitorUrl: z.string().nullable(),
    payloadFingerprint: z.string(),
    firedAt: Timestamp,
  }),
  '`payloadFingerprint` is the hex SHA-256 of the raw request body.',
);

export const RollbackFirePage = named(
  'RollbackFirePage',
  z.object({ fires: z.array(RollbackFireEvent), nextCursor: z.string().optional() }),
  'Newest first; `nextCursor` is present only when the page is full.',
);

export const FireHistoryQuery = z.object({
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const RollbackFireResponse = named(
  'RollbackFireResponse',
  z.object({ noop: z.boolean(), currentStatus: RolloutStatus, newStatus: RolloutStatus.optional() }),
  '`currentStatus` is the status when the fire arrived; `newStatus` (omitted on a no-op) the status after it.',
);

/** Optional alert payload: any JSON, up to 16 KiB. Alert URLs are read from known shapes. */
export const RollbackFireBody = named(
  'RollbackFireBody',
  z.record(z.unknown()).optional(),
  'Optional. Alertmanager and Grafana (`alerts[0].generatorURL`), PagerDuty v3 (`event.data.html_url`) and generic (`alert_url`, legacy `link`) payloads have their alert URL recorded; any other body is accepted.',
);

export { AutoRollbackInfoRef as AutoRollbackInfo } from './rollouts.js';
