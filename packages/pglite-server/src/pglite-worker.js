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
//                         | { type: 'stopped' }
//   from the main thread: { type: 'dump', id, compression } | { type: 'stop' }
import { chmodSync, rmSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { buildTemplate, readTemplate, saveTemplate } from './template.js';
import { serve } from './wire-server.js';

const { pgDir, pgDirExisted, created, socketPath, loadDataDir, maxConnections } = workerData;
const port = parentPort;

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
