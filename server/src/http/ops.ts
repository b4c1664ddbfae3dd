import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import express, { type Express, type RequestHandler } from 'express';
import { z } from 'zod';
import type { SettableClock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import { digestsEqual, hashToken } from '../domain/secrets.js';
import { openApiFile } from '../paths.js';
import type { AppDeps } from '../deps.js';
import type { ServiceMetrics } from '../metrics/metrics.js';
import { fieldsFromZod, sendError } from './errors.js';
import { routePattern } from './request-context.js';


/**
 * /healthz (process up) and /readyz: within 2 s the database answers a read of one of the app's
 * tables, named unqualified as the app's queries name them (Database.ping), so a session that
 * cannot see them (a broken search_path) is not ready either.
 */
export function mountHealth(app: Express, deps: AppDeps): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (req, res) => {
    Promise.race([
      deps.db.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('database ping timed out')), 2000).unref()),
    ]).then(
      () => res.json({ status: 'ready' }),
      (err: unknown) => {
        req.log.warn({ err }, 'readiness check failed');
        sendError(req, res, new DomainError('service_unavailable', 'The database is not reachable.', { retryAfterSeconds: 1 }));
      },
    );
  });
}

/**
 * Request latency by route into the service metrics, and GET /metrics: open to anyone (as
 * Prometheus exporters are) unless `token` (METRICS_TOKEN) is set, then only with
 * `Authorization: Bearer <token>`, compared in constant time (as SHA-256 digests).
 */
export function metricsMiddleware(metrics: ServiceMetrics, token?: string): { record: RequestHandler; serve: RequestHandler } {
  const expected = token === undefined ? null : hashToken(token);
  const authorized = (header: string | undefined): boolean => {
    if (expected === null) return true;
    const presented = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    return presented !== null && digestsEqual(hashToken(presented[1]!), expected);
  };
  return {
    record: (req, res, next) => {
      const end = metrics.requestDuration.startTimer();
      res.on('finish', () => {
        // The matched route pattern keeps label cardinality bounded (never the raw URL).
        const route = routePattern(req.route) ?? 'unmatched';
        end({ method: req.method, route, status: String(res.statusCode) });
      });
      next();
    },
    serve: (req, res, next) => {
      if (!authorized(req.headers.authorization)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        sendError(req, res, new DomainError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.'));
        return;
      }
      res.setHeader('Content-Type', metrics.registry.contentType);
      metrics.registry.metrics().then((text) => res.send(text), next);
    },
  };
}

/**
 * /openapi.yaml and an interactive API reference at /docs (swagger-ui, served locally). No
 * validator badge (an image from another site, which the page's CSP refuses: http/security-headers.ts).
 */
export function mountDocs(app: Express): void {
  const yaml = readFileSync(openApiFile, 'utf8');
  app.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(yaml);
  });
  const swaggerDir = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json').replace(/package\.json$/, '');
  app.get('/docs', (req, res, next) => (req.path === '/docs' && !req.originalUrl.endsWith('/') ? res.redirect(301, '/docs/') : next()));
  app.get('/docs/swagger-initializer.js', (_req, res) => {
    res.type('application/javascript').send(
      `window.onload = () => { window.ui = SwaggerUIBundle({ url: '/openapi.yaml', dom_id: '#swagger-ui', deepLinking: true, withCredentials: true, validatorUrl: null }); };`,
    );
  });
  app.use('/docs', express.static(swaggerDir, { index: 'index.html', maxAge: '1h' }));
}

const ClockRequest = z.union([
  z.object({ advanceSeconds: z.number().finite().min(0) }).strict(),
  z.object({ now: z.string().datetime({ offset: true }) }).strict(),
]);

/** POST /__test__/clock: only with SERVICE_TEST_CLOCK=1 (docs/development.md). */
export function mountTestClock(app: Express, deps: AppDeps, clock: SettableClock, tick: () => Promise<void>): void {
  app.post('/__test__/clock', express.json(), (req, res, next) => {
    const parsed = ClockRequest.safeParse(req.body);
    if (!parsed.success) {
      return sendError(req, res, new DomainError('invalid_request', 'Send {"advanceSeconds": n} or {"now": iso}.', { fields: fieldsFromZod(parsed.error.issues) }));
    }
    if ('advanceSeconds' in parsed.data) clock.advance(parsed.data.advanceSeconds);
    else clock.set(new Date(parsed.data.now));
    tick().then(() => res.json({ now: deps.clock.now().toISOString() }), next);
  });
}
