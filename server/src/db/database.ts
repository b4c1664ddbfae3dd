import { resolve } from 'node:path';
import { MikroORM, type EntityManager, type Options } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { isMemoryDataDir, MEMORY_DATA_DIR, startEmbedded, type EmbeddedServer } from './embedded.js';
import { baseOrmOptions } from './orm-options.js';

export { DataDirLockedError } from './data-dir-lock.js';
export { MEMORY_DATA_DIR } from './embedded.js';

export interface DatabaseOptions {
  /** postgres://… — unset means the embedded database (PGlite) in `dataDir`. */
  databaseUrl?: string;
  /** Embedded data directory (created if missing), or `memory://` for a throw-away in-memory database. */
  dataDir: string;
  /** PostgreSQL schema for every table (created if missing). Default `public`. */
  schema?: string;
  logger?: Logger;
  /** PostgreSQL pool size, default 10, at least 2 (one connection holds the migration lock). Embedded always uses 1. */
  poolMax?: number;
  /** How long a unit of work waits for a pooled connection before failing. Default 30 s. */
  acquireTimeoutMs?: number;
  /**
   * Embedded only: initial contents for a database that does not exist yet (memory, or a
   * data dir without a database), as produced by `Database.dumpDataDir()`. Tests use it to
   * start from an already-migrated database in a fraction of the initdb + migrate time.
   */
  loadDataDir?: Blob;
  /** Run pending migrations at open. Default true. */
  migrate?: boolean;
}

export interface Database {
  kind: 'embedded' | 'postgres';
  orm: MikroORM;
  /** A fresh EntityManager fork for one unit of work (request, job, …). */
  em(): EntityManager;
  /** `SELECT 1`; throws when the database is unreachable. */
  ping(): Promise<void>;
  /** Closes the ORM pool, then (embedded) the socket server and PGlite, and releases the data dir lock. */
  close(): Promise<void>;
  /**
   * Embedded only: a tarball of the whole database, loadable through `loadDataDir`.
   * 'none' is ~10x larger but loads about twice as fast (tests); 'gzip' for backups.
   */
  dumpDataDir(compression?: 'gzip' | 'none'): Promise<Blob>;
}

const DEFAULT_POOL_MAX = 10;
const DEFAULT_ACQUIRE_TIMEOUT_MS = 30_000;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const log = opts.logger;
  const schema = opts.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}: use [a-z_][a-z0-9_]*`);
  const acquireTimeoutMs = opts.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
  const started = performance.now();

  const common: Options = {
    ...baseOrmOptions(log),
    schema,
    driverOptions: {
      acquireConnectionTimeout: acquireTimeoutMs,
      // knex runs `SET search_path` on every new connection, so the unqualified SQL in
      // migrations and raw queries lands in `schema` too (MikroORM itself qualifies names).
      ...(schema !== 'public' ? { searchPath: [schema, 'public'] } : {}),
    },
  };

  // Start-up phases in ms, logged with "database open" (start-up time is a product target).
  const phases: Record<string, number> = {};
  let mark = started;
  const phase = (name: string) => {
    const t = performance.now();
    phases[name] = Math.round(t - mark);
    mark = t;
  };

  let embedded: EmbeddedServer | undefined;
  let orm: MikroORM;
  if (opts.databaseUrl) {
    orm = await MikroORM.init({
      ...common,
      clientUrl: opts.databaseUrl,
      pool: { min: 0, max: Math.max(2, opts.poolMax ?? DEFAULT_POOL_MAX), acquireTimeoutMillis: acquireTimeoutMs },
      driverOptions: {
        ...(common.driverOptions as object),
        // MikroORM's clientUrl keeps only host/port/user/password/db/schema; pg re-parses the
        // full URL so sslmode, options, host=/socket/dir, … still apply.
        connection: { connectionString: opts.databaseUrl },
      },
      // The database must exist (creating it needs privileges a service should not have).
      ensureDatabase: false,
    });
  } else {
    const dataDir = isMemoryDataDir(opts.dataDir) ? MEMORY_DATA_DIR : resolve(opts.dataDir);
    embedded = await startEmbedded({ dataDir, loadDataDir: opts.loadDataDir, logger: log });
    phase('pglite');
    try {
      orm = await MikroORM.init({
        ...common,
        host: embedded.host,
        port: embedded.port,
        user: 'postgres',
        password: '',
        dbName: 'postgres',
        // PGlite is ONE PostgreSQL session shared by every socket connection: a second
        // connection used while a transaction is open waits forever. One connection, and an
        // acquire timeout so a stuck unit of work surfaces as an error instead of a hang.
        pool: { min: 0, max: 1, acquireTimeoutMillis: acquireTimeoutMs },
        ensureDatabase: false,
      });
    } catch (err) {
      await embedded.stop();
      throw err;
    }
  }

  phase('connect');

  const close = async () => {
    try {
      await orm.close(true);
    } finally {
      await embedded?.stop();
    }
  };

  try {
    // Several instances may start at once (rolling deploy): one migrates, the others wait.
    // The embedded database needs no such lock: its data dir lock admits one process.
    const prepare = async () => {
      if (schema !== 'public') {
        await orm.em.getConnection().execute(`create schema if not exists "${schema}"`);
      }
      if (opts.migrate !== false) {
        const applied = await orm.getMigrator().up();
        if (applied.length > 0) log?.info({ migrations: applied.map((m) => m.name), schema }, 'database migrated');
      }
    };
    await (embedded ? prepare() : withAdvisoryLock(orm, `gradual.migrate.${schema}`, prepare));
    phase('migrate');
  } catch (err) {
    await close();
    throw err;
  }

  const kind = embedded ? 'embedded' : 'postgres';
  log?.info(
    { kind, schema, created: embedded?.created, ms: Math.round(performance.now() - started), phases },
    'database open',
  );

  return {
    kind,
    orm,
    em: () => orm.em.fork(),
    async ping() {
      await orm.em.getConnection().execute('select 1');
    },
    close,
    async dumpDataDir(compression = 'gzip') {
      if (!embedded) throw new Error('dumpDataDir() is only available on the embedded database');
      // Flush shared buffers to the files being tarred, so the dump needs no WAL replay.
      await orm.em.getConnection().execute('checkpoint');
      return embedded.pglite.dumpDataDir(compression);
    },
  };
}

/**
 * Runs `fn` while holding a PostgreSQL session advisory lock on a connection of its own
 * (`fn` uses other pooled connections: MikroORM's migrator does not run everything in one
 * transaction, e.g. it creates its log table outside it).
 */
async function withAdvisoryLock<T>(orm: MikroORM, name: string, fn: () => Promise<T>): Promise<T> {
  const client = orm.em.getConnection().getKnex().client;
  const conn = (await client.acquireConnection()) as { query(sql: string, params?: unknown[]): Promise<unknown> };
  try {
    await conn.query('select pg_advisory_lock(hashtext($1))', [name]);
    try {
      return await fn();
    } finally {
      await conn.query('select pg_advisory_unlock(hashtext($1))', [name]);
    }
  } finally {
    await client.releaseConnection(conn);
  }
}
