import type { IncomingMessage } from 'node:http';
import type { RequestHandler, Response } from 'express';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { ApiKeyEntity, type ApiKey } from '../db/entities/index.js';
import type { ApiKeyCache } from '../features/access/api-key-cache.js';
import { activeClientKeyOrigins, clientKeyAllowsOrigin } from '../features/access/client-origins.js';
import { bearerKeyHash } from '../features/access/principal.js';
import { readTicket, ticketSignedBy } from '../features/evaluation/ofrep.js';

/**
 * Cross-origin access (CORS) to the evaluation endpoints, and to nothing else: web pages evaluate
 * flags with a client key (`pub_…`) from the origins that key allows (its `allowedOrigins`, or
 * CORS_ALLOWED_ORIGINS when it names none). Every other route answers as if CORS did not exist,
 * so browsers keep refusing cross-origin reads of the management API.
 *
 * - Preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) on an evaluation
 *   path: `204`, with the Access-Control-Allow-* headers only when the origin is a server default
 *   or is named by an active client key (a preflight has no credentials; PreflightOrigins).
 * - Any other request on an evaluation path with `Origin`: `Vary: Origin`, and the origin granted
 *   (with the headers a page may read) only when the request's own key is a client key that allows
 *   it. Server keys (`api`, `agent`, `sdk`) and sessions get no grant. The headers are set before
 *   the route runs, so error answers (401, 403, 429) are readable by the page too. The OFREP event
 *   stream carries a ticket instead of a key (EventSource sends no headers): the key it was signed
 *   for decides.
 *
 * `Access-Control-Allow-Origin` always names the origin (never `*`), and
 * `Access-Control-Allow-Credentials` is never sent: cookies never reach these endpoints from
 * another site's page.
 */

/**
 * `POST /api/v1/envs/{envId}/evaluate`, `POST /api/v1/envs/{envId}/usage` (a page reporting the
 * evaluations it made) and everything under `/api/v1/ofrep/v1/` (Express routes ignore case and a
 * trailing slash).
 */
const EVALUATION_PATH = /^\/api\/v1\/(?:envs\/[^/]+\/(?:evaluate|usage)\/?|ofrep\/v1\/.*)$/i;
/** The OFREP event stream, authenticated by its `ticket` query parameter. */
const EVENT_STREAM_PATH = /^\/api\/v1\/ofrep\/v1\/events\/?$/i;

export const ALLOW_METHODS = 'GET, POST, OPTIONS';
export const ALLOW_HEADERS = 'Authorization, X-API-Key, Content-Type, If-None-Match';
export const EXPOSE_HEADERS = 'ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';
export const PREFLIGHT_MAX_AGE_S = 600;
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

/** How long an instance answers preflights from one read of the origins active client keys name. */
export const PREFLIGHT_CACHE_MS = 30_000;
/** A preflight from an origin the read lacks reads them again once the read is this old. */
export const PREFLIGHT_MISS_REREAD_MS = 5_000;
/** After a failed read, how long preflights are refused before the next one reads again. */
const PREFLIGHT_FAILED_REREAD_MS = 1_000;

export interface CorsDeps {
  config: Pick<Config, 'corsAllowedOrigins'>;
  db: Pick<Database, 'em'>;
  clock: Clock;
  apiKeys: Pick<ApiKeyCache, 'get' | 'remember'>;
}

/** Whether `path` (without its query) is an evaluation endpoint. */
export function isEvaluationPath(path: string): boolean {
  return EVALUATION_PATH.test(path);
}

/** The request's API key header as admission reads it: `Authorization`, else `X-API-Key: <token>` as a bearer token. */
function authorizationOf(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  if (req.headers.authorization !== undefined) return req.headers.authorization;
  const key = req.headers['x-api-key'];
  const token = (Array.isArray(key) ? key[0] : key)?.trim();
  return token ? `Bearer ${token}` : undefined;
}

/** The token hash of a client key (`pub_…`) the request presents; null for anything else. */
function clientKeyHash(req: Pick<IncomingMessage, 'headers'>): string | null {
  const authorization = authorizationOf(req);
  if (!authorization || !/^Bearer\s+pub_/.test(authorization)) return null;
  return bearerKeyHash(authorization);
}

function origin(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  const value = req.headers.origin;
  return value && value !== 'null' ? value : undefined;
}

/** Header names and values, alternating, that grant `origin` to a page on an actual (non-preflight) answer. */
function grantHeaders(origin: string): string[] {
  return ['Access-Control-Allow-Origin', origin, 'Access-Control-Expose-Headers', EXPOSE_HEADERS];
}

/**
 * The CORS headers of an answer made from memory (http/answer-cache.ts) for `key`: the same
 * decision as the middleware's for a request presenting that key, without I/O.
 */
export function replayCorsHeaders(config: Pick<Config, 'corsAllowedOrigins'>, req: Pick<IncomingMessage, 'headers' | 'url'>, key: ApiKey): string[] {
  const from = origin(req);
  if (!from || !isEvaluationPath((req.url ?? '').split('?')[0]!)) return [];
  return ['Vary', 'Origin', ...(clientKeyAllowsOrigin(key, from, config.corsAllowedOrigins) ? grantHeaders(from) : [])];
}

