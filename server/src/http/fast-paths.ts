import { randomUUID } from 'node:crypto';
import { IncomingMessage, type ServerResponse } from 'node:http';
import accepts from 'accepts';
import { contract } from '@gradual/contract';
import type { ApiKey } from '../db/entities/index.js';
import { DomainError } from '../domain/errors.js';
import { checkApiKeyAccess, lastUsedDue } from '../features/access/authorize.js';
import { bearerKeyHash } from '../features/access/principal.js';
import { evaluateWith } from '../features/evaluation/evaluation.service.js';
import { ifNoneMatchHits } from '../features/evaluation/ruleset.cache.js';
import { findRolloutPath } from '../features/rollouts/rollouts.store.js';
import { rateLimitHeaders, takeApiKeyTokens, tighterBucket } from './api-rate-limit.js';
import type { AppDeps } from '../deps.js';
import type { LatencySeries } from '../metrics/latency-histogram.js';
import { logRequest } from './request-context.js';
import { bodyProblem, hasSuspectEscapes } from './text-guard.js';
import type { BucketDecision } from '../rate-limits/token-buckets.js';

/**
 * The three requests SDKs and services make most, answered before Express:
 *
 * - ruleset poll: `GET /api/v1/envs/{envId}/ruleset` with an If-None-Match naming the current
 *   version gets its 304 from memory (API-key cache, environment directory, ruleset cache);
 * - target-ID check: `GET …/{flags|configs}/{key}/rollout/target-ids/contains/{id}` gets its
 *   answer from memory when this instance holds the allow-list as of the environment's current
 *   version (TargetIdIndex), else from one SQL statement (environment, primitive, current
 *   rollout and membership);
 * - server-side evaluation: `POST /api/v1/envs/{envId}/evaluate` with a small JSON body is
 *   evaluated against the cached ruleset, the body checked by the contract's own schema. Once it
 *   has read a body it cannot hand the request back untouched, so on any doubt it replays the
 *   body it read to the full route (`fullRoute`), which answers as if nothing had happened.
 *
 * All answer with an API key only, with the same headers, token-bucket charge, metrics and log
 * line as the full route, and apply the same access rules (the same functions). They only ever
 * answer the success case. Anything else (a cold cache, a session cookie, a key with an IP
 * allow-list or a lastUsedAt write due, a refusal of any kind, a missing primitive or rollout,
 * an odd URL) returns false untouched and the full route answers; no token is taken unless a
 * fast path answers.
 *
 * Returns false (not ours: go to Express at once), true (answered, by the fast path or by the
 * full route on a replayed evaluate body) or a promise of either.
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

const UUID = '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})';
const RULESET_PATH = new RegExp(`^/api/v1/envs/${UUID}/ruleset$`);
const CONTAINS_PATH = new RegExp(`^/api/v1/envs/${UUID}/(flags|configs)/([^/?#]+)/rollout/target-ids/contains/([^/?#]+)$`);
const EVALUATE_PATH = new RegExp(`^/api/v1/envs/${UUID}/evaluate$`);
const RULESET_ROUTE = '/api/v1/envs/:envId/ruleset';
const EVALUATE_ROUTE = '/api/v1/envs/:envId/evaluate';
/** Evaluate bodies the fast path reads itself; larger ones (legal up to 1 MiB) go to the full route unread. */
const MAX_FAST_BODY = 16 * 1024;
const JSON_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const EVALUATE_BODY = contract.evaluation.evaluate.body;
const CONTAINS_ROUTE = (kind: string) => `/api/v1/envs/:envId/${kind}/:key/rollout/target-ids/contains/:targetId`;
/** The full route's limits: longer keys are 404, longer IDs are never on a list. */
const MAX_KEY = 128;
const MAX_TARGET_ID = 256;

interface Admitted {
  key: ApiKey;
  now: Date;
  started: number;
}

