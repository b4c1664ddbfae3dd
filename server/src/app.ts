import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import express, { type Express } from 'express';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { dashboardDir } from './paths.js';
import type { AppDeps } from './deps.js';
import type { AnswerCache } from './http/answer-cache.js';
import { requestContext } from './http/request-context.js';
import { errorHandler, notFoundHandler, requestValidationErrorHandler } from './http/errors.js';
import { originCheck } from './http/csrf.js';
import { evaluationCors, PreflightOrigins } from './http/cors.js';
import { apiKeyHeaderAsBearer } from './http/caller.js';
import { responseCheck } from './http/response-check.js';
import { textGuard } from './http/text-guard.js';
import { jsonBodyReader, validationAfterCredentials } from './http/body-admission.js';
import { metricsMiddleware, mountDocs, mountHealth } from './http/ops.js';
import { securityHeaders } from './http/security-headers.js';
import { authRoutes, unmountedAuthRoutes } from './http/routes/auth.routes.js';
import { orgsRoutes } from './http/routes/orgs.routes.js';
import { invitationsRoutes, membersRoutes } from './http/routes/members.routes.js';
import { projectsRoutes } from './http/routes/projects.routes.js';
import { environmentsRoutes } from './http/routes/environments.routes.js';
import { configsRoutes, flagsRoutes } from './http/routes/primitives.routes.js';
import { apiKeysRoutes } from './http/routes/api-keys.routes.js';
import { auditRoutes } from './http/routes/audit.routes.js';
import { configRolloutsRoutes, flagRolloutsRoutes } from './http/routes/rollouts.routes.js';
import { plansRoutes } from './http/routes/plans.routes.js';
import { evaluationRoutes } from './http/routes/evaluation.routes.js';
import { eventsRoutes } from './http/routes/events.routes.js';
import { rollbackRoutes } from './http/routes/rollback.routes.js';
import { fireBodyReader } from './http/fire-body.js';
import { proposalsRoutes } from './http/routes/proposals.routes.js';
import { ofrepRoutes } from './http/routes/ofrep.routes.js';
import { segmentsRoutes } from './http/routes/segments.routes.js';
import { webhooksRoutes } from './http/routes/webhooks.routes.js';
import { usageRoutes } from './http/routes/usage.routes.js';
import { guardsRoutes } from './http/routes/guards.routes.js';
import { convergenceRoutes } from './http/routes/convergence.routes.js';
import { manifestRoutes } from './http/routes/manifest.routes.js';

/**
 * The Express application: request id and logging first, then operational
 * endpoints, the contract's routes under API_PREFIX, the dashboard under /app,
 * and finally the 404 and error handlers that write the envelope.
 */
