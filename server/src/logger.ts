import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Config } from './config.js';

/**
 * How `npm start` logs: JSON lines (pino's own format, for log collectors) unless a person is
 * reading: with stdout a terminal, or LOG_FORMAT=pretty, each line is rendered by pino-pretty
 * (time, level, message, then the fields). LOG_FORMAT=json forces JSON on a terminal too.
 */
export function logFormat(config: Pick<Config, 'logFormat'>, stdoutIsTerminal = process.stdout.isTTY === true): 'json' | 'pretty' {
  return config.logFormat ?? (stdoutIsTerminal ? 'pretty' : 'json');
}

/**
 * Credentials that must never reach a log line, wherever a logged object carries them: request
 * and response headers (Authorization, Cookie, Set-Cookie) and token fields. Access-log URLs are
 * redacted where they are written (http/request-context.ts, redactUrl).
 */
export const LOG_REDACT: LoggerOptions['redact'] = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    'headers.authorization',
    'headers.cookie',
    'authorization',
    'cookie',
    'token',
    'secret',
    'link',
  ],
  censor: '[redacted]',
};

/** The server's pino options: the level, and LOG_REDACT. */
export const loggerOptions = (level: string): LoggerOptions => ({ level, redact: LOG_REDACT });

export async function createLogger(config: Pick<Config, 'logFormat' | 'logLevel'>): Promise<Logger> {
  const options = loggerOptions(config.logLevel);
  if (logFormat(config) === 'json') return pino(options);
  return pino(options, await prettyDestination());
}

/**
 * pino-pretty's formatter on pino's synchronous stdout destination, in this thread: every line is
 * written before the next statement runs, so a `fatal` just before process.exit() is not lost (a
 * transport's worker thread, or pino-pretty's stream, could lose it). Loaded only when needed:
 * JSON start-ups skip the module.
 */
async function prettyDestination(): Promise<DestinationStream> {
  const { prettyFactory } = (await import('pino-pretty')).default;
  // Colors follow the terminal (colorette: NO_COLOR, FORCE_COLOR, TERM=dumb).
  const format = prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true });
  const stdout = pino.destination({ dest: 1, sync: true });
  return { write: (line: string) => void stdout.write(format(line)) };
}
