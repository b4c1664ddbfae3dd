import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';

/**
 * Starts the server: PGlite (PostgreSQL 18 compiled to WASM) and its wire-protocol server in a
 * worker thread of their own (pglite-worker.js), like a database server in a process of its own:
 * PGlite's start-up (WASM compile, initdb or recovery, ~0.5–4 s of CPU) runs on another core
 * while the caller loads its own modules, and queries do not block the caller's event loop. This
 * module imports no database package, so a caller can start the database before loading anything
 * heavy. The data dir lock stays in the calling thread.
 *
 * Data dir layout (`dataDir`, mode 0700; PostgreSQL's files 0600):
 *   pg/               PGlite's PostgreSQL data directory
 *   .s.PGSQL.5432     the Unix socket, named as libpq/pg expect (host = dataDir, port = 5432)
 *   gradual.lock      see data-dir-lock.ts
 * The socket and lock live beside, not inside, pg/ so dumpDataDir() tarballs only PostgreSQL files.
 *
 * The socket is the only way in, and it admits only this user (mode 0600; trust authentication):
 * never TCP, where any local user could connect as the superuser. When the data dir's path is
 * too long for a socket path (sun_path), and for an in-memory database, the socket is in a
 * private directory (0700) of its own under os.tmpdir(), removed on stop.
 */

export const MEMORY_DATA_DIR = 'memory://';
const SOCKET_PORT = 5432;
const SOCKET_NAME = `.s.PGSQL.${SOCKET_PORT}`;
/** sun_path holds 108 bytes on Linux, 104 on macOS (with its NUL). */
const MAX_SOCKET_PATH = process.platform === 'linux' ? 107 : 103;
const DEFAULT_MAX_CONNECTIONS = 8;
/** How long stop() waits for the database thread to shut PGlite down before terminating it. */
const STOP_TIMEOUT_MS = 5_000;

/**
 * The worker's code. Run from the sources it is the file beside this one; a bundle must emit it
 * under the same name beside the code of this module (Gradual's scripts/start.mjs does).
 */
const WORKER_URL = new URL('./pglite-worker.js', import.meta.url);

/** Where the server listens; clients connect as user `postgres` to database `postgres`, no password. */
export interface ServerTarget {
  /** A directory (the Unix socket's, as libpq and pg take it) or 127.0.0.1. */
  host: string;
  /** 5432 for the socket; for TCP the random port, undefined until the server listens. */
  port: number | undefined;
}

export interface PGliteServer {
  host: string;
  port: number;
  /** true when the data dir had no database yet */
  created: boolean;
  /** How a new database was made: from `loadDataDir`, the cached initdb template, or initdb. */
  createdFrom?: 'dump' | 'template' | 'initdb';
  /** A tarball of the whole database (PGlite's dumpDataDir), loadable through `loadDataDir`. */
  dumpDataDir(compression: 'gzip' | 'none'): Promise<Blob>;
  /**
   * Runs `select 1` in the database thread: resolves when PGlite has run it (with rows or an
   * error); rejects at once when the thread is gone. A wedged thread never answers: the caller
   * sets the deadline (a watchdog).
   */
  ping(): Promise<void>;
  /**
   * Tests only (`faultInjection`): a full disk (every write that grows a file fails with ENOSPC)
   * on or off, or a thread that stops answering. Resolves once the thread has taken it.
   */
  injectFault(fault: { diskFull?: boolean; wedge?: boolean }): Promise<void>;
  /** Stops the socket server and PGlite (a clean shutdown), then releases the data dir lock. */
  stop(): Promise<void>;
}

