import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import accepts from 'accepts';
import type { ApiKey } from '../db/entities/index.js';
import { DomainError } from '../domain/errors.js';
import { checkApiKeyAccess, lastUsedDue } from '../features/access/authorize.js';
import { bearerKeyHash } from '../features/access/principal.js';
import { ifNoneMatchHits } from '../features/evaluation/ruleset.cache.js';
import { findRolloutPath } from '../features/rollouts/rollouts.store.js';
import { rateLimitHeaders, takeApiKeyTokens, tighterBucket } from './api-rate-limit.js';
import type { AppDeps } from './deps.js';
import type { BucketDecision } from './token-buckets.js';

/**
 * The two requests SDKs and services make most, answered before Express:
 *
 * - ruleset poll: `GET /api/v1/envs/{envId}/ruleset` with an If-None-Match naming the current
 *   version gets its 304 from memory (API-key cache, environment directory, ruleset cache);
 * - target-ID check: `GET …/{flags|configs}/{key}/rollout/target-ids/contains/{id}` gets its
 *   answer from memory when this instance holds the allow-list as of the environment's current
 *   version (TargetIdIndex), else from one SQL statement (environment, primitive, current
 *   rollout and membership).
 *
 * Both answer with an API key only, with the same headers, token-bucket charge, metrics and log
 * line as the full route, and apply the same access rules (the same functions). They only ever
 * answer the success case. Anything else (a cold cache, a session cookie, a key with an IP
 * allow-list or a lastUsedAt write due, a refusal of any kind, a missing primitive or rollout,
 * an odd URL) returns false untouched and the full route answers; no token is taken unless a
 * fast path answers.
 *
 * Returns false (not ours: go to Express at once), true (answered) or a promise of either.
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

const UUID = '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})';
const RULESET_PATH = new RegExp(`^/api/v1/envs/${UUID}/ruleset$`);
const CONTAINS_PATH = new RegExp(`^/api/v1/envs/${UUID}/(flags|configs)/([^/?#]+)/rollout/target-ids/contains/([^/?#]+)$`);
const RULESET_ROUTE = '/api/v1/envs/:envId/ruleset';
const CONTAINS_ROUTE = (kind: string) => `/api/v1/envs/:envId/${kind}/:key/rollout/target-ids/contains/:targetId`;
/** The full route's limits: longer keys are 404, longer IDs are never on a list. */
const MAX_KEY = 128;
const MAX_TARGET_ID = 256;

interface Admitted {
  key: ApiKey;
  now: Date;
  started: number;
}

export function fastPaths(deps: AppDeps): FastPath {
  const gzipAccepted = memoized((header: string | undefined) => accepts({ headers: { 'accept-encoding': header } } as IncomingMessage).encodings(['gzip', 'identity']) === 'gzip');
  const durations = memoized((key: string) => {
    const [route, status] = key.split(' ') as [string, string];
    return deps.metrics.requestDuration.labels('GET', route, status);
  });

  /** The request's API key from memory, when nothing about it needs the full route. */
  const apiKey = (req: IncomingMessage, resourceScopedOk: boolean): Admitted | null => {
    const started = performance.now();
    const now = deps.clock.now();
    const hash = bearerKeyHash(req.headers.authorization!);
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

  const send = (req: IncomingMessage, res: ServerResponse, admitted: Admitted, decision: BucketDecision, route: string, status: number, headers: string[], body?: string) => {
    const requestId = randomUUID();
    // One writeHead with every header: cheaper than setHeader one by one.
    res.writeHead(status, ['X-Request-Id', requestId, ...rateLimitHeaders(tighterBucket(decision)), ...headers]);
    res.end(body);
    const seconds = (performance.now() - admitted.started) / 1000;
    durations(`${route} ${status}`).observe(seconds);
    if (deps.logger.isLevelEnabled('info')) {
      deps.logger.info({ req: { id: requestId, method: 'GET', url: req.url }, res: { statusCode: status }, responseTime: Math.round(seconds * 1000) }, 'request completed');
    }
  };

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
      send(req, res, admitted, decision, RULESET_ROUTE, 304, ['Vary', 'Accept-Encoding', 'Cache-Control', 'no-cache', 'ETag', etag]);
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
        send(req, res, admitted, decision, CONTAINS_ROUTE(plural), 200, ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length)], body);
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

  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || !url || !req.headers.authorization || req.headers.cookie) return false;
    const poll = RULESET_PATH.exec(url);
    if (poll) return rulesetPoll(req, res, poll[1]!);
    const check = CONTAINS_PATH.exec(url);
    if (check) return containsCheck(req, res, check[1]!, check[2]!, check[3]!, check[4]!);
    return false;
  };
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
