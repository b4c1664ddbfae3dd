import { resolve } from 'node:path';
import type { EntityManager, MikroORM, Options } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { isMemoryDataDir, MEMORY_DATA_DIR, start, type PGliteServer, type StartingServer } from '@gradual/pglite-server';
import { StatementPool } from './statement-pool.js';

// Light on purpose: MikroORM (~0.5 s to load) and the entities are imported inside
// openDatabase(), after the embedded database's thread has started, so both proceed at once.
// main.ts relies on this to open the database before loading the rest of the server.
// The embedded database is @gradual/pglite-server (packages/pglite-server).

export { DataDirLockedError, MEMORY_DATA_DIR } from '@gradual/pglite-server';

/** Connections of the statement pool (statement-pool.ts), beside MikroORM's one. */
const EMBEDDED_STATEMENT_CONNECTIONS = 3;
/**
 * The embedded server's connection limit: every connection twice over, as a pool can open a new
 * connection before the server has seen the old one's close.
 */
const EMBEDDED_MAX_CONNECTIONS = 2 * (1 + EMBEDDED_STATEMENT_CONNECTIONS);

export interface DatabaseOptions {
  /** postgres://… — unset means the embedded database (PGlite) in `dataDir`. */
  databaseUrl?: string;
  /** Embedded data directory (created if missing), or `memory://` for a throw-away in-memory database. */
  dataDir: string;
  /** PostgreSQL schema for every table (created if missing). Default `public`. */
  schema?: string;
  logger?: Logger;
  /**
   * PostgreSQL pool size, default 10, at least 2 (one connection holds the migration lock), and as
   * many again for prepared single statements (statement-pool.ts).
   * Embedded: always 1 for MikroORM, and 3 for prepared single statements (statement-pool.ts).
   */
  poolMax?: number;
  /** How long a unit of work waits for a pooled connection before failing (503). Default 5 s. */
  acquireTimeoutMs?: number;
  /** Told each start-up step as it begins ("opening the embedded database in …", "migrating", …): main.ts logs the one it waits for. */
  onStep?: (step: string) => void;
  /** Embedded, tests only: enables `injectFault()` (a full disk, a wedged database thread). */
  faultInjection?: boolean;
  /**
   * Embedded only: initial contents for a database that does not exist yet (memory, or a
   * data dir without a database), as produced by `Database.dumpDataDir()`. Tests use it to
   * start from an already-migrated database in a fraction of the initdb + migrate time.
   */
  loadDataDir?: Blob;
  /** Run pending migrations at open. Default true. */
  migrate?: boolean;
}

/**
 * Named statements on connections of their own (`$1…` placeholders, prepared once per
 * connection): the statement pool (statement-pool.ts). The ORM's configuration carries it as the
 * MikroORM extension PREPARED_STATEMENTS (`em.config.getExtension`), so code that holds only an
 * EntityManager finds it.
 */
export interface PreparedStatements {
  query<T>(name: string, text: string, values: unknown[]): Promise<T[]>;
}
export const PREPARED_STATEMENTS = 'gradual.preparedStatements';

export interface Database {
  kind: 'embedded' | 'postgres';
  orm: MikroORM;
  /** A fresh EntityManager fork for one unit of work (request, job, …). */
  em(): EntityManager;
  /**
   * Reads a real table with an unqualified name, as the app's queries do: throws when the
   * database is unreachable or the session cannot see the app's tables (a broken search_path).
   */
  ping(): Promise<void>;
  /**
   * Embedded only: a query run by the database thread, for the watchdog (db/watchdog.ts); it
   * never settles when the thread is wedged. Undefined on PostgreSQL, whose outages the pool's
   * timeouts and /readyz report.
   */
  threadPing: (() => Promise<void>) | undefined;
  /** Embedded, opened with `faultInjection` (tests): a full disk on or off, or a wedged database thread; resolves once in effect. */
  injectFault(fault: { diskFull?: boolean; wedge?: boolean }): Promise<void>;
  /** Closes the ORM pool, then (embedded) the socket server and PGlite, and releases the data dir lock. */
  close(): Promise<void>;
  /**
   * Embedded only: a tarball of the whole database, loadable through `loadDataDir`.
   * 'none' is ~10x larger but loads about twice as fast (tests); 'gzip' for backups.
   */
  dumpDataDir(compression?: 'gzip' | 'none'): Promise<Blob>;
}

