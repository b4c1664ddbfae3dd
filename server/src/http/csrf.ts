import type { RequestHandler } from 'express';
import { publicUrlFor, type Config } from '../config.js';
import { DomainError } from '../domain/errors.js';
import { sendError } from './errors.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Loopback host names a browser on the server's own machine may use for it. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export type OriginConfig = Pick<Config, 'publicUrl' | 'publicUrlConfigured'>;

/**
 * The origins whose pages may send session-authenticated mutations, for a server listening on
 * `port`: PUBLIC_URL's origin alone when it is set; otherwise http://localhost, 127.0.0.1 and
 * [::1] on that port, which are all this machine (the unconfigured default, as `npm start` runs).
 */
export function acceptedOrigins(config: OriginConfig, port: number): ReadonlySet<string> {
  if (config.publicUrlConfigured) return new Set([new URL(config.publicUrl).origin]);
  // URL normalizes a default port away (http://localhost:80 → http://localhost), as browsers do.
  return new Set(LOOPBACK_HOSTS.map((host) => new URL(`http://${host}:${port}`).origin));
}

/** What a refused origin is told: where the dashboard is, and how to use another address. */
export function refusedOriginMessage(origin: string, config: OriginConfig, port: number): string {
  return (
    `Cross-origin request from ${origin} refused: open the dashboard at ${publicUrlFor(config, port)}/app/ ` +
    'or set PUBLIC_URL to the address you use.'
  );
}

/**
 * Session-authenticated mutations must come from our own origin (or carry no
 * Origin at all, as non-browser clients do). Bearer requests are exempt: a
 * browser never attaches an API key by itself.
 *
 * The accepted origins are derived once: from the configuration when PORT is fixed; with PORT=0
 * (the system picks the port at listen time) from the port of the first request checked, which
 * is the port this server listens on.
 */
export function originCheck(config: OriginConfig & Pick<Config, 'port'>): RequestHandler {
  let port = config.port;
  let accepted = port === 0 && !config.publicUrlConfigured ? undefined : acceptedOrigins(config, port);
  return (req, res, next) => {
    if (SAFE.has(req.method) || req.headers.authorization) return next();
    const origin = req.headers.origin;
    if (!origin || !req.headers.cookie) return next();
    if (!accepted) {
      port = req.socket.localPort ?? 0;
      accepted = acceptedOrigins(config, port);
    }
    if (accepted.has(origin)) return next();
    sendError(req, res, new DomainError('forbidden', refusedOriginMessage(origin, config, port)));
  };
}
