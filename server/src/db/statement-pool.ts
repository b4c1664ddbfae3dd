import pg from 'pg';
import type { Logger } from 'pino';

/**
 * Connections for prepared single statements (preparedQuery: the hot paths' reads and
 * one-statement writes), apart from MikroORM's pool. On PostgreSQL they are named statements
 * (parsed and planned once per connection) on a pool of pg's own; the rest of this comment is
 * about the embedded database, where the pool matters most: it runs beside MikroORM's pool of one.
 *
 * Why: with one connection, the database thread sat idle from the moment it answered a
 * statement until the main thread had read that answer and released the connection to the next
 * request, which then sent its statement; under load that handover, not PGlite, bounded the
 * rate. With a few connections the next statements already wait in the wire server's queue and
 * PGlite runs them back to back. PGlite still runs one statement at a time, and while a
 * transaction on another connection is open the queue holds them back (@gradual/pglite-server
 * keeps connections apart, and a statement's own implicit transaction whole).
 *
 * PGlite is one PostgreSQL session for all its connections, so a prepared statement's name is
 * visible to every connection and preparing it twice fails (42P05): each connection here names
 * its statements with a suffix of its own (unique in the process). Connections are kept, not closed when idle, so the
 * session does not collect statements of closed connections (one that fails leaves its few).
 *
 * Waiting for a connection longer than `timeoutMs` fails, as a unit of work waiting that long for
 * MikroORM's connection does. A statement that runs longer than `statementTimeoutMs` fails too: a
 * statement sent from inside a transaction through another EntityManager (a bug) would otherwise
 * wait for that transaction for ever, and the transaction for it. On PostgreSQL that limit is
 * longer, since a one-statement write there also waits its turn for row locks behind concurrent
 * writers, which takes seconds under contention and is no fault. As with any statement its client
 * gave up on, it may still run once the transaction ends; its connection is closed and replaced.
 */
/**
 * A statement the pool could not run: no connection in time, a statement timed out, a lost
 * connection. The error handler answers it 503, as it does MikroORM's pool timing out
 * (KnexTimeoutError). The message is the driver's.
 */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
  constructor(cause: Error) {
    super(cause.message, { cause });
  }
}

/** Connections made by every statement pool in this process: a connection's statement-name suffix. */
let connectionsMade = 0;

export class StatementPool {
  private readonly pool: pg.Pool;
  private readonly suffixes = new WeakMap<pg.PoolClient, string>();

  /**
   * `server`: the embedded database's socket, or a PostgreSQL server's URL with the schema to
   * put first on the search path (as MikroORM's connections do); PostgreSQL's connections close
   * when idle for 30 s (the embedded database's are kept, see above).
   */
  constructor(opts: { server: { host: string; port: number } | { url: string; searchPath?: string | undefined }; size: number; timeoutMs: number; statementTimeoutMs?: number; logger?: Logger | undefined }) {
    const { server } = opts;
    this.pool = new pg.Pool({
      ...('url' in server
        ? { connectionString: server.url, ...(server.searchPath ? { options: `-c search_path=${server.searchPath}` } : {}), idleTimeoutMillis: 30_000 }
        : { host: server.host, port: server.port, user: 'postgres', database: 'postgres', idleTimeoutMillis: 0 }),
      max: opts.size,
      connectionTimeoutMillis: opts.timeoutMs,
      query_timeout: opts.statementTimeoutMs ?? opts.timeoutMs,
    });
    this.pool.on('connect', (client) => this.suffixes.set(client, `_c${++connectionsMade}`));
    // An idle connection that breaks (the database stopping) is replaced on next use.
    this.pool.on('error', (err) => opts.logger?.debug({ err }, 'database: statement connection lost'));
  }

  /** Runs the named statement (`$1…` placeholders), prepared once per connection. */
  async query<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const client = await this.pool.connect().catch((err: Error) => {
      throw new DatabaseUnavailableError(err);
    });
    let broken: Error | undefined;
    try {
      return (await client.query({ name: name + this.suffixes.get(client), text, values })).rows as T[];
    } catch (err) {
      if (err instanceof pg.DatabaseError) throw err; // the statement's own error: the connection is fine
      // A timeout or a lost connection: start afresh on a new connection.
      broken = err as Error;
      throw new DatabaseUnavailableError(broken);
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
