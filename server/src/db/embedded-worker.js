// The embedded database's thread: PGlite (PostgreSQL in WASM) served over the PostgreSQL wire
// protocol by pglite-socket (batching its messages: pglite-batching.js). Started by embedded.ts,
// which owns the data dir lock and talks to this thread only through the messages below;
// MikroORM connects to the socket like to any server.
//
// Plain JavaScript on purpose: it runs unchanged from the sources (vitest, tsx) and from the
// esbuild output (npm start), without a TypeScript loader in the worker.
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
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { installBatching } from './pglite-batching.js';
import { buildTemplate, readTemplate, saveTemplate } from './pglite-template.js';

const { pgDir, pgDirExisted, created, socketPath, loadDataDir, maxConnections } = workerData;
// Every complete message that has arrived goes to PGlite in one call (pglite-batching.js: why).
installBatching();
const port = parentPort;

/** Errors cross the thread boundary as plain objects (the main thread rebuilds an Error). */
function plainError(err) {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack, code: err.code };
  return { name: 'Error', message: String(err) };
}

/** A client going away abruptly is routine (killed process, pool reaping): debug, not warn. */
function logSocketError(err) {
  const msg = String(err?.message ?? err);
  const routine = err?.code === 'ECONNRESET' || err?.code === 'EPIPE' || /ECONNRESET|EPIPE/.test(msg);
  port.postMessage(
    routine
      ? { type: 'log', level: 'debug', msg: 'embedded database: client connection reset', err: plainError(err) }
      : { type: 'log', level: 'warn', msg: 'embedded database: socket error', err: plainError(err) },
  );
}

/**
 * Opens the database. A new one is loaded from the given dump (tests) or from the cached initdb
 * template (pglite-template.js), made first if missing, instead of running initdb into it.
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
      port.postMessage({ type: 'log', level: 'debug', msg: 'embedded database: cannot cache the initdb template', err: plainError(err) });
    }
  }
  try {
    return { pg: await PGlite.create({ dataDir: pgDir, loadDataDir: template }), createdFrom };
  } catch (err) {
    port.postMessage({ type: 'log', level: 'warn', msg: 'embedded database: the cached initdb template failed; running initdb', err: plainError(err) });
    if (pgDir && !pgDirExisted) rmSync(pgDir, { recursive: true, force: true });
    return { pg: await PGlite.create({ dataDir: pgDir }), createdFrom: 'initdb' };
  }
}

let pglite;
let server;
/** Every client socket, so stop() can close them all: see there. */
const sockets = new Set();
let stopping;
function stop() {
  stopping ??= (async () => {
    try {
      const stopped = server?.stop();
      // pglite-socket leaves some sockets open (one accepted just before stop, or one it refused
      // over maxConnections, is only half-closed), and the server waits for every socket before
      // it reports closed. Our pool is already closed: nothing of value is left on them.
      for (const socket of sockets) socket.destroy();
      await stopped;
    } catch (err) {
      port.postMessage({ type: 'log', level: 'warn', msg: 'embedded database: error while stopping', err: plainError(err) });
    }
    try {
      // A clean shutdown (checkpoint): the next start needs no WAL replay.
      await pglite?.close();
    } catch (err) {
      port.postMessage({ type: 'log', level: 'warn', msg: 'embedded database: error while stopping', err: plainError(err) });
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
  server = new PGLiteSocketServer({
    db: pglite,
    ...(socketPath ? { path: socketPath } : { host: '127.0.0.1', port: 0 }),
    maxConnections,
  });
  // pglite-socket reports client errors (ECONNRESET, …) as events; log them, never throw.
  server.addEventListener('error', (e) => logSocketError(e.detail));
  await server.start();
  // pglite-socket attaches its 'error' handler to a client socket one tick after accepting it,
  // and not at all to sockets it refuses over maxConnections. A client resetting in that window
  // would raise an unhandled 'error' event and crash the process; attach a handler at once.
  const netServer = server.server;
  netServer?.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', logSocketError);
  });
  netServer?.on('drop', () =>
    port.postMessage({ type: 'log', level: 'warn', msg: 'embedded database: connection dropped (maxConnections reached)' }),
  );
  // Trust authentication: only this user may connect (the dir's mode may be wider).
  if (socketPath) chmodSync(socketPath, 0o600);
  port.postMessage({
    type: 'ready',
    port: socketPath ? undefined : Number(server.getServerConn().split(':').pop()),
    createdFrom: opened.createdFrom,
  });
} catch (err) {
  await stop();
  port.postMessage({ type: 'failed', error: plainError(err) });
  port.close();
}