/** The part of a pino-style logger used here: an object of fields, then the message. */
export interface ServerLogger {
  debug(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

export interface StartOptions {
  /** absolute path (created if missing), or MEMORY_DATA_DIR */
  dataDir: string;
  /** initial contents (a dumpDataDir() tarball); only used when there is no database yet */
  loadDataDir?: Blob;
  /** Client connections beyond this many are refused (SQLSTATE 53300). Default 8. */
  maxConnections?: number;
  logger?: ServerLogger;
  /** Tests only: enables `injectFault()` (the worker then checks every write). */
  faultInjection?: boolean;
}

export interface StartingServer {
  /** Where the server will listen, known before it is ready (undefined port: TCP, see above). */
  target: ServerTarget;
  created: boolean;
  /** Resolves once PGlite accepts connections; on failure everything is already cleaned up. */
  ready: Promise<PGliteServer>;
}

export function isMemoryDataDir(dataDir: string): boolean {
  return dataDir === MEMORY_DATA_DIR || dataDir === ':memory:' || dataDir === 'memory:';
}

type FromWorker =
  | { type: 'ready'; port?: number; createdFrom?: PGliteServer['createdFrom'] }
  | { type: 'failed'; error: PlainError }
  | { type: 'log'; level: 'debug' | 'warn'; msg: string; err?: PlainError }
  | { type: 'dumped'; id: number; data?: ArrayBuffer; error?: PlainError }
  | { type: 'pong' | 'faulted'; id: number; error?: PlainError }
  | { type: 'stopped' };
interface PlainError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

function toError(e: PlainError): Error {
  const err: Error & { code?: string } = new Error(e.message);
  err.name = e.name;
  if (e.stack) err.stack = e.stack;
  if (e.code) err.code = e.code;
  return err;
}

/**
 * Takes the data dir lock and starts the database thread. Throws at once (DataDirLockedError)
 * when another server holds the dir; everything slower is reported through `ready`.
 */
export function start(opts: StartOptions): StartingServer {
  const log = opts.logger;
  const memory = isMemoryDataDir(opts.dataDir);
  let lock: DataDirLock | undefined;
  let pgDir: string | undefined;
  let socketPath: string | undefined;
  let privateSocketDir: string | undefined;
  if (!memory) {
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 }); // PGlite does not create parent dirs
    lock = acquireDataDirLock(opts.dataDir, (msg, extra) => log?.warn(extra ?? {}, msg));
    try {
      makePrivate(opts.dataDir, log);
      pgDir = join(opts.dataDir, 'pg');
      if (process.platform !== 'win32') {
        // We hold the lock, so a socket file here was left by a crashed server.
        removeStaleSocket(join(opts.dataDir, SOCKET_NAME), log);
        if (join(opts.dataDir, SOCKET_NAME).length <= MAX_SOCKET_PATH) socketPath = join(opts.dataDir, SOCKET_NAME);
        else {
          privateSocketDir = makePrivateSocketDir(opts.dataDir);
          socketPath = join(privateSocketDir, SOCKET_NAME);
          log?.warn({ dataDir: opts.dataDir, socketDir: privateSocketDir }, `embedded database: the data dir's path is too long for a Unix socket; listening in ${privateSocketDir}`);
        }
      }
    } catch (err) {
      lock.release();
      throw err;
    }
  } else if (process.platform !== 'win32') {
    privateSocketDir = makePrivateSocketDir(undefined);
    socketPath = join(privateSocketDir, SOCKET_NAME);
  }
  const created = pgDir === undefined || !existsSync(join(pgDir, 'PG_VERSION'));
  const pgDirExisted = pgDir !== undefined && existsSync(pgDir);
  // Windows has no Unix sockets here: 127.0.0.1 on a random port.
  const target: ServerTarget = socketPath ? { host: privateSocketDir ?? opts.dataDir, port: SOCKET_PORT } : { host: '127.0.0.1', port: undefined };
  const cleanup = () => {
    if (privateSocketDir) rmSync(privateSocketDir, { recursive: true, force: true });
    lock?.release();
  };
  return { target, created, ready: runWorker({ ...opts, pgDir, pgDirExisted, socketPath, created, cleanup, target }) };
}

/**
 * A new private directory (0700) under os.tmpdir() for the socket, with a short random name.
 * Fails with the reason when even that path is too long.
 */
function makePrivateSocketDir(dataDir: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'gradual-'));
  if (join(dir, SOCKET_NAME).length > MAX_SOCKET_PATH) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `embedded database: no Unix socket path fits in ${MAX_SOCKET_PATH} bytes` +
        (dataDir ? ` (DATA_DIR ${dataDir} is too long, and so is the temporary directory ${tmpdir()})` : ` (the temporary directory ${tmpdir()} is too long)`) +
        '; use a shorter DATA_DIR or set TMPDIR to a shorter directory',
    );
  }
  return dir;
}

/**
 * The data dir and PostgreSQL's files in it are this user's only (0700 / 0600): tightens what an
 * older version or a wide umask left readable by others.
 */
function makePrivate(dataDir: string, log: ServerLogger | undefined): void {
  let widened = 0;
  const tighten = (path: string, isDir: boolean) => {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) === 0) return;
    chmodSync(path, isDir ? 0o700 : 0o600);
    widened++;
  };
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        tighten(path, true);
        walk(path);
      } else if (entry.isFile()) tighten(path, false);
    }
  };
  tighten(dataDir, true);
  if (existsSync(join(dataDir, 'pg'))) {
    tighten(join(dataDir, 'pg'), true);
    walk(join(dataDir, 'pg'));
  }
  if (widened > 0) log?.warn({ dataDir, files: widened }, 'embedded database: made the data dir and its files private to this user (0700/0600)');
}

