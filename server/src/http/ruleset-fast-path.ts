import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import accepts from 'accepts';
import { DomainError } from '../domain/errors.js';
import { checkApiKeyAccess, lastUsedDue } from '../features/access/authorize.js';
import { bearerKeyHash } from '../features/access/principal.js';
import { ifNoneMatchHits } from '../features/evaluation/ruleset.cache.js';
import { takeApiKeyTokens, tighterBucket, writeRateLimitHeaders } from './api-rate-limit.js';
import type { AppDeps } from './deps.js';

const RULESET_PATH = /^\/api\/v1\/envs\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/ruleset$/;
const ROUTE = '/api/v1/envs/:envId/ruleset';

/**
 * The request SDKs make most — "has my environment's ruleset changed?" — answered before
 * Express: `GET /api/v1/envs/{envId}/ruleset` with an API key and an If-None-Match naming the
 * current version gets its 304 from memory (API-key cache, environment directory, ruleset
 * cache), with the same headers, token-bucket charge, metrics and log line as the full route.
 *
 * It only ever answers that 304. Anything else — a cold cache, a session cookie, a key with an
 * IP allow-list or resource scopes, a lastUsedAt write due, a refusal of any kind, a changed
 * ruleset — returns false untouched and the full route answers (no token is taken unless this
 * path answers). The access rules are the same functions the full route calls.
 */
export function rulesetFastPath(deps: AppDeps): (req: IncomingMessage, res: ServerResponse) => false | Promise<boolean> {
  // Synchronous refusals return plain false: every other request goes on to Express without a
  // microtask hop. Only a request this path will (almost certainly) answer becomes a promise.
  return (req, res) => {
    if (req.method !== 'GET' || !req.url) return false;
    const match = RULESET_PATH.exec(req.url);
    const ifNoneMatch = req.headers['if-none-match'];
    const authorization = req.headers.authorization;
    if (!match || !ifNoneMatch || !authorization || req.headers.cookie) return false;
    const started = performance.now();
    const now = deps.clock.now();

    const hash = bearerKeyHash(authorization);
    const key = hash ? deps.apiKeys.get(hash) : undefined;
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) return false;
    if (key.ipAllowlist || key.resources || lastUsedDue(key, now)) return false;
    const env = deps.envs.peek(match[1]!);
    if (!env || env.version === 0) return false;
    const entry = deps.rulesets.peek(env.id, env.version);
    if (!entry || !ifNoneMatchHits(ifNoneMatch, entry)) return false;
    try {
      checkApiKeyAccess(key, env.orgId, { action: 'read', envId: env.id }, '', false);
    } catch (err) {
      if (err instanceof DomainError) return false;
      throw err;
    }
    return takeApiKeyTokens(deps, key, now).then((decision) => {
      if (!decision.allowed) return false; // nothing was taken: the full route answers the 429

      const requestId = randomUUID();
      const gzip = accepts(req).encodings(['gzip', 'identity']) === 'gzip';
      res.setHeader('X-Request-Id', requestId);
      writeRateLimitHeaders(res, tighterBucket(decision));
      res.setHeader('Vary', 'Accept-Encoding');
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('ETag', gzip ? entry.gzipEtag : entry.etag);
      res.statusCode = 304;
      res.end();

      const seconds = (performance.now() - started) / 1000;
      deps.metrics.requestDuration.observe({ method: 'GET', route: ROUTE, status: '304' }, seconds);
      deps.metrics.rulesetPollsFromMemory.inc();
      if (deps.logger.isLevelEnabled('info')) {
        deps.logger.info({ req: { id: requestId, method: 'GET', url: req.url }, res: { statusCode: 304 }, responseTime: Math.round(seconds * 1000) }, 'request completed');
      }
      return true;
    });
  };
}
