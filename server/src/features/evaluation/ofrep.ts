/**
 * The OpenFeature Remote Evaluation Protocol (docs/ofrep.md), as pure functions: which environment
 * an API key evaluates, evaluation results as OFREP bodies, the bulk evaluation's ETag, and the
 * signed tickets of its event stream. The routes are http/routes/ofrep.routes.ts.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import type { OfrepBulkEvaluationSuccess, OfrepCodeDefault, OfrepEvaluationFailure, OfrepEvaluationSuccess, OfrepFlagNotFound, Ruleset } from '@gradual/contract';
import { isLiveStatus, valueKey, withTargetingKey, type EvaluationBranch, type EvaluationContext, type EvaluationResult, type FlagMetadata, type PrimitiveKind } from '@gradual/sdk/evaluation';
import { DomainError } from '../../domain/errors.js';
import type { Caller } from '../access/authorize.js';
import type { CachedRuleset } from './ruleset.cache.js';

type Success = z.infer<typeof OfrepEvaluationSuccess>;
type CodeDefault = z.infer<typeof OfrepCodeDefault>;
type Failure = z.infer<typeof OfrepEvaluationFailure>;
type NotFound = z.infer<typeof OfrepFlagNotFound>;
type Bulk = z.infer<typeof OfrepBulkEvaluationSuccess>;

/** An OFREP context: the attributes rules match, and `targetingKey`. */
export type OfrepContext = { targetingKey?: string | undefined } & Record<string, unknown>;

/** How long an event-stream ticket lasts. */
export const TICKET_LIFETIME_MS = 3600_000;
/** The `inactivityDelaySec` of the bulk evaluation's event stream: a provider idle this long closes it. */
export const OFREP_INACTIVITY_DELAY_SEC = 120;

/**
 * The environment an OFREP request evaluates: the one environment its API key is bound to. No
 * credentials: 401; a session, or a key with no, several or unrestricted environments: 403
 * scope_denied.
 */
export function ofrepEnvironment(caller: Caller): string {
  const principal = caller.principal;
  if (!principal) throw new DomainError('unauthorized', 'Send an API key (Authorization: Bearer … or X-API-Key).');
  const environments = principal?.kind === 'token' ? principal.key.environments : null;
  if (!environments || environments.length !== 1) {
    throw new DomainError('scope_denied', 'OFREP needs an API key bound to exactly one environment (an SDK or client key, or a key restricted to one environment).');
  }
  return environments[0]!;
}

/** The context a primitive is evaluated with: `targetingKey` stands in for its rollout's bucket field (the SDK's own rule). */
function contextFor(primitive: Ruleset['primitives'][number], context: OfrepContext): EvaluationContext {
  return withTargetingKey(context, primitive.rollout?.bucketField, context.targetingKey);
}

/** Why a primitive cannot be evaluated for `context`: its live rollout buckets on an attribute the context lacks, and it has no `targetingKey`. */
function targetingKeyMissing(primitive: Ruleset['primitives'][number], context: OfrepContext): string | null {
  const rollout = primitive.rollout;
  if (!rollout || !isLiveStatus(rollout.status) || context.targetingKey !== undefined || context[rollout.bucketField] != null) return null;
  return `The rollout of "${primitive.key}" buckets on "${rollout.bucketField}"; send it or a targetingKey.`;
}

/**
 * An evaluation as OFREP answers it: the value, or for an archived primitive the protocol's
 * `codeDefaultFlag` (reason DISABLED, no value: the provider serves the caller's default). The
 * metadata is the primitive's own, with the live rollout's percent and the context's bucket.
 */
function success(key: string, result: EvaluationResult, custom: FlagMetadata): Success | CodeDefault {
  const metadata: Record<string, string | number | boolean> = { ...custom };
  if (result.rolloutPercent !== null) metadata.rolloutPercent = result.rolloutPercent;
  if (result.bucket !== null) metadata.bucket = result.bucket;
  if (result.reason === 'DISABLED') return { key, reason: 'DISABLED', metadata };
  return { key, value: result.value ?? null, reason: result.reason, variant: result.variant, metadata };
}

/** What one answer served, for usage: each flag or config evaluated with the branch that served it (failures serve none). */
export type Served = Array<{ kind: PrimitiveKind; key: string; branch: EvaluationBranch }>;

/**
 * One primitive of `entry` for `context`: a success, a failure (TARGETING_KEY_MISSING), or null
 * when there is no such primitive; a success is added to `served`.
 */
function evaluateKey(
  entry: CachedRuleset,
  index: ReadonlyMap<string, Ruleset['primitives'][number]>,
  key: string,
  context: OfrepContext,
  served: Served,
): Success | CodeDefault | Failure | null {
  const primitive = index.get(key);
  const compiled = entry.compiled().primitive(key);
  if (!primitive || !compiled) return null;
  const missing = targetingKeyMissing(primitive, context);
  if (missing) return { key, errorCode: 'TARGETING_KEY_MISSING', errorDetails: missing };
  const result = compiled.evaluate(contextFor(primitive, context));
  if (result.reason === 'ERROR') {
    return { key, errorCode: 'GENERAL', errorDetails: `The rules of "${key}" need more than the evaluation's work budget.` };
  }
  served.push({ kind: result.kind, key, branch: result.branch });
  return success(key, result, compiled.metadata);
}

