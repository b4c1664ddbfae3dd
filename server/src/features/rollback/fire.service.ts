import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { KEY_MAX_LENGTH, RECORDED_KEY_MAX_LENGTH } from '@gradual/contract';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../../metrics/metrics.js';
import {
  EnvironmentEntity,
  PrimitiveEntity,
  RollbackFireEntity,
  RollbackSecretEntity,
  type Environment,
  type PrimitiveKind,
  type RollbackOutcome,
  type RollbackSecret,
} from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { digestsEqual, hashToken } from '../../domain/secrets.js';
import type { RolloutStatus } from '../../domain/rollouts/types.js';
import type { AuthFailures } from '../../rate-limits/auth-failures.js';
import { clientAddressKey } from '../../rate-limits/client-address.js';
import type { RateLimits } from '../../rate-limits/rate-limits.js';
import { changeEnvironments, type EnvChangeBus } from '../environments/env-changes.js';
import { stopAutomatically } from '../rollouts/automatic-stop.js';
import { findCurrentRollout } from '../rollouts/rollouts.store.js';
import { isUuid } from '../common/lookup.js';
import { parseMonitorUrl } from './alert-url.js';

export const MAX_FIRE_BODY_BYTES = 16_384;
export const FIRES_PER_ROLLOUT_PER_MINUTE = 60;
export const FIRES_PER_SECRET_PER_MINUTE = 300;
const LAST_FIRED_RESOLUTION_MS = 60_000;
export interface FireRequest {
  envId: string;
  kind: PrimitiveKind;
  key: string;
  authorization: string | undefined;
  /** The raw body as read (empty when absent or when it was too large to read). */
  body: Buffer;
  tooLarge: boolean;
  contentType: string | undefined;
  sourceIp: string;
  now: Date;
}

/** Failed authentication per client address (AUTH_FAILURES_PER_IP_PER_MIN), as the HTTP edge counts it for every credential. */
export interface FireThrottle {
  failures: AuthFailures;
  perMinute: number;
}

export interface FireDeps {
  em: EntityManager;
  bus: EnvChangeBus;
  limits: RateLimits;
  logger: Logger;
  metrics?: ServiceMetrics;
  throttle: FireThrottle;
}

export interface FireResponse {
  noop: boolean;
  currentStatus: RolloutStatus;
  newStatus?: RolloutStatus;
}

const TOKEN = /^Bearer\s+(svcrb_[A-Za-z0-9]{32})\s*$/;

/** The SHA-256 of the secret the header presents (of the empty string when it presents none). */
function presentedHash(authorization: string | undefined): { presented: string; hash: string } {
  const presented = TOKEN.exec(authorization ?? '')?.[1] ?? '';
  return { presented, hash: hashToken(presented) };
}

/**
 * Always hashes and looks up, whatever the header holds, and answers the same
 * way for a missing, malformed, unknown, revoked or other-environment secret,
 * so neither the answer nor its timing tells them apart.
 */
async function authenticate(em: EntityManager, { presented, hash }: { presented: string; hash: string }, envId: string): Promise<RollbackSecret | null> {
  const secret = await em.findOne(RollbackSecretEntity, { tokenHash: hash });
  const matches = secret !== null && digestsEqual(secret.tokenHash, hash);
  return matches && presented !== '' && !secret.revokedAt && secret.envId === envId ? secret : null;
}

/** The alert payload, if readable. A body declared as JSON that does not parse is unreadable. */
function readPayload(body: Buffer, contentType: string | undefined): { ok: boolean; payload: unknown } {
  if (body.length === 0) return { ok: true, payload: undefined };
  const declaredJson = !contentType || /json/i.test(contentType);
  try {
    return { ok: true, payload: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: !declaredJson, payload: undefined };
  }
}

/**
 * POST /webhooks/rollback/envs/{envId}/{flags|configs}/{key}: pauses the live
 * rollout at 0% (auto_rollback). Checks run in this order: the client address's failed
 * authentications, secret, body, rollout, rate limits. Every fire that gets past the first
 * check — whatever its outcome — leaves one record; a wrong secret or an unknown environment
 * counts as a failed authentication of its client address (rate-limits/auth-failures.ts), and an
 * address with too many is refused (429 rollback_rate_limited) before any lookup or record,
 * unless its secret succeeded on this instance within the hour.
 * A transitioned fire commits the rollout, the env version bump, the audit row (actor
 * rollback_webhook, reason rollout:auto_rollback, its newValue the rollout whose lastAutoRollback
 * names the secret and the alert's link) and its fire record together, then reaches live SDK
 * streams like any other write.
 */
