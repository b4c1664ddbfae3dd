import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
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
 * Request id and logging, first in the chain: X-Request-Id on every answer, `req.log` (a child
 * logger bound to the id), and one line per finished request, at info (error for
 * 5xx), in the shape the fast paths write (http/fast-paths.ts). Hand-written rather than
 * pino-http, which built a child logger and serializers for every request whatever the level:
 * a tenth of the allocations of a typical API request.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const id = randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    req.log = logger.child({ reqId: id });
    if (!UNLOGGED.has(req.url)) {
      const started = performance.now();
      res.once('finish', () => {
        const status = res.statusCode;
        const level = status >= 500 ? 'error' : 'info';
        if (!logger.isLevelEnabled(level)) return;
        const responseTime = Math.round(performance.now() - started);
        logger[level]({ req: { id, method: req.method, url: req.originalUrl }, res: { statusCode: status }, responseTime }, 'request completed');
      });
    }
    next();
  };
}
