import { z } from 'zod';
import { errorResponses } from '../errors.js';
import {
  CreateRollbackSecretRequest,
  FireHistoryQuery,
  MintedRollbackWebhookSecret,
  RollbackFireBody,
  RollbackFirePage,
  RollbackFireResponse,
  RollbackWebhookSecret,
} from '../schemas/rollback.js';
import { c, MutationHeaders, type RouteMetadata } from './common.js';

const history = <P extends string>(path: P, summary: string) =>
  ({
    method: 'GET',
    path,
    summary,
    description: 'Newest first; `limit` 1–200 (default 50); `nextCursor` only when the page is full.',
    query: FireHistoryQuery,
    responses: { 200: RollbackFirePage, ...errorResponses(400, 401, 403, 404) },
  }) as const;

const fire = <P extends string>(path: P, noun: string) =>
  ({
    method: 'POST',
    path,
    summary: `Fire an automatic rollback of a ${noun}'s rollout (for alerting tools)`,
    description:
      'Authenticated by a rollback webhook secret of the environment (`Authorization: Bearer svcrb_…`). Pauses the live rollout at 0% (`auto_rollback`); repeated fires are no-ops. The URL is stable across pauses, resumes and new rollouts. Body optional, at most 16 KiB. Capped at 60 fires a minute per rollout and 300 per secret.',
    body: RollbackFireBody,
    responses: { 200: RollbackFireResponse, ...errorResponses(400, 401, 404, 429) },
    metadata: { auth: 'rollback', optionalBody: true, rawBody: true } satisfies RouteMetadata,
  }) as const;

export const rollbackContract = c.router({
  createRollbackSecret: {
    method: 'POST',
    path: '/envs/:envId/rollback-webhook-secrets',
    summary: 'Mint a rollback webhook secret',
    description: 'Session, admin or owner. At most 20 live secrets per environment (`quota_exceeded`).',
    body: CreateRollbackSecretRequest,
    headers: MutationHeaders,
    responses: { 201: MintedRollbackWebhookSecret, ...errorResponses(400, 401, 403, 404, 409) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  listRollbackSecrets: {
    method: 'GET',
    path: '/envs/:envId/rollback-webhook-secrets',
    summary: 'List the rollback webhook secrets of an environment (revoked included)',
    responses: { 200: z.array(RollbackWebhookSecret), ...errorResponses(401, 403, 404) },
  },
  revokeRollbackSecret: {
    method: 'DELETE',
    path: '/envs/:envId/rollback-webhook-secrets/:id',
    summary: 'Revoke a rollback webhook secret',
    description: 'Session, admin or owner. 204 also when already revoked; the name can then be reused.',
    body: c.noBody(),
    headers: MutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(401, 403, 404) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  fireFlagRollback: fire('/webhooks/rollback/envs/:envId/flags/:key', 'flag'),
  fireConfigRollback: fire('/webhooks/rollback/envs/:envId/configs/:key', 'config'),
  listRollbackFires: history('/envs/:envId/rollback-fires', 'Rollback fire history of an environment'),
  listRollbackSecretFires: history('/envs/:envId/rollback-webhook-secrets/:id/fires', 'Rollback fire history of one secret'),
  listFlagRollbackFires: history('/envs/:envId/flags/:flagKey/rollout/fires', "Rollback fire history of a flag's rollouts"),
  listConfigRollbackFires: history('/envs/:envId/configs/:configKey/rollout/fires', "Rollback fire history of a config's rollouts"),
});
