import { chmodSync, existsSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { Logger } from 'pino';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';

/**
 * The embedded database: PGlite (PostgreSQL 18 compiled to WASM) in this process, served
 * over the PostgreSQL wire protocol by pglite-socket so MikroORM's ordinary driver can use it.
 *
 * Data dir layout (`dataDir` is DATA_DIR):
 *   pg/               PGlite's PostgreSQL data directory
 *   .s.PGSQL.5432     the Unix socket, named as libpq/pg expect (host = dataDir, port = 5432)
 *   gradual.lock      see data-dir-lock.ts
 * The socket and lock live beside, not inside, pg/ so dumpDataDir() tarballs only PostgreSQL files.
 */

export const MEMORY_DATA_DIR = 'memory://';
const SOCKET_PORT = 5432;
/** sun_path holds 108 bytes on Linux (104 on macOS); longer paths fall back to TCP. */
const MAX_SOCKET_PATH = 100;
/**
 * Several sockets may be open briefly even with a pool of one: the pool can open a new
 * connection before the server has processed the old one's close. Over the limit, Node
 * drops the connection (the client sees ECONNRESET), so leave headroom.
 */
const MAX_SOCKET_CONNECTIONS = 4;

export interface EmbeddedServer {
  /** Connection target for pg: a directory (Unix socket) or 127.0.0.1. */
  host: string;
  port: number;
  /** true when the data dir had no database yet */
  created: boolean;
  pglite: PGlite;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** absolute path, or MEMORY_DATA_DIR */
  dataDir: string;
  /** initial contents (a dumpDataDir() tarball); only used when there is no database yet */
  loadDataDir?: Blob;
  logger?: Logger;
}

export function isMemoryDataDir(dataDir: string): boolean {
  return dataDir === MEMORY_DATA_DIR || dataDir === ':memory:' || dataDir === 'memory:';
}

export async function startEmbedded(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = opts.logger;
  const memory = isMemoryDataDir(opts.dataDir);
  const cleanups: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        log?.warn({ err }, 'embedded database: error while stopping');
      }
    }
  };

  try {
    let pgDir: string | undefined;
    let socketPath: string | undefined;
    if (!memory) {
      mkdirSync(opts.dataDir, { recursive: true }); // PGlite does not create parent dirs
      const lock: DataDirLock = acquireDataDirLock(opts.dataDir, (msg, extra) => log?.warn(extra, msg));
      cleanups.push(() => lock.release());
      pgDir = join(opts.dataDir, 'pg');
      const candidate = join(opts.dataDir, `.s.PGSQL.${SOCKET_PORT}`);
      if (candidate.length <= MAX_SOCKET_PATH && process.platform !== 'win32') {
        socketPath = candidate;
        // We hold the lock, so a socket file here was left by a crashed server.
        removeStaleSocket(socketPath, log);
      }
    }

    const created = memory || !existsSync(join(pgDir!, 'PG_VERSION'));
    const pglite = await PGlite.create({
      dataDir: pgDir, // undefined = in memory
      loadDataDir: created ? opts.loadDataDir : undefined,
    });
    cleanups.push(() => pglite.close());

    const server = new PGLiteSocketServer({
      db: pglite,
      ...(socketPath ? { path: socketPath } : { host: '127.0.0.1', port: 0 }),
      maxConnections: MAX_SOCKET_CONNECTIONS,
    });
    // pglite-socket reports client errors (ECONNRESET, …) as events; log them, never throw.
    server.addEventListener('error', (e) => logSocketError(log, (e as CustomEvent).detail));
    await server.start();
    cleanups.push(() => server.stop());
    guardSockets(server, log);
    // Trust authentication: only this user may connect (the dir's mode may be wider).
    if (socketPath) chmodSync(socketPath, 0o600);

    const [host, port] = socketPath
      ? [opts.dataDir, SOCKET_PORT]
      : ['127.0.0.1', Number(server.getServerConn().split(':').pop())];
    return { host, port, created, pglite, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A client going away abruptly is routine (killed process, pool reaping): debug, not warn. */
function logSocketError(log: Logger | undefined, err: unknown): void {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const msg = String((err as Error | undefined)?.message ?? err);
  if (code === 'ECONNRESET' || code === 'EPIPE' || /ECONNRESET|EPIPE/.test(msg)) {
    log?.debug({ err }, 'embedded database: client connection reset');
  } else {
    log?.warn({ err }, 'embedded database: socket error');
  }
}

function removeStaleSocket(path: string, log?: Logger): void {
  try {
    if (!lstatSync(path).isSocket()) throw new Error(`${path} exists and is not a socket; refusing to remove it`);
    unlinkSync(path);
    log?.warn({ socket: path }, 'embedded database: removed socket file left by a previous run');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * pglite-socket attaches its 'error' handler to a client socket one tick after accepting it,
 * and not at all to sockets it refuses over maxConnections. A client resetting in that window
 * would raise an unhandled 'error' event and crash the process; attach a handler at once.
 */
function guardSockets(server: PGLiteSocketServer, log?: Logger): void {
  const netServer = (server as unknown as { server?: import('node:net').Server }).server;
  netServer?.on('connection', (socket: Socket) => {
    socket.on('error', (err) => logSocketError(log, err));
  });
  netServer?.on('drop', () => log?.warn('embedded database: connection dropped (maxConnections reached)'));
}
