/**
 * `npm start`: the production entry point.
 *
 * Start-up time is a product target, so the order matters: only light modules are imported
 * statically here. The database is opened first (the embedded one boots PGlite in a thread of
 * its own, and MikroORM loads meanwhile), while the rest of the server (Express, the routes) is
 * imported alongside; scripts/start.mjs bundles with code splitting, so each dynamic import
 * below is a chunk of its own.
 */
import { ConfigError, loadConfig, publicUrlFor, type Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { withStartupDeadline } from './db/startup.js';
import { startWatchdog } from './db/watchdog.js';
import { createLogger } from './logger.js';

const startedAt = performance.now();
let config: Config;
try {
  config = loadConfig();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(2);
}
const logger = await createLogger(config);
for (const warning of config.warnings) logger.warn(warning);

// Start-up has a deadline, and says what it waits for every 5 s (db/startup.ts).
let step = 'opening the database';
const [opened, loaded] = await Promise.allSettled([
  withStartupDeadline(
    openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolMax: config.databasePoolMax,
      acquireTimeoutMs: config.databaseAcquireTimeoutMs,
      logger,
      onStep: (now) => {
        step = now;
        logger.info({ step }, `${now}…`);
      },
    }),
    { timeoutMs: config.databaseStartupTimeoutMs, step: () => step, log: (fields, msg) => logger.warn(fields, msg) },
  ),
  import('./server.js'),
]);
let db: Database | undefined;
try {
  if (opened.status === 'rejected') throw opened.reason;
  db = opened.value;
  if (loaded.status === 'rejected') throw loaded.reason;
  const server = await loaded.value.startServer({ config, logger, db });
  // The embedded database's thread must keep answering (db/watchdog.ts): when it stops, the
  // process exits non-zero so that a supervisor restarts it.
  const watchdog =
    db.threadPing && config.databaseWatchdogIntervalMs > 0
      ? startWatchdog({
          check: db.threadPing,
          intervalMs: config.databaseWatchdogIntervalMs,
          onMiss: (miss, of, reason) => logger.warn({ miss, of, reason }, 'database watchdog: the embedded database did not answer'),
          onWedged: (reason) => {
            logger.fatal({ reason }, `database watchdog: the embedded database stopped answering (${reason}); exiting so that the server is restarted`);
            process.exit(70);
          },
        })
      : undefined;
  // The address printed is the one the dashboard's origin check accepts (http/csrf.ts): PUBLIC_URL,
  // or http://localhost:PORT when it is unset. Not the bound address: 0.0.0.0 is no place to browse.
  const url = publicUrlFor(config, server.port);
  const listen = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`;
  logger.info(
    { url, dashboard: `${url}/app/`, listen, database: db.kind, startupMs: Math.round(performance.now() - startedAt) },
    `Gradual listening on ${listen}; dashboard ${url}/app/ and API reference ${url}/docs/`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    watchdog?.stop();
    const force = setTimeout(() => {
      logger.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, 10_000).unref();
    // Stop accepting and finish in-flight requests, then close the database.
    server
      .close()
      .then(() => db!.close())
      .then(
        () => {
          clearTimeout(force);
          process.exit(0);
        },
        (err) => {
          logger.error({ err }, 'error during shutdown');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  logger.fatal({ err }, 'failed to start');
  await db?.close().catch(() => {});
  process.exit(1);
}
