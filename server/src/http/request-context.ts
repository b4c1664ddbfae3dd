import { randomUUID } from 'node:crypto';
import { contract } from '@gradual/contract';
import type { Express, Request } from 'express';
import type { Logger } from 'pino';

declare global {
  namespace Express {
    interface Request {
      /** Server-generated request id, echoed in X-Request-Id and every error envelope. */
      id: string;
      /** A child logger bound to the request id. */
      log: Logger;
    }
  }
}

/** Probes and scrapes: answered, never logged. */
const UNLOGGED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The requests SDKs make over and over, by contract path: ruleset polls, evaluations (native and
 * OFREP), target-ID checks and ruleset acknowledgements. A fleet sends thousands a second, which
 * the metrics count by route and status.
 */
const SDK_TRAFFIC = new Set<string>([
  contract.evaluation.getRuleset.path,
  contract.evaluation.evaluate.path,
  contract.ofrep.ofrepEvaluateFlag.path,
  contract.ofrep.ofrepEvaluateFlags.path,
  contract.flagRollouts.checkFlagTargetId.path,
  contract.configRollouts.checkConfigTargetId.path,
  contract.convergence.ackRuleset.path,
]);

/**
 * The level of a request's log line: error for a 5xx; debug for a 304 (a poll that found nothing
 * new) and for SDK traffic that succeeded, since at info these were most of the log and their
 * serialization a tenth to a quarter of each answer's cost; info otherwise, SDK traffic's 4xx
 * included. `route` is the matched contract path, if any.
 */
function accessLogLevel(status: number, route: string | undefined): 'error' | 'debug' | 'info' {
  if (status >= 500) return 'error';
  if (status === 304 || (status < 300 && route !== undefined && SDK_TRAFFIC.has(route))) return 'debug';
  return 'info';
}

/** The path pattern of the route Express matched (`req.route`, typed `any` by Express): a contract path. */
export function routePattern(route: unknown): string | undefined {
  return typeof route === 'object' && route !== null && 'path' in route && typeof route.path === 'string' ? route.path : undefined;
}

/** Could a URL carry a credential? (A query, an invitation link, or an API-key or rollback-secret prefix.) */
const MAYBE_SECRET = /[?]|\/invit|svc|sdk|pub/i;
/** The segment after `/invitations/` (the API) or `/invite/` (the dashboard's link): an invitation token. */
const INVITATION_TOKEN = /(\/invit(?:ations|e)\/)[^/?#]+/gi;
/** An API key (`svc_…`, `sdk_…`, `pub_…`) or rollback webhook secret (`svcrb_…`) anywhere, `_` percent-encoded or not. */
const PREFIXED_SECRET = /(?:svc(?:rb)?|sdk|pub)(?:_|%5f)[A-Za-z0-9]{32,}/gi;
/** Query parameters whose value is a credential: the sign-in link's `t`, the OFREP event stream's `ticket`, and the usual names for tokens. */
const SECRET_PARAMS: ReadonlySet<string> = new Set(['t', 'token', 'secret', 'password', 'access_token', 'api_key', 'apikey', 'key_token', 'ticket']);
export const REDACTED = '[redacted]';

/** A query parameter's name as the query parser reads it (percent-decoded, `+` as space, without `[…]`). */
function paramName(raw: string): string {
  let name = raw.replace(/\+/g, ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // Left as sent: a malformed escape reads as itself.
  }
  const bracket = name.indexOf('[');
  return (bracket > 0 ? name.slice(0, bracket) : name).toLowerCase();
}

/**
 * `url` as it may be logged: one-time tokens and secrets replaced by `[redacted]`. Invitation
 * tokens (a path segment), the sign-in link's `?t=` and other token-named query parameters, and
 * API keys or rollback secrets wherever they appear. A URL with none of these (every hot path's)
 * is returned as it is after one short test.
 */
export function redactUrl(url: string): string {
  if (!MAYBE_SECRET.test(url)) return url;
  const queryAt = url.indexOf('?');
  let out = (queryAt < 0 ? url : url.slice(0, queryAt)).replace(INVITATION_TOKEN, `$1${REDACTED}`);
  if (queryAt >= 0) {
    const params = url
      .slice(queryAt + 1)
      .split('&')
      .map((part) => {
        const eq = part.indexOf('=');
        const name = eq < 0 ? part : part.slice(0, eq);
        return SECRET_PARAMS.has(paramName(name)) ? `${name}=${REDACTED}` : part;
      });
    out += `?${params.join('&')}`;
  }
  return out.replace(PREFIXED_SECRET, REDACTED);
}

/**
 * A finished request's log line, at accessLogLevel's level: written for the routes and the answer
 * cache alike. The URL is logged redacted (redactUrl); headers are never logged.
 */
export function logRequest(logger: Logger, id: string, method: string | undefined, url: string | undefined, status: number, responseTimeMs: number, route: string | undefined): void {
  const level = accessLogLevel(status, route);
  if (!logger.isLevelEnabled(level)) return;
  const logged = url === undefined ? url : redactUrl(url);
  logger[level]({ req: { id, method, url: logged }, res: { statusCode: status }, responseTime: Math.round(responseTimeMs) }, 'request completed');
}

/**
 * Request id and logging, first in the chain: X-Request-Id on every answer, `req.log` (a child
 * logger bound to the id), and one line per finished request (logRequest, which the answer cache
 * in http/answer-cache.ts writes too). Hand-written rather than pino-http, which built a child
 * logger and serializers for every request whatever the level: a tenth of the allocations of a
 * typical API request.
 *
 * `req.log` is built on first use (a getter on the app's request prototype): few requests log
 * anything of their own, and a pino child per request was a tenth of the garbage of a small
 * one.
 */
export function requestContext(app: Express, logger: Logger): void {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request): Logger {
      const child = logger.child({ reqId: this.id });
      Object.defineProperty(this, 'log', { value: child, writable: true, configurable: true, enumerable: true });
      return child;
    },
    set(this: Request, value: Logger) {
      Object.defineProperty(this, 'log', { value, writable: true, configurable: true, enumerable: true });
    },
  });
  app.use((req, res, next) => {
    const id = randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    if (!UNLOGGED.has(req.url)) {
      const started = performance.now();
      res.once('finish', () => logRequest(logger, id, req.method, req.originalUrl, res.statusCode, performance.now() - started, routePattern(req.route)));
    }
    next();
  });
}
