import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { ApiKeyEntity, type ApiKey } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, type Caller } from '../../features/access/authorize.js';
import { rulesetForEvaluation } from '../../features/evaluation/evaluation.service.js';
import type { CachedRuleset } from '../../features/evaluation/ruleset.cache.js';
import type { StreamGrant } from '../../features/evaluation/live-streams.js';
import {
  bulkEtag,
  evaluateFlag,
  evaluateFlags,
  OFREP_INACTIVITY_DELAY_SEC,
  ofrepEnvironment,
  readTicket,
  signTicket,
  ticketExpiry,
  ticketSignedBy,
  type OfrepContext,
  type Served,
} from '../../features/evaluation/ofrep.js';
import { etagListMatches } from '../../features/common/etag.js';
import { keyAdmission, type AnswerCache, type Replay, type ReplayAnswer } from '../answer-cache.js';
import { chargeApiKey } from '../api-rate-limit.js';
import { eventStream } from './evaluation.routes.js';
import { isPlainJson, replayableBody } from '../text-guard.js';
import { clientAddressKey } from '../../rate-limits/client-address.js';
import { hashToken } from '../../domain/secrets.js';
import { ofrepClientAck } from '../../features/convergence/ofrep-clients.js';
import { requestAddress } from '../request-address.js';

const s = initServer();

const BULK_ROUTE = contract.ofrep.ofrepEvaluateFlags.path;
const SINGLE_ROUTE = contract.ofrep.ofrepEvaluateFlag.path;
const EVENTS_PATH = contract.ofrep.ofrepEventStream.path;
/** Both evaluation routes take this body. */
const BODY = contract.ofrep.ofrepEvaluateFlags.body;
/**
 * The bulk answer's caching: per API key and context, and it carries a ticket for the key, so no
 * shared cache may keep it (`private`), and the client revalidates with its ETag (`no-cache`).
 */
const BULK_CACHE_CONTROL = 'private, no-cache';
/** Bodies a replay reads itself; larger ones go to the route unread. */
const MAX_REPLAYED_BODY = 16 * 1024;
/** Stream URLs kept for reuse within their second (per key, environment and base URL). */
const STREAM_URLS_MAX = 10_000;

/**
 * The OFREP routes (docs/ofrep.md): single and bulk evaluation for the environment an API key is
 * bound to, and the bulk evaluation's event stream. Their 400, 404 and 500 answers for thrown
 * errors (invalid context, unparsable body, internal errors) are shaped by http/errors.ts.
 */