export function fastPaths(deps: AppDeps, fullRoute: (req: IncomingMessage, res: ServerResponse) => void): FastPath {
  const gzipAccepted = memoized((header: string | undefined) => accepts({ headers: { 'accept-encoding': header } } as IncomingMessage).encodings(['gzip', 'identity']) === 'gzip');
  // The latency histogram's series per answer kind, looked up once.
  const durationOf = (method: string, route: string, status: number) => {
    let series: LatencySeries | undefined;
    return () => (series ??= deps.metrics.requestDuration.labels(method, route, String(status)));
  };
  const pollDuration = durationOf('GET', RULESET_ROUTE, 304);
  const containsDuration = { flags: durationOf('GET', CONTAINS_ROUTE('flags'), 200), configs: durationOf('GET', CONTAINS_ROUTE('configs'), 200) };
  const evaluateDuration = durationOf('POST', EVALUATE_ROUTE, 200);
  // Pollers send a handful of distinct tokens: hash each once (a SHA-256 per poll cost ~3 µs in the
  // server). The memo holds Authorization values, as the request objects do while they live.
  const keyHashOf = memoized(bearerKeyHash, 4096);

  /** The request's API key from memory, when nothing about it needs the full route. */
  const apiKey = (req: IncomingMessage, resourceScopedOk: boolean): Admitted | null => {
    const started = performance.now();
    const now = deps.clock.now();
    const hash = keyHashOf(req.headers.authorization!);
    const key = hash ? deps.apiKeys.get(hash) : undefined;
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) return null;
    if (key.ipAllowlist || (key.resources && !resourceScopedOk) || lastUsedDue(key, now)) return null;
    return { key, now, started };
  };

  /** The full route's access rules for reading in `envId` (the same function). */
  const mayRead = (key: ApiKey, orgId: string, envId: string, resourceKey?: string): boolean => {
    try {
      checkApiKeyAccess(key, orgId, { action: 'read', envId, ...(resourceKey !== undefined ? { resourceKey } : {}) }, '', false);
      return true;
    } catch (err) {
      if (err instanceof DomainError) return false;
      throw err;
    }
  };

  /** Takes the key's and org's tokens, then answers; a refusal leaves it to the full route's 429. */
  const charged = (admitted: Admitted, answer: (decision: BucketDecision) => void): boolean | Promise<boolean> => {
    const finish = (decision: BucketDecision) => {
      if (!decision.allowed) return false; // nothing was taken: the full route answers the 429
      answer(decision);
      return true;
    };
    const decision = takeApiKeyTokens(deps, admitted.key, admitted.now);
    return decision instanceof Promise ? decision.then(finish) : finish(decision);
  };

  /**
   * The answer with the full route's headers (one writeHead: cheaper than setHeader one by one),
   * its latency sample and log line. `headers` (a fresh array) gets the common ones appended.
   */
  const send = (req: IncomingMessage, res: ServerResponse, admitted: Admitted, decision: BucketDecision, duration: () => LatencySeries, status: number, headers: string[], body?: string) => {
    const requestId = randomUUID();
    headers.push('X-Request-Id', requestId, ...rateLimitHeaders(tighterBucket(decision)));
    res.writeHead(status, headers);
    res.end(body);
    const ms = performance.now() - admitted.started;
    duration().observe(ms / 1000);
    logRequest(deps.logger, requestId, req.method, req.url, status, ms);
  };

  const jsonHeaders = (body: string) => ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(body))];

  const rulesetPoll = (req: IncomingMessage, res: ServerResponse, envId: string): boolean | Promise<boolean> => {
    const ifNoneMatch = req.headers['if-none-match'];
    if (!ifNoneMatch) return false;
    // Resource-scoped keys see a filtered ruleset: the full route builds it.
    const admitted = apiKey(req, false);
    const env = admitted && deps.envs.peek(envId);
    if (!admitted || !env || env.version === 0 || !mayRead(admitted.key, env.orgId, env.id)) return false;
    const entry = deps.rulesets.peek(env.id, env.version);
    if (!entry || !ifNoneMatchHits(ifNoneMatch, entry)) return false;
    return charged(admitted, (decision) => {
      const etag = gzipAccepted(req.headers['accept-encoding']) ? entry.gzipEtag : entry.etag;
      send(req, res, admitted, decision, pollDuration, 304, ['Vary', 'Accept-Encoding', 'Cache-Control', 'no-cache', 'ETag', etag]);
      deps.metrics.rulesetPollsFromMemory.inc();
    });
  };

  const containsCheck = (req: IncomingMessage, res: ServerResponse, envId: string, plural: string, rawKey: string, rawTargetId: string): boolean | Promise<boolean> => {
    const key = decoded(rawKey);
    const targetId = decoded(rawTargetId);
    if (key === null || targetId === null || key.length > MAX_KEY || targetId.length > MAX_TARGET_ID) return false;
    const admitted = apiKey(req, true);
    if (!admitted) return false;
    const kind = plural === 'flags' ? 'flag' : 'config';
    const answer = (orgId: string, contains: boolean, source: 'memory' | 'database') => {
      if (!mayRead(admitted.key, orgId, envId, key)) return false;
      const body = contains ? '{"contains":true}' : '{"contains":false}';
      return charged(admitted, (decision) => {
        send(req, res, admitted, decision, containsDuration[plural as 'flags' | 'configs'], 200, jsonHeaders(body), body);
        deps.metrics.targetIdChecksFast.labels(source).inc();
      });
    };
    // From memory when this instance holds the list as of the environment's current version.
    const env = deps.envs.peek(envId);
    const known = env && deps.targetIds.lookup(envId, kind, key, env.version, targetId);
    if (known) return answer(known.orgId, known.contains, 'memory');
    if (!env) warmEnvironment(envId);
    // Otherwise one statement, which also names the environment's org for the access check. It
    // runs on a pooled connection of its own, so no unit of work is forked for it. A failing
    // database is the full route's to report (503 with the envelope), not ours.
    return findRolloutPath(deps.db.orm.em, envId, kind, key, targetId).then(
      (path) => (path?.primitiveId && path.rolloutId ? answer(path.orgId, path.contains === true, 'database') : false),
      () => false,
    );
  };

  /** The environment directory learns an environment checked before it was polled (the memory path needs its version). */
  const warmEnvironment = (envId: string) => {
    deps.envs.get(deps.db.em(), envId).catch(() => undefined); // an unknown one stays unknown: the full route answers 404
  };

  const evaluate = (req: IncomingMessage, res: ServerResponse, envId: string): boolean | Promise<boolean> => {
    const length = Number(req.headers['content-length']);
    const encoding = req.headers['content-encoding'];
    if (!JSON_CONTENT_TYPE.test(req.headers['content-type'] ?? '') || (encoding && encoding !== 'identity')) return false;
    if (!Number.isInteger(length) || length <= 0 || length > MAX_FAST_BODY || req.headers['transfer-encoding']) return false;
    // Resource-scoped keys see a filtered ruleset: the full route builds it.
    const admitted = apiKey(req, false);
    const env = admitted && deps.envs.peek(envId);
    if (!admitted || !env || env.version === 0 || !mayRead(admitted.key, env.orgId, env.id)) return false;
    const entry = deps.rulesets.peek(env.id, env.version);
    if (!entry) return false;
    return readBody(req).then((raw) => {
      if (raw === null) return true; // the client went away mid-body: nobody to answer
      const input = evaluateInput(raw);
      const answered =
        input &&
        charged(admitted, (decision) => {
          const body = JSON.stringify(evaluateWith(entry, input));
          send(req, res, admitted, decision, evaluateDuration, 200, jsonHeaders(body), body);
          deps.metrics.evaluationsFast.inc();
        });
      const replayUnlessAnswered = (done: boolean) => {
        if (!done) fullRoute(replayOf(req, raw), res);
        return true;
      };
      return answered instanceof Promise ? answered.then(replayUnlessAnswered) : replayUnlessAnswered(answered === true);
    });
  };

  return (req, res) => {
    const url = req.url;
    if (!url || !req.headers.authorization || req.headers.cookie) return false;
    if (req.method === 'POST') {
      const evaluation = EVALUATE_PATH.exec(url);
      return evaluation ? evaluate(req, res, evaluation[1]!) : false;
    }
    if (req.method !== 'GET') return false;
    const poll = RULESET_PATH.exec(url);
    if (poll) return rulesetPoll(req, res, poll[1]!);
    const check = CONTAINS_PATH.exec(url);
    if (check) return containsCheck(req, res, check[1]!, check[2]!, check[3]!, check[4]!);
    return false;
  };
}