/**
 * Whether a preflight from an origin is granted: a server default origin, or one an active client
 * key names. A preflight has no credentials, so anyone can send one from any made-up origin: the
 * origins of all active client keys are read as one set, used for PREFLIGHT_CACHE_MS, and read
 * again earlier only for an origin the set lacks and at most once per PREFLIGHT_MISS_REREAD_MS
 * (one read in flight at a time). However many origins preflights name, an instance reads the
 * database for them at most every few seconds. A client key minted on this instance makes the next
 * preflight read again (clientKeyMinted), so its page is granted at once; one minted on another
 * instance is granted here within PREFLIGHT_MISS_REREAD_MS. A revoked or expired key's origins go
 * with the next read (PREFLIGHT_CACHE_MS at most).
 */
export class PreflightOrigins {
  private read: OriginsRead | null = null;

  constructor(private readonly deps: CorsDeps) {}

  allows(origin: string): Promise<boolean> {
    if (this.deps.config.corsAllowedOrigins.includes(origin)) return Promise.resolve(true);
    const now = this.deps.clock.now();
    const read = this.read;
    const age = read ? now.getTime() - read.at : Infinity;
    if (
      !read ||
      age >= PREFLIGHT_CACHE_MS ||
      (read.failed && age >= PREFLIGHT_FAILED_REREAD_MS) ||
      (read.origins !== null && !read.origins.has(origin) && age >= PREFLIGHT_MISS_REREAD_MS)
    ) {
      return this.readAgain(now).then((origins) => origins.has(origin));
    }
    // Without an answer the browser refuses, as for an origin no key allows.
    if (read.failed) return Promise.resolve(false);
    return read.promise.then((origins) => origins.has(origin));
  }

  /** A client key naming origins was minted here: the next preflight reads the origins again. */
  clientKeyMinted(): void {
    this.read = null;
  }

  private readAgain(now: Date): Promise<ReadonlySet<string>> {
    const promise = activeClientKeyOrigins(this.deps.db.em(), now);
    const read: OriginsRead = { at: now.getTime(), promise, origins: null, failed: false };
    this.read = read;
    promise.then(
      (origins) => {
        read.origins = origins;
      },
      () => {
        read.failed = true;
      },
    );
    return promise;
  }
}

/** One read of the origins active client keys name (PreflightOrigins). */
interface OriginsRead {
  /** When it started, on the server's clock (ms). */
  at: number;
  promise: Promise<ReadonlySet<string>>;
  /** The origins once read (null while reading, or when the read failed). */
  origins: ReadonlySet<string> | null;
  failed: boolean;
}

function setGrant(res: Response, origin: string): void {
  const headers = grantHeaders(origin);
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i]!, headers[i + 1]!);
}

/** The key a request presents, when it is a client key (from the key cache, else the database). */
async function presentedClientKey(deps: CorsDeps, req: Pick<IncomingMessage, 'headers'>): Promise<ApiKey | null> {
  const hash = clientKeyHash(req);
  if (!hash) return null;
  const cached = deps.apiKeys.get(hash);
  if (cached) return cached;
  const key = await deps.db.em().findOne(ApiKeyEntity, { tokenHash: hash });
  if (key) deps.apiKeys.remember(key);
  return key;
}

/** The key an OFREP event-stream ticket (`?ticket=`) was signed for, when it is a client key. */
async function ticketClientKey(deps: CorsDeps, query: unknown): Promise<ApiKey | null> {
  const ticket = typeof query === 'object' && query !== null && 'ticket' in query ? query.ticket : undefined;
  const claim = typeof ticket === 'string' ? readTicket(ticket) : null;
  if (!claim) return null;
  const key = await deps.db.em().findOne(ApiKeyEntity, { id: claim.keyId });
  return key && key.kind === 'client' && ticketSignedBy(claim, key.tokenHash) ? key : null;
}

/** The CORS middleware for the evaluation endpoints; mounted before the routes (app.ts). */
export function evaluationCors(deps: CorsDeps, preflights: Pick<PreflightOrigins, 'allows'> = new PreflightOrigins(deps)): RequestHandler {
  return (req, res, next) => {
    const from = origin(req);
    if (!from || !isEvaluationPath(req.path)) return next();
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Vary', PREFLIGHT_VARY);
      preflights.allows(from).then(
        (allowed) => {
          if (allowed) {
            res.setHeader('Access-Control-Allow-Origin', from);
            res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
            res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
            res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
          }
          res.status(204).end();
        },
        // Without an answer the browser refuses, as for an origin no key allows.
        () => res.status(204).end(),
      );
      return;
    }
    res.vary('Origin');
    const decide = async (): Promise<boolean> => {
      const stream = authorizationOf(req) === undefined && EVENT_STREAM_PATH.test(req.path);
      const key = stream ? await ticketClientKey(deps, req.query) : await presentedClientKey(deps, req);
      return key !== null && clientKeyAllowsOrigin(key, from, deps.config.corsAllowedOrigins);
    };
    decide().then(
      (granted) => {
        if (granted) setGrant(res, from);
        next();
      },
      // No grant: the route answers (and reports a database failure) as it would without CORS.
      () => next(),
    );
  };
}