export const ofrepRoutes = (deps: AppDeps, answers: AnswerCache) => {
  /**
   * Where the stream URL points: PUBLIC_URL when set, else the request's own protocol and host
   * (its Host header, and X-Forwarded-Proto under TRUST_PROXY), which the caller chooses.
   */
  const origin = (req: Request) => (deps.config.publicUrlConfigured ? deps.config.publicUrl : `${req.protocol}://${req.get('host') ?? 'localhost'}`);

  /** Counts what an answer served (usage). */
  const countServed = (envId: string, served: Served) => {
    for (const s of served) deps.usage.count(envId, s.kind, s.key, s.branch);
  };

  /**
   * Records in the convergence ledger that the client a bulk answer went to serves `version`.
   * Client keys' (browsers') are not recorded: countless and short-lived, they would hold every
   * convergence wait on closed tabs.
   */
  const recordClient = (req: IncomingMessage, envId: string, key: ApiKey, version: number) => {
    if (key.kind === 'client') return;
    deps.acks.ack(envId, ofrepClientAck(key.id, requestAddress(req), req.headers['user-agent'], version));
  };

  /**
   * The stream URL of a bulk answer: a ticket for the key and environment. A ticket's expiry is in
   * whole seconds, so answers within one second carry the same one: it is signed once a second.
   */
  const streamUrls = new Map<string, { expiry: number; url: string }>();
  const streamUrl = (base: string, key: ApiKey, envId: string, now: Date) => {
    const id = `${key.id} ${envId} ${base}`;
    const expiry = ticketExpiry(now);
    const known = streamUrls.get(id);
    if (known?.expiry === expiry) return known.url;
    const built = new URL(`${base}${EVENTS_PATH}`);
    built.searchParams.set('ticket', signTicket(key, envId, now));
    const url = built.toString();
    // Bounded: the base follows the Host header when PUBLIC_URL is not set.
    if (streamUrls.size >= STREAM_URLS_MAX) streamUrls.clear();
    streamUrls.set(id, { expiry, url });
    return url;
  };

  /**
   * Answers the same request again from memory, for an API key seeing the whole environment (no
   * resource restriction, not a client key, whose view the route filters per request), while the
   * key and the environment's version hold: what `answer` returns, from the ruleset `entry`.
   */
  const remember = (req: Request, caller: Caller, envId: string, entry: CachedRuleset, route: string, answer: (key: ApiKey) => Replay['answer']) => {
    const key = caller.principal?.kind === 'token' ? caller.principal.key : null;
    if (!key || key.resources || key.kind === 'client') return;
    const holds = () => deps.envs.peek(envId)?.version === entry.version && deps.rulesets.peek(envId, entry.version) === entry;
    const admitKey = keyAdmission((hash) => deps.apiKeys.get(hash), key, holds);
    if (!admitKey) return;
    answers.remember(req, { admit: admitKey, route, maxBody: MAX_REPLAYED_BODY, answer: answer(key), onAnswered: () => deps.metrics.evaluationsFromMemory.inc() });
  };

  /** A replayed bulk evaluation: 304 when If-None-Match names its ETag, else the 200 the route gives (the same Host and protocol only). */
  const bulkReplay = (req: Request, envId: string, entry: CachedRuleset) => {
    const base = origin(req);
    const host = req.headers.host;
    const proto = req.headers['x-forwarded-proto'];
    return (key: ApiKey): Replay['answer'] =>
      (next, raw) => {
        const parsed = replayedRequest(next, raw, entry, key.id);
        if (!parsed) return null;
        const cache = ['ETag', parsed.etag, 'Cache-Control', BULK_CACHE_CONTROL];
        const ifNoneMatch = next.headers['if-none-match'];
        if (ifNoneMatch !== undefined && etagListMatches(ifNoneMatch, parsed.etag)) {
          return {
            status: 304,
            headers: cache,
            onSent: () => {
              countServed(envId, (parsed.served ??= evaluateFlags(entry, parsed.context).served));
              recordClient(next, envId, key, entry.version);
            },
          };
        }
        if (next.headers.host !== host || next.headers['x-forwarded-proto'] !== proto) return null;
        const eventStreams = [{ type: 'sse', url: streamUrl(base, key, envId, deps.clock.now()), inactivityDelaySec: OFREP_INACTIVITY_DELAY_SEC }];
        const evaluated = parsed.bulk ?? bulkAnswer(entry, parsed);
        // The text of { ...evaluated.body, eventStreams }: the stream's ticket changes every second, the rest with the ruleset.
        const text = `${evaluated.json.slice(0, -1)},"eventStreams":${JSON.stringify(eventStreams)}}`;
        return {
          status: 200,
          headers: [...cache, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(text))],
          body: text,
          onSent: () => {
            countServed(envId, (parsed.served ??= evaluated.served));
            recordClient(next, envId, key, entry.version);
          },
        };
      };
  };

  /** A replayed single evaluation: the route's 200 (its 400 and 404 go to the route). */
  const singleReplay = (envId: string, entry: CachedRuleset, flagKey: string) => (key: ApiKey): Replay['answer'] => (next, raw) => {
    const parsed = replayedRequest(next, raw, entry, key.id);
    if (!parsed) return null;
    const { answer, served } = evaluateFlag(entry, flagKey, parsed.context);
    return answer.status === 200 ? { ...json(200, answer.body, []), onSent: () => countServed(envId, served) } : null;
  };

  return s.router(contract.ofrep, {
    ofrepEvaluateFlag: async ({ req, res, params, body }) => {
      const caller = await admit(req, res, deps);
      const envId = ofrepEnvironment(caller);
      const entry = await rulesetForEvaluation(req.em, caller, deps, envId);
      if (entry) remember(req, caller, envId, entry, SINGLE_ROUTE, singleReplay(envId, entry, params.key));
      const { answer, served } = evaluateFlag(entry, params.key, body.context);
      countServed(envId, served);
      return answer;
    },
    ofrepEvaluateFlags: async ({ req, res, body }) => {
      const caller = await admit(req, res, deps);
      const envId = ofrepEnvironment(caller);
      const entry = await rulesetForEvaluation(req.em, caller, deps, envId);
      const key = caller.principal?.kind === 'token' ? caller.principal.key : null;
      if (!key) throw new DomainError('unauthorized', 'Send an API key.');
      const etag = bulkEtag(entry, key.id, body.context);
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', BULK_CACHE_CONTROL);
      if (entry) remember(req, caller, envId, entry, BULK_ROUTE, bulkReplay(req, envId, entry));
      const ifNoneMatch = req.headers['if-none-match'];
      // A 304 serves the same evaluations again: they are counted as the 200's are.
      const evaluated = evaluateFlags(entry, body.context);
      countServed(envId, evaluated.served);
      if (entry) recordClient(req, envId, key, entry.version);
      if (ifNoneMatch !== undefined && etagListMatches(ifNoneMatch, etag)) return { status: 304, body: undefined };
      const eventStreams = [{ type: 'sse' as const, url: streamUrl(origin(req), key, envId, caller.now), inactivityDelaySec: OFREP_INACTIVITY_DELAY_SEC }];
      return { status: 200, body: { ...evaluated.body, eventStreams } };
    },
    ofrepEventStream: async ({ req, res, query }) => {
      if (deps.streams.closing) {
        throw new DomainError('service_unavailable', 'This instance is shutting down.', { retryAfterSeconds: 1, closeConnection: true });
      }
      const now = deps.clock.now();
      const ip = requestAddress(req);
      const address = clientAddressKey(ip);
      // Forged tickets count as failed authentications of the client address, as bad API keys do (http/admission.ts).
      const failures = deps.limits.authFailures;
      const digest = hashToken(query.ticket);
      const throttled = failures.throttledFor(address, now.getTime());
      if (throttled > 0 && !failures.isVouched(digest, now.getTime())) {
        throw new DomainError('token_rate_limit', 'Too many failed authentications from this address; retry later.', {
          retryAfterSeconds: throttled,
          details: { retryAfterSeconds: throttled, bucket: 'address' },
        });
      }
      const refuse = async (message: string) => {
        await failures.fail(address, deps.config.authFailuresPerIpPerMin, now.getTime());
        return new DomainError('unauthorized', message);
      };
      const claim = readTicket(query.ticket);
      if (!claim) throw await refuse('The ticket is malformed; take the stream URL from a bulk evaluation.');
      if (claim.expiresAt.getTime() <= now.getTime()) throw new DomainError('unauthorized', 'The ticket has expired; evaluate the flags again for a fresh stream URL.');
      // The place is taken before any lookup, under the key the ticket claims (a client key's per
      // client address): a burst of streams is refused without reading the database.
      const slot = deps.streams.reserve({ ip: address, credential: { kind: claim.clientKey ? 'client-key' : 'key', hash: `ticket:${claim.keyId}` } });
      try {
        const key = await req.em.findOne(ApiKeyEntity, { id: claim.keyId });
        if (!key || !ticketSignedBy(claim, key.tokenHash)) throw await refuse('The ticket is not valid.');
        failures.vouch(digest, now.getTime());
        const current = deps.apiKeys.get(key.tokenHash) ?? key;
        if (current.revokedAt) throw new DomainError('unauthorized', 'This API key has been revoked.');
        if (current.expiresAt && current.expiresAt.getTime() <= now.getTime()) throw new DomainError('unauthorized', 'This API key has expired.');
        const caller: Caller = { principal: { kind: 'token', key: current }, ip, reason: null, now };
        if (ofrepEnvironment(caller) !== claim.envId) throw new DomainError('unauthorized', 'The ticket is not valid.');
        const env = await deps.envs.get(req.em, claim.envId);
        await authorize(req.em, caller, env.orgId, { action: 'read', envId: env.id, evaluation: true });
        await chargeApiKey(deps, res, current, now);
        const grant: StreamGrant = { kind: 'key', keyId: current.id, expiresAt: current.expiresAt ?? null };
        return { status: 200, body: eventStream(deps, req, res, (sink, onClose) => deps.streams.openStream(slot, env.id, env.version, grant, sink, onClose, 'ofrep')) };
      } catch (err) {
        slot.release();
        throw err;
      }
    },
  });
};