/** The whole body (its length was checked against Content-Length), or null when the request broke off. */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', () => resolve(null));
    req.once('aborted', () => resolve(null));
  });
}

/**
 * The evaluate input when the full route would take this body as it is: JSON without the escapes
 * the text guard inspects (NUL, surrogates), nested no deeper than it allows, valid for the
 * contract's schema. Null for anything else: the full route then answers, with its own error.
 */
function evaluateInput(raw: Buffer): { context: Record<string, unknown>; keys?: string[] | undefined } | null {
  if (hasSuspectEscapes(raw)) return null;
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
  if (bodyProblem(json, false)) return null;
  const parsed = EVALUATE_BODY.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/**
 * A stand-in for a request whose body the fast path has read: same socket, method, URL and
 * headers, and the body's bytes to read again, so the full route's body parser and error
 * handling see exactly what the client sent.
 */
function replayOf(req: IncomingMessage, body: Buffer): IncomingMessage {
  const replay = new IncomingMessage(req.socket);
  Object.assign(replay, {
    method: req.method,
    url: req.url,
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    httpVersion: req.httpVersion,
    httpVersionMajor: req.httpVersionMajor,
    httpVersionMinor: req.httpVersionMinor,
    complete: true,
  });
  replay._read = () => {}; // everything is pushed below; never pull from the socket
  replay.push(body);
  replay.push(null);
  return replay;
}

/** A path segment as Express decodes it; null when it is not valid percent-encoding. */
function decoded(segment: string): string | null {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** `fn` over a small set of distinct inputs (header values, label sets), computed once each. */
function memoized<K, V>(fn: (key: K) => V, max = 64): (key: K) => V {
  const cache = new Map<K, V>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined && !cache.has(key)) {
      value = fn(key);
      if (cache.size >= max) cache.clear(); // unbounded header variety: start over rather than grow
      cache.set(key, value);
    }
    return value as V;
  };
}