export async function fireRollback(deps: FireDeps, req: FireRequest): Promise<FireResponse> {
  const { em } = deps;
  const { failures, perMinute } = deps.throttle;
  const address = clientAddressKey(req.sourceIp);
  const credential = presentedHash(req.authorization);
  const throttled = failures.throttledFor(address, req.now.getTime());
  if (throttled > 0 && !failures.isVouched(credential.hash, req.now.getTime())) {
    deps.metrics?.rollbackFires.inc({ outcome: 'error_rate_limited' });
    throw new DomainError('rollback_rate_limited', 'Too many failed authentications from this address; retry later.', {
      retryAfterSeconds: throttled,
      details: { retryAfterSeconds: throttled },
    });
  }
  const fingerprint = createHash('sha256').update(req.body).digest('hex');
  const env: Environment | null = isUuid(req.envId) ? await em.findOne(EnvironmentEntity, { id: req.envId }) : null;
  const base = {
    orgId: env?.orgId ?? null,
    envId: req.envId,
    primitiveKind: req.kind,
    primitiveKey: req.key.slice(0, RECORDED_KEY_MAX_LENGTH),
    sourceIp: req.sourceIp,
    payloadFingerprint: fingerprint,
    firedAt: req.now,
  };
  /**
   * A fire that moved no rollout leaves its record and no audit row: it is announced on the
   * organization stream as an org-change of its environment (`rollback.fired`), so an open fire
   * history shows it as it shows the fires that roll back.
   */
  const announce = () => {
    if (!env) return;
    deps.bus.publishOrg({ orgId: env.orgId, projectId: env.projectId, envId: env.id, changes: [{ resourceType: 'rollout', resourceKey: base.primitiveKey, action: 'rollback.fired' }] });
  };
  const record = async (outcome: RollbackOutcome, extra: { secret?: RollbackSecret; rolloutId?: string; monitorUrl?: string | null } = {}) => {
    deps.metrics?.rollbackFires.inc({ outcome });
    if (!isUuid(req.envId)) return; // nothing to attach the record to
    const fork = em.fork();
    fork.create(RollbackFireEntity, {
      ...base,
      outcome,
      rolloutId: extra.rolloutId ?? null,
      secretId: extra.secret?.id ?? null,
      secretName: extra.secret?.name ?? null,
      parsedMonitorUrl: extra.monitorUrl ?? null,
    });
    await fork.flush();
    announce();
  };

  const secret = await authenticate(em, credential, req.envId);
  if (!secret || !env) {
    await failures.fail(address, perMinute, req.now.getTime());
    await record('error_unauthorized');
    throw new DomainError('rollback_unauthorized', 'Missing, invalid, revoked or wrong-environment rollback secret.');
  }
  failures.vouch(credential.hash, req.now.getTime());
  await touchLastFired(em, secret, req.now);
  if (req.tooLarge) {
    await record('error_invalid_request', { secret });
    throw new DomainError('invalid_request', `The body is larger than ${MAX_FIRE_BODY_BYTES} bytes.`, { fields: { body: 'at most 16 KiB' }, closeConnection: true });
  }
  const { ok, payload } = readPayload(req.body, req.contentType);
  if (!ok) {
    await record('error_invalid_request', { secret });
    throw new DomainError('invalid_request', 'The body is declared as JSON but is not valid JSON.', { fields: { body: 'unreadable' } });
  }
  const monitorUrl = parseMonitorUrl(payload);

  const primitive = req.key.length <= KEY_MAX_LENGTH ? await em.findOne(PrimitiveEntity, { projectId: env.projectId, kind: req.kind, key: req.key }) : null;
  const current = primitive ? await findCurrentRollout(em, env.id, primitive.id) : null;
  if (!primitive || !current) {
    await record('error_not_found', { secret, monitorUrl });
    throw new DomainError('rollback_rollout_not_found', `No ${req.kind} "${req.key}" with a rollout in this environment.`);
  }

  const perSecret = await deps.limits.consume('rollback-secret', secret.id, FIRES_PER_SECRET_PER_MINUTE, 60);
  const perRollout = perSecret.allowed ? await deps.limits.consume('rollback-rollout', current.id, FIRES_PER_ROLLOUT_PER_MINUTE, 60) : perSecret;
  if (!perRollout.allowed) {
    await record('error_rate_limited', { secret, rolloutId: current.id, monitorUrl });
    const retryAfter = perRollout.resetSeconds;
    throw new DomainError('rollback_rate_limited', 'Too many rollback fires; retry later.', {
      retryAfterSeconds: retryAfter,
      details: { retryAfterSeconds: retryAfter },
    });
  }

  let settled!: RollbackOutcome;
  const response = await changeEnvironments(em, deps.bus, req.now, async (changes) => {
    const { tx } = changes;
    // The row lock makes concurrent fires take turns: exactly one transitions, the rest see it paused.
    const row = (await findCurrentRollout(tx, env.id, primitive.id, true))!;
    const currentStatus = row.status;
    const transition = await stopAutomatically(changes, req.now, row, primitive, { by: 'alert', secret, monitorUrl });
    const outcome: RollbackOutcome = transition.changed ? 'transitioned' : currentStatus === 'paused' ? 'noop_already_rolled_back' : 'noop_terminal_state';
    tx.create(RollbackFireEntity, { ...base, outcome, rolloutId: row.id, secretId: secret.id, secretName: secret.name, parsedMonitorUrl: monitorUrl });
    settled = outcome;
    return transition.changed ? { noop: false, currentStatus, newStatus: row.status } : { noop: true, currentStatus };
  });
  deps.metrics?.rollbackFires.inc({ outcome: settled });
  if (settled !== 'transitioned') announce();
  return response;
}

/** lastFiredAt moves at most once a minute per secret: one conditional UPDATE, no read-modify-write race. */
async function touchLastFired(em: EntityManager, secret: RollbackSecret, now: Date): Promise<void> {
  if (secret.lastFiredAt && now.getTime() - secret.lastFiredAt.getTime() < LAST_FIRED_RESOLUTION_MS) return;
  await em.nativeUpdate(
    RollbackSecretEntity,
    { id: secret.id, $or: [{ lastFiredAt: null }, { lastFiredAt: { $lte: new Date(now.getTime() - LAST_FIRED_RESOLUTION_MS) } }] },
    { lastFiredAt: now },
  );
}