/** A JSON answer as the route's own (Express's `res.json`) would be. */
function json(status: number, body: unknown, headers: string[]): ReplayAnswer {
  const text = JSON.stringify(body);
  return { status, headers: [...headers, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(text))], body: text };
}


/** A replayed request's body taken apart: its context, bulk ETag, and (once a bulk answer was sent) what that answer served. */
interface ParsedRequest {
  context: OfrepContext;
  etag: string;
  served?: Served;
  /** Its bulk evaluation (the same at the same ruleset version), kept while small. */
  bulk?: BulkAnswer;
}

/** A bulk evaluation's body before its event streams, as JSON text, and what it served. */
interface BulkAnswer {
  json: string;
  served: Served;
}

/** Bulk answers longer than this are evaluated again for each request rather than kept (at most MAX_PARSED_BODIES per ruleset). */
const BULK_KEPT_MAX_CHARS = 8 * 1024;

/** The bulk evaluation of `parsed`'s context, kept on it when small. */
function bulkAnswer(entry: CachedRuleset, parsed: ParsedRequest): BulkAnswer {
  const evaluated = evaluateFlags(entry, parsed.context);
  const answer = { json: JSON.stringify(evaluated.body), served: evaluated.served };
  if (answer.json.length <= BULK_KEPT_MAX_CHARS) parsed.bulk = answer;
  return answer;
}

