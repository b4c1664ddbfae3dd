// Persistence layer: openDatabase() plus the entities. See database.ts.
export { DataDirLockedError, MEMORY_DATA_DIR, openDatabase, type Database, type DatabaseOptions } from './database.js';
export * from './entities/index.js';
