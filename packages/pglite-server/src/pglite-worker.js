// The database's thread: PGlite (PostgreSQL in WASM) served over the PostgreSQL wire protocol
// (wire-server.js). Started by start.ts, which owns the data dir lock and talks to this thread
// only through the messages below; clients connect to the socket like to any server.
//
// Plain JavaScript on purpose: it runs unchanged from the sources (vitest, tsx) and from a
// bundle (esbuild: emitted as pglite-worker.js beside the code of start.ts), without a
// TypeScript loader in the worker.
//
//   workerData: { pgDir?: string (absent = in memory), pgDirExisted: boolean, created: boolean,
//                 socketPath?: string (absent = TCP on 127.0.0.1, random port),
//                 loadDataDir?: ArrayBuffer, maxConnections: number }
//   to the main thread:   { type: 'ready', port?, createdFrom? } | { type: 'failed', error }
//                         | { type: 'log', level, msg, err? } | { type: 'dumped', id, data?, error? }
//                         | { type: 'pong', id } | { type: 'faulted', id } | { type: 'stopped' }
//   from the main thread: { type: 'dump', id, compression } | { type: 'ping', id } | { type: 'stop' }
//                         | { type: 'fault', id, diskFull?, wedge? } (only with faultInjection)
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { buildTemplate, readTemplate, saveTemplate } from './template.js';
import { serve } from './wire-server.js';

const { pgDir, pgDirExisted, created, socketPath, loadDataDir, maxConnections, faultInjection } = workerData;
const port = parentPort;

// The database's files are private to this user: directories 0700, files 0600, whatever the
// process's umask (PGlite's file system creates files with mode 0666 and directories 0777, and
// a worker thread cannot set the umask). Every file this thread creates goes through these.
const PRIVATE = 0o077;
const { chmodSync, fchmodSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } = fs;
fs.mkdirSync = (path, options) =>
  mkdirSync(path, typeof options === 'object' && options !== null ? { ...options, mode: (options.mode ?? 0o777) & ~PRIVATE } : (options ?? 0o777) & ~PRIVATE);
fs.writeFileSync = (path, data, options) =>
  writeFileSync(path, data, typeof options === 'string' ? { encoding: options, mode: 0o600 } : { ...options, mode: (options?.mode ?? 0o666) & ~PRIVATE });
fs.openSync = (path, flags, mode) => openSync(path, flags, (mode ?? 0o666) & ~PRIVATE);
fs.chmodSync = (path, mode) => chmodSync(path, mode & ~PRIVATE);
fs.fchmodSync = (fd, mode) => fchmodSync(fd, mode & ~PRIVATE);

syncBuiltinESMExports(); // `import * as fs` namespaces (PGlite's NodeFS) see them too

// Fault injection (tests only, start({ faultInjection: true })): a full disk, where every write
// that would make a file larger fails with ENOSPC as PGlite's file system sees it (writes inside
// a file's current size, like WAL segments allocated in advance, still succeed), or a wedged
// thread (it stops answering).
const faults = { diskFull: false };
if (faultInjection) {
  const { fstatSync } = fs;
  fs.writeSync = (fd, buffer, offset, length, position) => {
    if (faults.diskFull) {
      const end = (typeof position === 'number' ? position : Infinity) + (typeof length === 'number' ? length : buffer.length);
      if (end > fstatSync(fd).size) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    }
    return writeSync(fd, buffer, offset, length, position);
  };
  syncBuiltinESMExports();
}

/** Errors cross the thread boundary as plain objects (the main thread rebuilds an Error). */
function plainError(err) {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack, code: err.code };
  return { name: 'Error', message: String(err) };
}

function log(level, msg, err) {
  port.postMessage({ type: 'log', level, msg: `embedded database: ${msg}`, err: err ? plainError(err) : undefined });
}

/**
 * Opens the database. A new one is loaded from the given dump or from the cached initdb
 * template (template.js), made first if missing, instead of running initdb into it.
 */
async function openPGlite() {
  if (!created || loadDataDir) {
    const pg = await PGlite.create({ dataDir: pgDir, loadDataDir: loadDataDir ? new Blob([loadDataDir]) : undefined });
    return { pg, createdFrom: created ? 'dump' : undefined };
  }
  let template = readTemplate();
  let createdFrom = 'template';
  if (!template) {
    template = await buildTemplate(PGlite);
    createdFrom = 'initdb';
    try {
      await saveTemplate(template);
    } catch (err) {
      log('debug', 'cannot cache the initdb template', err);
    }
  }
  try {
    return { pg: await PGlite.create({ dataDir: pgDir, loadDataDir: template }), createdFrom };
  } catch (err) {
    log('warn', 'the cached initdb template failed; running initdb', err);
    if (pgDir && !pgDirExisted) rmSync(pgDir, { recursive: true, force: true });
    return { pg: await PGlite.create({ dataDir: pgDir }), createdFrom: 'initdb' };
  }
}

let pglite;
let server;
let stopping;
function stop() {
  stopping ??= (async () => {
    try {
      await server?.stop();
    } catch (err) {
      log('warn', 'error while stopping', err);
    }
    try {
      // A clean shutdown (checkpoint): the next start needs no WAL replay.
      await pglite?.close();
    } catch (err) {
      log('warn', 'error while stopping', err);
    }
  })();
  return stopping;
}

port.on('message', (msg) => void onMessage(msg));

async function onMessage(msg) {
  if (msg.type === 'dump') {
    try {
      const blob = await pglite.dumpDataDir(msg.compression);
      const data = await blob.arrayBuffer();
      port.postMessage({ type: 'dumped', id: msg.id, data }, [data]);
    } catch (err) {
      port.postMessage({ type: 'dumped', id: msg.id, error: plainError(err) });
    }
  } else if (msg.type === 'ping') {
    // The watchdog's query: answered once PGlite has run it, with rows or with an error (a
    // client's aborted transaction fails it, and the thread is fine). A wedged thread never answers.
    await pglite.query('select 1').catch(() => {});
    port.postMessage({ type: 'pong', id: msg.id });
  } else if (msg.type === 'fault' && faultInjection) {
    if (msg.diskFull !== undefined) faults.diskFull = msg.diskFull;
    port.postMessage({ type: 'faulted', id: msg.id });
    if (msg.wedge) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // for ever
  } else if (msg.type === 'stop') {
    await stop();
    port.postMessage({ type: 'stopped' });
    port.close(); // nothing keeps this thread alive any more: it exits
  }
}

try {
  const opened = await openPGlite();
  pglite = opened.pg;
  server = await serve({ db: pglite, ...(socketPath ? { path: socketPath } : {}), maxConnections, log });
  // Trust authentication: only this user may connect (the dir's mode may be wider).
  if (socketPath) chmodSync(socketPath, 0o600);
  port.postMessage({ type: 'ready', port: server.port, createdFrom: opened.createdFrom });
} catch (err) {
  await stop();
  port.postMessage({ type: 'failed', error: plainError(err) });
  port.close();
}