/**
 * Request bodies already taken apart, per ruleset and API key: a client polling with the same
 * bytes skips parsing, validation and hashing. Cleared when full; a new ruleset starts afresh.
 */
const parsedBodies = new WeakMap<CachedRuleset, Map<string, ParsedRequest>>();
const MAX_PARSED_BODIES = 1000;

/**
 * The context and bulk ETag of a replayed OFREP request whose body the route would take as it is
 * (JSON without the escapes the text guard inspects, nested no deeper than it allows, valid for
 * the contract); null for anything else, which the route then answers.
 */
function replayedRequest(req: IncomingMessage, raw: Buffer | undefined, entry: CachedRuleset, keyId: string): ParsedRequest | null {
  if (!raw || !isPlainJson(req)) return null;
  let memo = parsedBodies.get(entry);
  if (!memo) {
    memo = new Map<string, ParsedRequest>();
    parsedBodies.set(entry, memo);
  }
  const id = `${keyId}\n${raw.toString('latin1')}`;
  const known = memo.get(id);
  if (known) return known;
  const input = replayableBody(raw, BODY);
  if (!input) return null;
  const request: ParsedRequest = { context: input.context, etag: bulkEtag(entry, keyId, input.context) };
  if (memo.size >= MAX_PARSED_BODIES) memo.clear();
  memo.set(id, request);
  return request;
}
