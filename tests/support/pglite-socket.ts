import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { installBatching } from '../../server/src/db/pglite-batching.js';

/**
 * An in-memory PGlite behind pglite-socket with our batching, on a random 127.0.0.1 port: the
 * embedded database's parts without the worker thread, for the tests of those parts. `prepare`
 * runs on the database before the server starts (instrumentation, tables).
 */
export async function startPGliteSocket(opts: { maxConnections: number; prepare?: (db: PGlite) => Promise<void> }): Promise<{ db: PGlite; port: number; stop: () => Promise<void> }> {
  installBatching();
  const db = await PGlite.create();
  await opts.prepare?.(db);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: opts.maxConnections });
  await server.start();
  return {
    db,
    port: Number(server.getServerConn().split(':').pop()),
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
