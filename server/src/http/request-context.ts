import { randomUUID } from 'node:crypto';
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
 * The level of a request's log line: error for a 5xx; debug for a 304, the answer to a poll that
 * found nothing new (SDKs poll their ruleset every few seconds: at info that was most of the log,
 * and its serialization a quarter of the poll's cost; metrics count every poll); info otherwise.
 */
function accessLogLevel(status: number): 'error' | 'debug' | 'info' {
  return status >= 500 ? 'error' : status === 304 ? 'debug' : 'info';
}

/** A finished request's log line, at accessLogLevel's level: written for the routes and the answer cache alike. */
export function logRequest(logger: Logger, id: string, method: string | undefined, url: string | undefined, status: number, responseTimeMs: number): void {
  const level = accessLogLevel(status);
  if (!logger.isLevelEnabled(level)) return;
  logger[level]({ req: { id, method, url }, res: { statusCode: status }, responseTime: Math.round(responseTimeMs) }, 'request completed');
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
      res.once('finish', () => logRequest(logger, id, req.method, req.originalUrl, res.statusCode, performance.now() - started));
    }
    next();
  });
}
