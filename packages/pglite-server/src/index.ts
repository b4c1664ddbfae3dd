// @gradual/pglite-server: PGlite served over the PostgreSQL wire protocol, in a worker thread,
// on a locked data dir (README.md). What may import it: anything; it imports only PGlite (in its
// worker thread) and Node's own modules.
export { DataDirLockedError, LOCK_FILE_NAME } from './data-dir-lock.js';
export {
  isMemoryDataDir,
  MEMORY_DATA_DIR,
  start,
  type PGliteServer,
  type ServerLogger,
  type ServerTarget,
  type StartingServer,
  type StartOptions,
} from './start.js';
export { serve, type ServedPGlite, type WireServer, type WireServerLog, type WireServerOptions } from './wire-server.js';