export function createApp(deps: AppDeps, answers: AnswerCache, extend?: (app: Express) => void): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.set('etag', false);
  const dashboard = dashboardRoot();
  app.use(securityHeaders(deps.config, join(dashboard, 'index.html')));

  const metrics = metricsMiddleware(deps.metrics, deps.config.metricsToken);
  requestContext(app, deps.logger);
  app.use(metrics.record);

  mountHealth(app, deps);
  app.get('/metrics', metrics.serve);
  mountDocs(app);
  extend?.(app);
  const preflights = new PreflightOrigins(deps);
  app.use(evaluationCors(deps, preflights)); // CORS for the evaluation endpoints only, before their routes

  // Rollback webhooks are read raw (fingerprinted, 16 KiB cap); the JSON reader skips them. Every
  // other body is read only as far as its caller is admitted to send one (body-admission.ts).
  app.use(fireBodyReader());
  app.use(unmountedAuthRoutes(deps));
  app.use('/api', (req, _res, next) => {
    apiKeyHeaderAsBearer(req);
    next();
  });
  app.use('/api', originCheck(deps.config));
  app.use('/api', (req, _res, next) => {
    req.em = deps.db.em();
    next();
  });
  app.use('/api', jsonBodyReader(deps));
  app.use('/api', textGuard());
  if (deps.config.checkResponses) app.use('/api', responseCheck());

  const s = initServer();
  const router = s.router(contract, {
    auth: authRoutes(deps),
    orgs: orgsRoutes(deps),
    members: membersRoutes(deps),
    invitations: invitationsRoutes(deps),
    projects: projectsRoutes(deps),
    environments: environmentsRoutes(deps),
    flags: flagsRoutes(deps),
    configs: configsRoutes(deps),
    flagRollouts: flagRolloutsRoutes(deps, answers),
    configRollouts: configRolloutsRoutes(deps, answers),
    rolloutPlans: plansRoutes(deps),
    evaluation: evaluationRoutes(deps, answers),
    rollback: rollbackRoutes(deps),
    apiKeys: apiKeysRoutes(deps, preflights),
    audit: auditRoutes(deps),
    proposals: proposalsRoutes(deps),
    events: eventsRoutes(deps),
    ofrep: ofrepRoutes(deps, answers),
    segments: segmentsRoutes(deps),
    webhooks: webhooksRoutes(deps),
    usage: usageRoutes(deps),
    guards: guardsRoutes(deps),
    convergence: convergenceRoutes(deps, answers),
    manifest: manifestRoutes(deps),
  });
  createExpressEndpoints(contract, router, app, {
    requestValidationErrorHandler: validationAfterCredentials(requestValidationErrorHandler),
    responseValidation: false,
    logInitialization: false,
  });

  mountDashboard(app, dashboard);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

/** The built dashboard (dashboard/dist) or, when it has not been built, the placeholder page (dashboard/public). */
function dashboardRoot(): string {
  const built = join(dashboardDir, 'dist');
  return existsSync(join(built, 'index.html')) ? built : join(dashboardDir, 'public');
}

/**
 * Serves the dashboard from `root` (dashboardRoot). Every other /app/* path gets index.html (the
 * app routes itself), with `no-cache` so a new build is picked up at once; the content-hashed
 * files under /app/assets/ are cached for a year as immutable, and sent pre-compressed (.br/.gz
 * from the build) when the client accepts it. A missing asset is a 404, never the HTML page.
 */
function mountDashboard(app: Express, root: string): void {
  const noCache = (res: express.Response) => res.setHeader('Cache-Control', 'no-cache');
  app.get('/', (_req, res) => res.redirect(302, '/app/'));
  app.use('/app/assets', precompressed(join(root, 'assets')));
  app.use('/app/assets', express.static(join(root, 'assets'), { index: false, immutable: true, maxAge: '365d', fallthrough: true }));
  app.use('/app/assets', (req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? notFoundHandler(req, res, next) : next()));
  app.use('/app', express.static(root, { index: false, setHeaders: noCache }));
  app.get(['/app', '/app/*'], (_req, res) => {
    noCache(res);
    res.sendFile(join(root, 'index.html'));
  });
}

const ENCODINGS = [
  ['br', '.br'],
  ['gzip', '.gz'],
] as const;
const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** `<file>.br` or `<file>.gz` beside a built asset, when the client accepts that encoding. */
function precompressed(dir: string): express.RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const ext = extname(req.path);
    const type = ASSET_TYPES[ext];
    if (!type || req.path.includes('..')) return next();
    const accepted = String(req.headers['accept-encoding'] ?? '');
    for (const [encoding, suffix] of ENCODINGS) {
      if (!new RegExp(`\\b${encoding}\\b`).test(accepted)) continue;
      const file = join(dir, `${req.path}${suffix}`);
      if (!existsSync(file)) continue;
      res.setHeader('Content-Encoding', encoding);
      res.setHeader('Content-Type', type);
      res.setHeader('Vary', 'Accept-Encoding');
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      return res.sendFile(file, { cacheControl: false }, (err) => err && next(err));
    }
    next();
  };
}
