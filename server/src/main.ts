/** `npm start`: the production entry point. */
import { pino } from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { startServer } from './server.js';

const startedAt = performance.now();
let config;
try {
  config = loadConfig();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(2);
}
const logger = pino({ level: config.logLevel });
try {
  const server = await startServer({ config, logger });
  logger.info(
    { url: server.url, database: server.deps.db.kind, startupMs: Math.round(performance.now() - startedAt) },
    `Gradual listening on ${server.url} (dashboard ${server.url}/app/, API reference ${server.url}/docs/)`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, 10_000).unref();
    server.close().then(
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
  process.exit(1);
}