const DEFAULT_POOL_MAX = 10;
const DEFAULT_ACQUIRE_TIMEOUT_MS = 5_000;
/** On PostgreSQL, how long a prepared one-statement write may wait for row locks before it fails (503). */
const STATEMENT_LOCK_WAIT_MS = 30_000;
/** How long close() waits for the pools to close before stopping the embedded database anyway. */
const POOL_CLOSE_MS = 2_000;
/** A real table, named unqualified as the app's queries name it: what ping() reads. */
const PING_SQL = 'select 1 from environments limit 1';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const log = opts.logger;
  const schema = opts.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}: use [a-z_][a-z0-9_]*`);
  const searchPath = schema !== 'public' ? `${schema},public` : 'public';
  const acquireTimeoutMs = opts.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
  const started = performance.now();

  // Start-up phases, logged with "database open" (start-up time is a product target): ms from
  // the start of openDatabase to the end of each step. `pglite` (its own thread) overlaps
  // `modules` and `init`; the others follow one another.
  const phases: Record<string, number> = {};
  const phase = (name: string) => (phases[name] = Math.round(performance.now() - started));
  const step = (name: string) => opts.onStep?.(name);

  // Embedded: take the data dir lock (fails fast) and boot PGlite in its thread first.
  let starting: StartingServer | undefined;
  if (!opts.databaseUrl) {
    const dataDir = isMemoryDataDir(opts.dataDir) ? MEMORY_DATA_DIR : resolve(opts.dataDir);
    step(isMemoryDataDir(dataDir) ? 'opening the embedded database in memory' : `opening the embedded database in DATA_DIR ${dataDir}`);
    starting = start({ dataDir, loadDataDir: opts.loadDataDir, maxConnections: EMBEDDED_MAX_CONNECTIONS, logger: log, faultInjection: opts.faultInjection });
    starting.ready.then(() => phase('pglite'), () => {}); // failures are handled where it is awaited
  }
  let embedded: PGliteServer | undefined;
  let statements: StatementPool | undefined;

  const connect = async (): Promise<MikroORM> => {
    if (!starting) step('loading the database modules');
    const { MikroORM, baseOrmOptions } = await import('./orm.js');
    phase('modules');
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

    if (!starting) {
      step('connecting to PostgreSQL');
      const orm = await MikroORM.init({
        ...common,
        clientUrl: opts.databaseUrl,
        pool: { min: 0, max: Math.max(2, opts.poolMax ?? DEFAULT_POOL_MAX), acquireTimeoutMillis: acquireTimeoutMs },
        driverOptions: {
          ...(common.driverOptions as object),
          // MikroORM's clientUrl keeps only host/port/user/password/db/schema; pg re-parses the
          // full URL so sslmode, options, host=/socket/dir, … still apply.
          // search_path is set on every connection (a role's or database's default, or a
          // session's SET, never decides where the unqualified SQL lands).
          connection: { connectionString: opts.databaseUrl, options: `-c search_path=${searchPath}` },
        },
        // The database must exist (creating it needs privileges a service should not have).
        ensureDatabase: false,
      });
      statements = new StatementPool({
        server: { url: opts.databaseUrl!, searchPath },
        size: Math.max(2, opts.poolMax ?? DEFAULT_POOL_MAX),
        timeoutMs: acquireTimeoutMs,
        // Row-lock waits behind concurrent writers are no fault (statement-pool.ts).
        statementTimeoutMs: Math.max(acquireTimeoutMs, STATEMENT_LOCK_WAIT_MS),
        logger: log,
      });
      const pool: PreparedStatements = statements;
      orm.config.registerExtension(PREPARED_STATEMENTS, () => pool);
      phase('connect');
      return orm;
    }

    // TCP (Windows only: no Unix sockets) listens on a random port, known
    // once the server is up. A Unix socket's address is known in advance: MikroORM's entity
    // discovery then runs while PGlite is still booting, and it connects afterwards.
    if (starting.target.port === undefined) embedded = await starting.ready;
    const orm = await MikroORM.init({
      ...common,
      host: starting.target.host,
      port: starting.target.port ?? embedded!.port,
      user: 'postgres',
      password: '',
      dbName: 'postgres',
      // PGlite is ONE PostgreSQL session shared by every socket connection: a second
      // connection used while a transaction is open waits forever. One connection, and an
      // acquire timeout so a stuck unit of work surfaces as an error instead of a hang.
      pool: { min: 0, max: 1, acquireTimeoutMillis: acquireTimeoutMs },
      ensureDatabase: false,
      connect: false,
    });
    phase('init');
    try {
      step('waiting for the embedded database to accept connections');
      embedded ??= await starting.ready;
      step('connecting to the embedded database');
      await orm.connect();
      statements = new StatementPool({
        server: { host: starting.target.host, port: starting.target.port ?? embedded.port },
        size: EMBEDDED_STATEMENT_CONNECTIONS,
        timeoutMs: acquireTimeoutMs,
        logger: log,
      });
      const pool: PreparedStatements = statements;
      orm.config.registerExtension(PREPARED_STATEMENTS, () => pool);
    } catch (err) {
      await orm.close(true).catch(() => {});
      throw err;
    }
    phase('connect');
    return orm;
  };

  let orm: MikroORM;
  try {
    orm = await connect();
  } catch (err) {
    // The database thread may still be booting: stop it once it is up (or has failed).
    const running = await starting?.ready.catch(() => undefined);
    await running?.stop();
    throw err;
  }

  // Closing never hangs: a database that does not answer (a wedged embedded thread, a PostgreSQL
  // server gone silent) gets POOL_CLOSE_MS for the pools' goodbyes, then the embedded database's
  // stop() ends its thread (in bounded time itself), which closes whatever is left.
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= closeOnce());
  const closeOnce = async () => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, POOL_CLOSE_MS)));
    try {
      await Promise.race([Promise.all([statements?.close(), orm.close(true)]), late]);
    } finally {
      clearTimeout(timer);
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
    // Usually every migration is applied already: one query tells, and the migrator (~0.1 s
    // even with nothing to do) and the advisory lock are skipped. Otherwise the full path runs
    // and decides again under the lock.
    step('checking migrations');
    const upToDate = opts.migrate === false ? schema === 'public' : await allMigrationsApplied(orm, schema);
    if (!upToDate) step('migrating the database');
    if (!upToDate) await (embedded ? prepare() : withAdvisoryLock(orm, `gradual.migrate.${schema}`, prepare));
    phase('migrate');
  } catch (err) {
    await close();
    throw err;
  }

  const kind = embedded ? 'embedded' : 'postgres';
  const thread = embedded;
  log?.info(
    { kind, schema, created: embedded?.created, createdFrom: embedded?.createdFrom, ms: Math.round(performance.now() - started), phases },
    'database open',
  );

  return {
    kind,
    orm,
    em: () => orm.em.fork(),
    async ping() {
      await orm.em.getConnection().execute(PING_SQL);
    },
    threadPing: thread ? () => thread.ping() : undefined,
    injectFault(fault) {
      if (!thread) return Promise.reject(new Error('injectFault() is only available on the embedded database'));
      return thread.injectFault(fault);
    },
    close,
    async dumpDataDir(compression = 'gzip') {
      if (!embedded) throw new Error('dumpDataDir() is only available on the embedded database');
      // Flush shared buffers to the files being tarred, so the dump needs no WAL replay.
      await orm.em.getConnection().execute('checkpoint');
      return embedded.dumpDataDir(compression);
    },
  };
}

/**
 * Whether every migration in the ORM's `migrationsList` is recorded in the migrations table.
 * false when it cannot tell (no table or schema yet, an unexpected error): the caller then
 * runs the migrator, which reports real problems itself.
 */
async function allMigrationsApplied(orm: MikroORM, schema: string): Promise<boolean> {
  const { migrationsList, tableName } = orm.config.get('migrations');
  if (!migrationsList || !tableName || tableName.includes('.')) return false;
  try {
    const rows = await orm.em
      .getConnection()
      .execute<{ name: string }[]>(`select name from "${schema}"."${tableName}"`, [], 'all');
    // MikroORM logs names without extension but accepts rows written with one.
    const applied = new Set(rows.map((r) => r.name.replace(/\.[jt]s$/, '')));
    return migrationsList.every((m) => applied.has(m.name));
  } catch {
    return false;
  }
}

/**
 * Runs `fn` while holding a PostgreSQL advisory lock, taken in a transaction of its own on one
 * pooled connection (knex's transaction) and released when that transaction ends (`fn` uses other
 * pooled connections: MikroORM's migrator does not run everything in one transaction, e.g. it
 * creates its log table outside it).
 */
async function withAdvisoryLock<T>(orm: MikroORM, name: string, fn: () => Promise<T>): Promise<T> {
  return orm.em.getConnection().getKnex().transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [name]);
    return fn();
  });
}
