import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import { answerClientError } from './http/client-error.js';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { pino, type Logger } from 'pino';
import { SettableClock, systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { loggerOptions } from './logger.js';
import { openDatabase, type Database } from './db/database.js';
import { InProcessEnvChangeBus } from './features/environments/env-changes.js';
import { createApp } from './app.js';
import type { AppDeps } from './deps.js';
import { mountTestClock } from './http/ops.js';
import { Scheduler } from './features/rollouts/scheduler.js';
import { PgNotifyEnvChangeBus } from './features/environments/pg-env-change-bus.js';
import { ServiceMetrics } from './metrics/metrics.js';
import { AnswerCache } from './http/answer-cache.js';
import { apiSecurityHeaderPairs } from './http/security-headers.js';
import { takeApiKeyTokens } from './http/api-rate-limit.js';
import { ApiKeyCache } from './features/access/api-key-cache.js';
import { ApiKeyEntity, EnvironmentEntity } from './db/entities/index.js';
import { EnvDirectory } from './features/environments/env-directory.js';
import { TargetIdIndex } from './features/rollouts/target-id-index.js';
import { targetIdSource } from './features/rollouts/target-ids.store.js';
import { RulesetCache } from './features/evaluation/ruleset.cache.js';
import { LiveStreams } from './features/evaluation/live-streams.js';
import { replayCorsHeaders } from './http/cors.js';
import { apiKeyHeaderAsBearer } from './http/caller.js';
import { streamCredentialCheck } from './features/evaluation/stream-credentials.store.js';
import { describeChanges } from './features/evaluation/change-events.store.js';
import { RateLimits } from './rate-limits/rate-limits.js';
import { createMailer } from './mail/mailer.js';
import { WebhookWorker } from './features/webhooks/worker.js';
import { orgChangeAnnouncer } from './features/audit/org-changes.js';
import { webhookOutboxSubscriber } from './features/audit/webhook-outbox.js';
import { UsageAggregator } from './features/usage/usage-aggregator.js';
import type { PrometheusReader } from './features/guards/prometheus-source.js';
import { fleetsNow } from './features/convergence/convergence.service.js';
import { AckLedger } from './features/convergence/ack-ledger.js';
import { CONFLICT_OBSERVER, type ConflictObserver } from './db/transaction.js';

/**
 * The HTTP server's timeouts (config.http). `headersTimeout` cuts a client that has not sent a
 * whole request head in time (a slowloris), `requestTimeout` one that has not sent its whole
 * request, body included; neither applies once the request is in, so a streamed response (SSE)
 * runs as long as it likes. Node checks them every `connectionsCheckingInterval` (30 s by
 * default): a quarter of the headers timeout, at most a second, keeps the cut close to it.
 */
export function httpServerOptions(config: Pick<Config, 'http'>): ServerOptions {
  const { headersTimeoutMs, requestTimeoutMs } = config.http;
  return {
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(headersTimeoutMs / 4))),
  };
}

/**
 * The HTTP server's request and response classes for `app`. Express sets its prototype on every
 * request and response (app.request, app.response, with Object.setPrototypeOf); done to an object
 * created with another prototype, that gives each object a hidden class of its own: about 1 KiB
 * each, kept as long as the request lives (a stream's, for hours), and every property access on
 * them megamorphic. These classes inherit from Express's prototypes, and become app.request and
 * app.response: the objects are created with the prototype Express sets, which then changes nothing.
 */
export function expressClasses(app: Express) {
  class AppRequest extends IncomingMessage {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  class AppResponse extends ServerResponse {}
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  Object.defineProperty(app, 'request', { value: AppRequest.prototype, writable: true, configurable: true, enumerable: true });
  Object.defineProperty(app, 'response', { value: AppResponse.prototype, writable: true, configurable: true, enumerable: true });
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse };
}

/** How long graceful shutdown waits for in-flight requests before closing their connections. */
export const SHUTDOWN_GRACE_MS = 5_000;

export interface RunningServer {
  url: string;
  port: number;
  deps: AppDeps;
  app: Express;
  http: Server;
  scheduler: Scheduler;
  /** Sends the outbound webhooks queued by committed changes (features/webhooks/worker.ts). */
  webhooks: WebhookWorker;
  /** Graceful: stop accepting, finish in-flight requests, then close the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  logger?: Logger;
  /**
   * An already-open database, left open by close() (main.ts opens it while this module loads;
   * tests share one). Otherwise opened from the config and closed by close().
   */
  db?: Database;
}