async function runWorker(opts: StartOptions & {
  pgDir: string | undefined;
  pgDirExisted: boolean;
  socketPath: string | undefined;
  created: boolean;
  /** Releases the lock and removes a private socket dir. */
  cleanup: () => void;
  target: ServerTarget;
}): Promise<PGliteServer> {
  const log = opts.logger;
  let worker: Worker;
  try {
    const loadDataDir = opts.created && opts.loadDataDir ? await opts.loadDataDir.arrayBuffer() : undefined;
    worker = new Worker(WORKER_URL, {
      // Not the process's flags: loaders and eval flags (tsx, --input-type, …) do not apply to
      // this plain-JS worker, and some are refused in workers.
      execArgv: process.execArgv.filter((arg) => arg === '--enable-source-maps'),
      workerData: {
        pgDir: opts.pgDir,
        pgDirExisted: opts.pgDirExisted,
        created: opts.created,
        socketPath: opts.socketPath,
        loadDataDir,
        maxConnections: opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
        faultInjection: opts.faultInjection === true,
      },
      transferList: loadDataDir ? [loadDataDir] : [],
    });
  } catch (err) {
    opts.cleanup();
    throw err;
  }

  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  let state: 'starting' | 'ready' | 'stopping' | 'stopped' = 'starting';
  const dumps = new Map<number, { resolve(b: Blob): void; reject(e: Error): void }>();
  let nextDump = 1;
  const pings = new Map<number, { resolve(): void; reject(e: Error): void }>();
  let nextPing = 1;
  let onStopped: (() => void) | undefined;
  type Ready = Extract<FromWorker, { type: 'ready' }>;
  let settle: { resolve(msg: Ready): void; reject(err: Error): void } | undefined;
  const ready = new Promise<Ready>((resolve, reject) => (settle = { resolve, reject }));

  worker.on('message', (msg: FromWorker) => {
    switch (msg.type) {
      case 'ready':
        state = 'ready';
        settle?.resolve(msg);
        break;
      case 'failed':
        settle?.reject(toError(msg.error));
        break;
      case 'log':
        log?.[msg.level](msg.err ? { err: toError(msg.err) } : {}, msg.msg);
        break;
      case 'dumped': {
        const pending = dumps.get(msg.id);
        dumps.delete(msg.id);
        if (msg.error) pending?.reject(toError(msg.error));
        else if (msg.data) pending?.resolve(new Blob([msg.data]));
        else pending?.reject(new Error('embedded database: an empty dump'));
        break;
      }
      case 'faulted':
      case 'pong': {
        const pending = pings.get(msg.id);
        pings.delete(msg.id);
        if (msg.error) pending?.reject(toError(msg.error));
        else pending?.resolve();
        break;
      }
      case 'stopped':
        onStopped?.();
        break;
    }
  });
  // An uncaught error in the worker (e.g. a WASM abort) ends the thread: the database is gone.
  worker.on('error', (err) => {
    if (state === 'starting') settle?.reject(err);
    else log?.error({ err }, 'embedded database: the database thread failed');
  });
  void exited.then((code) => {
    const wasRunning = state === 'ready';
    state = 'stopped';
    settle?.reject(new Error(`embedded database thread exited during start-up (code ${code})`));
    for (const pending of [...dumps.values(), ...pings.values()]) pending.reject(new Error('embedded database stopped'));
    dumps.clear();
    pings.clear();
    if (wasRunning) log?.error({ code }, 'embedded database: the database thread exited unexpectedly');
  });

  let started: Ready;
  try {
    started = await ready;
  } catch (err) {
    await exited; // the worker cleans up after itself before reporting 'failed'
    opts.cleanup();
    throw err;
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      try {
        if (state === 'ready') {
          state = 'stopping';
          const stopped = new Promise<void>((resolve) => (onStopped = resolve));
          worker.postMessage({ type: 'stop' });
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_TIMEOUT_MS)));
          const outcome = await Promise.race([stopped, exited, late]);
          clearTimeout(timer);
          if (outcome === 'late') {
            // A thread that does not answer (wedged, or PGlite stuck on a full disk): end it. The
            // next start replays the WAL, as after a crash.
            log?.error({ timeoutMs: STOP_TIMEOUT_MS }, 'embedded database: the database thread did not stop in time; terminating it');
            await worker.terminate();
          }
        } else if (state !== 'stopped') {
          await worker.terminate();
        }
        await exited;
      } finally {
        opts.cleanup();
      }
    })());

  const port = opts.target.port ?? started.port;
  if (port === undefined) {
    await stop();
    throw new Error('embedded database: the server reported no port');
  }
  return {
    host: opts.target.host,
    port,
    created: opts.created,
    createdFrom: started.createdFrom,
    stop,
    ping() {
      if (state !== 'ready') return Promise.reject(new Error('embedded database is not running'));
      const id = nextPing++;
      return new Promise<void>((resolve, reject) => {
        pings.set(id, { resolve, reject });
        worker.postMessage({ type: 'ping', id });
      });
    },
    injectFault(fault) {
      if (!opts.faultInjection) return Promise.reject(new Error('embedded database: started without faultInjection'));
      if (state !== 'ready') return Promise.reject(new Error('embedded database is not running'));
      const id = nextPing++;
      return new Promise<void>((resolve, reject) => {
        pings.set(id, { resolve, reject });
        worker.postMessage({ type: 'fault', id, ...fault });
      });
    },
    dumpDataDir(compression) {
      if (state !== 'ready') return Promise.reject(new Error('embedded database is not running'));
      const id = nextDump++;
      return new Promise<Blob>((resolve, reject) => {
        dumps.set(id, { resolve, reject });
        worker.postMessage({ type: 'dump', id, compression });
      });
    },
  };
}

function removeStaleSocket(path: string, log?: ServerLogger): void {
  try {
    if (!lstatSync(path).isSocket()) throw new Error(`${path} exists and is not a socket; refusing to remove it`);
    unlinkSync(path);
    log?.warn({ socket: path }, 'embedded database: removed socket file left by a previous run');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