/** Primitives by key (the first of a repeated key wins, as in the compiled ruleset), per materialized ruleset. */
const indexes = new WeakMap<CachedRuleset, Map<string, Ruleset['primitives'][number]>>();
function indexOf(entry: CachedRuleset): Map<string, Ruleset['primitives'][number]> {
  let index = indexes.get(entry);
  if (!index) {
    index = new Map();
    for (const p of entry.ruleset.primitives) if (!index.has(p.key)) index.set(p.key, p);
    indexes.set(entry, index);
  }
  return index;
}

/**
 * The single evaluation's answer: 200, 400 TARGETING_KEY_MISSING or 404 FLAG_NOT_FOUND (also
 * before the environment's first write), and what it served.
 */
export function evaluateFlag(
  entry: CachedRuleset | null,
  key: string,
  context: OfrepContext,
): { answer: { status: 200; body: Success | CodeDefault } | { status: 400; body: Failure } | { status: 404; body: NotFound }; served: Served } {
  const served: Served = [];
  const result = entry ? evaluateKey(entry, indexOf(entry), key, context, served) : null;
  if (!result) return { answer: { status: 404, body: { key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `Flag "${key}" was not found.` } }, served };
  return { answer: 'errorCode' in result ? { status: 400, body: result } : { status: 200, body: result }, served };
}

/**
 * The bulk evaluation's flags and metadata: every primitive of `entry` (none before the
 * environment's first write), and what they served.
 */
export function evaluateFlags(entry: CachedRuleset | null, context: OfrepContext): { body: Pick<Bulk, 'flags' | 'metadata'>; served: Served } {
  const served: Served = [];
  if (!entry) return { body: { flags: [], metadata: { rulesetVersion: 0 } }, served };
  const index = indexOf(entry);
  const flags: Bulk['flags'] = [];
  for (const key of entry.compiled().keys) {
    const result = evaluateKey(entry, index, key, context, served);
    if (result) flags.push(result);
  }
  return { body: { flags, metadata: { rulesetVersion: entry.version } }, served };
}

/**
 * The bulk evaluation's strong ETag: the ruleset version, and a digest of the API key, the keys of
 * the primitives it sees and the context (canonical JSON: object members sorted). The same key and
 * context at the same version get the same answer.
 */
export function bulkEtag(entry: CachedRuleset | null, keyId: string, context: OfrepContext): string {
  const hash = createHash('sha1').update(keyId).update('\n');
  if (entry) for (const key of entry.compiled().keys) hash.update(key).update('\n');
  hash.update(canonicalJson(context));
  return `"${entry?.version ?? 0}-${hash.digest('base64url')}"`;
}

/** JSON with object members in key order, so equal contexts give equal text whatever order they were sent in. */
export const canonicalJson = (value: unknown): string => valueKey(value) ?? 'null';

/**
 * Event-stream tickets: `t1.<payload>.<signature>`, the payload `keyId.envId.expiry` (Unix
 * seconds) in base64url and the signature its HMAC-SHA256, base64url. The HMAC key is derived from
 * the API key's stored token hash: only the server holds it (and the key's holder, who may mint
 * tickets anyway by calling the bulk evaluation), every instance can verify it, and a ticket
 * names one key and environment. Revoking or expiring the key ends its tickets.
 */
const TICKET = /^t1\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function ticketSignature(tokenHash: string, payload: string): Buffer {
  return createHmac('sha256', `gradual-ofrep-ticket:${tokenHash}`).update(payload).digest();
}

/** When a ticket signed at `now` expires, in whole seconds (tickets signed within one second are the same). */
export function ticketExpiry(now: Date): number {
  return Math.floor((now.getTime() + TICKET_LIFETIME_MS) / 1000);
}

export function signTicket(key: { id: string; tokenHash: string; kind: string }, envId: string, now: Date): string {
  const expiry = ticketExpiry(now);
  // A client key's tickets say so (`.c`): its streams are capped per client address, before any lookup.
  const payload = `${key.id}.${envId}.${expiry}${key.kind === 'client' ? '.c' : ''}`;
  return `t1.${Buffer.from(payload).toString('base64url')}.${ticketSignature(key.tokenHash, payload).toString('base64url')}`;
}

/** What a ticket claims, before its signature is checked (null when it is not a ticket). */
export interface TicketClaim {
  keyId: string;
  /** Signed for a public client key. */
  clientKey: boolean;
  envId: string;
  expiresAt: Date;
  payload: string;
  signature: Buffer;
}

export function readTicket(ticket: string): TicketClaim | null {
  const match = TICKET.exec(ticket);
  if (!match) return null;
  const payload = Buffer.from(match[1]!, 'base64url').toString('utf8');
  const [keyId, envId, expiry, ...rest] = payload.split('.');
  const clientKey = rest.length === 1 && rest[0] === 'c';
  if ((rest.length && !clientKey) || !keyId || !envId || !expiry || !UUID.test(keyId) || !UUID.test(envId) || !/^\d{1,12}$/.test(expiry)) return null;
  return { keyId, clientKey, envId, expiresAt: new Date(Number(expiry) * 1000), payload, signature: Buffer.from(match[2]!, 'base64url') };
}

/** Whether the claim was signed for the key with this token hash. */
export function ticketSignedBy(claim: TicketClaim, tokenHash: string): boolean {
  const expected = ticketSignature(tokenHash, claim.payload);
  return expected.length === claim.signature.length && timingSafeEqual(expected, claim.signature);
}