export async function startServer({ config, logger: givenLogger, db: givenDb }: StartOptions): Promise<RunningServer> {
  const logger = givenLogger ?? pino(loggerOptions(config.logLevel));
  const testClock = config.testClock ? new SettableClock() : null;
  const clock: Clock = testClock ?? systemClock;
  const db =
    givenDb ??
    (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.databasePoolMax, acquireTimeoutMs: config.databaseAcquireTimeoutMs, logger }));
  // Several instances share PostgreSQL, so changes travel by LISTEN/NOTIFY; embedded PGlite is one process.
  const bus = db.kind === 'postgres' ? await PgNotifyEnvChangeBus.start(db, logger) : new InProcessEnvChangeBus();
  const streams = new LiveStreams(bus, {
    limits: config.streams,
    now: () => clock.now(),
    check: streamCredentialCheck(() => db.em()),
    onRefused: (limit) => metrics.streamsRefused.inc({ limit }),
    onCredentialsEnded: (count) => metrics.streamsEndedByCredentials.inc(count),
    onCheckFailed: (err) => {
      metrics.streamCredentialCheckErrors.inc();
      logger.warn({ err }, 'could not re-check the open streams’ credentials; they stay open until the next check');
    },
    describe: describeChanges(() => db.em()),
    onDescribeFailed: (err) => logger.warn({ err }, 'could not read what a write changed; its event streams get the version alone'),
  });
  const limits = await RateLimits.create(config.redisUrl, logger);
  const mailer = createMailer(config, logger);
  const envs = new EnvDirectory(bus, { load: (envId) => db.em().findOne(EnvironmentEntity, { id: envId }) });
  const targetIds = new TargetIdIndex(targetIdSource(db.orm.em), {
    maxIds: config.targetIdIndexMaxIds,
    onError: (err) => {
      metrics.targetIdIndexErrors.inc(); // only ever called later, from a background refresh
      logger.warn({ err }, 'could not read an allow-list into memory; its checks ask the database meanwhile');
    },
  });
  const metrics = new ServiceMetrics({
    openStreams: () => streams.size,
    busConnected: () => (bus instanceof PgNotifyEnvChangeBus ? bus.connected : true),
    targetIdsInMemory: () => targetIds.size,
    fleet: () => fleetsNow(db.em(), clock.now()),
  });
  const conflicts: ConflictObserver = {
    retried: (sqlState) => metrics.dbConflicts.inc({ sqlstate: sqlState, outcome: 'retried' }),
    gaveUp: (sqlState) => metrics.dbConflicts.inc({ sqlstate: sqlState, outcome: 'gave_up' }),
  };
  db.orm.config.registerExtension(CONFLICT_OBSERVER, () => conflicts);
  const apiKeys = new ApiKeyCache({ load: (tokenHash) => db.em().findOne(ApiKeyEntity, { tokenHash }) });
  const usage = new UsageAggregator({ db, clock, logger });
  // Acknowledgements are written every second, under the test clock too (their times are the clock's).
  const acks = new AckLedger({ db, clock, logger });
  acks.start();
  const prometheus: PrometheusReader | null = config.prometheusUrl
    ? { url: config.prometheusUrl, logger, onQuery: (result) => metrics.guardPrometheusQueries.inc({ result }) }
    : null;
  const deps: AppDeps = { config, db, clock, logger, bus, rulesets: new RulesetCache(), envs, apiKeys, targetIds, streams, limits, mailer, metrics, usage, prometheus, acks };

  // Production ticks on an interval; under the test clock, each clock move runs exactly one tick.
  const scheduler = new Scheduler(deps);
  if (!testClock) scheduler.start(config.schedulerIntervalMs);
  // Audit rows written through the unit of work queue their webhooks in the same flush (features/audit/webhook-outbox.ts).
  db.orm.em.getEventManager().registerSubscriber(webhookOutboxSubscriber);
  // …and their changes outside any environment are announced on the bus once committed (features/audit/org-changes.ts).
  const orgChanges = orgChangeAnnouncer(bus);
  db.orm.em.getEventManager().registerSubscriber(orgChanges);
  // Outbound webhooks are sent on an interval; under the test clock, on each clock move (after the scheduler's tick).
  const webhooks = new WebhookWorker({ db, clock, logger, settings: config.webhooks });
  if (!testClock) webhooks.start(config.webhooks.workerIntervalMs);
  // Usage counts are written every minute; under the test clock, on each clock move (after the tick).
  if (!testClock) usage.start();
  // Repeated API-key polls and evaluations are answered from memory with what their route decided
  // (http/answer-cache.ts); everything else goes to the app.
  const answers = new AnswerCache({
    clock,
    logger,
    requestDuration: metrics.requestDuration,
    take: (key, now) => takeApiKeyTokens(deps, key, now),
    headers: apiSecurityHeaderPairs(config),
    corsHeaders: (req, key) => replayCorsHeaders(config, req, key),
  });
  const app = createApp(deps, answers, (app) => {
    if (testClock) mountTestClock(app, deps, testClock, () => scheduler.tick().then(() => webhooks.tick()).then(() => usage.flush()));
  });
  // Each connection's latest response, for answering a malformed request that follows it (client-error.ts).
  const latestResponse = new WeakMap<Duplex, ServerResponse>();
  const http = createServer({ ...httpServerOptions(config), ...expressClasses(app) }, (req, res) => {
    latestResponse.set(req.socket, res);
    apiKeyHeaderAsBearer(req);
    const answered = answers.tryAnswer(req, res);
    if (answered === true) return;
    if (answered === false) return void app(req, res);
    answered.then(
      (done) => {
        if (!done) app(req, res);
      },
      (err: unknown) => {
        logger.error({ err }, 'answering from memory failed; answering through the route');
        if (!res.headersSent) app(req, res);
      },
    );
  });
  http.keepAliveTimeout = config.http.keepAliveTimeoutMs;
  http.maxHeadersCount = config.http.maxHeadersCount;
  http.maxConnections = config.http.maxConnections; // beyond it, a new connection is closed at once
  http.on('clientError', answerClientError(logger, (socket) => latestResponse.get(socket)));
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host}:${port}`;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      const drained = new Promise<void>((resolve) => http.close(() => resolve()));
      streams.shutdown(); // long-lived SSE responses would otherwise hold the server open
      orgChanges.detach();
      http.closeIdleConnections();
      // Keep-alive sockets that never send another request would hold close() forever:
      // give in-flight requests a grace period, then cut whatever is left.
      const grace = setTimeout(() => http.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await drained;
      clearTimeout(grace);
      await scheduler.stop();
      await webhooks.stop();
      await usage.stop(); // the counts of the last minute, before the database closes
      await acks.stop(); // the acknowledgements of the last second
      if (bus instanceof PgNotifyEnvChangeBus) await bus.close();
      await limits.close();
      await mailer.close();
      if (!givenDb) await db.close();
    })());
  return { url, port, deps, app, http, scheduler, webhooks, close };
}
