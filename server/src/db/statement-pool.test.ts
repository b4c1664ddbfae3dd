import { PGlite } from '@electric-sql/pglite';
import { serve, type WireServer } from '@gradual/pglite-server';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, StatementPool } from './statement-pool.js';

// The statement pool against the embedded database's real parts: an in-memory PGlite behind
// @gradual/pglite-server's wire server (in this thread), and pg. PGlite is one session for every
// connection, which is what these test.

let db: PGlite;
let server: WireServer | undefined;
let port: number;

beforeAll(async () => {
  db = await PGlite.create();
  server = await serve({ db, maxConnections: 8 });
  port = server.port!;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await db?.close();
});

const newPool = (size: number, timeoutMs = 10_000) => new StatementPool({ server: { host: '127.0.0.1', port }, size, timeoutMs });
const addOne = (pool: StatementPool, n: number) => pool.query<{ n: number }>('add_one', 'select $1::int + 1 as n', [n]);

describe('StatementPool', () => {
  it('prepares the same statement on each of its connections, in one session', async () => {
    const pool = newPool(3);
    try {
      // Concurrent: three connections, each preparing add_one (one name would fail with 42P05).
      const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => addOne(pool, n)));
      expect(results.map((rows) => rows[0]!.n)).toEqual([2, 3, 4, 5, 6, 7]);
      const prepared = await db.query<{ name: string }>(`select name from pg_prepared_statements where name like 'add_one%' order by name`);
      expect(prepared.rows.length).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it('prepares it again on new connections while the old ones are still prepared in the session', async () => {
    const first = newPool(1);
    await addOne(first, 1);
    await first.close();
    const second = newPool(1); // a restart of the pool: same session, same names asked for
    try {
      expect((await addOne(second, 41))[0]!.n).toBe(42);
    } finally {
      await second.close();
    }
  });

  it('fails a statement held back by an open transaction after its timeout, then works again', async () => {
    const pool = newPool(1, 300);
    const other = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    await other.connect();
    try {
      await addOne(pool, 1); // connected before the transaction: the statement itself waits, not the connect
      await other.query('begin');
      const started = performance.now();
      const timedOut = await addOne(pool, 2).catch((err: unknown) => err);
      expect(timedOut).toBeInstanceOf(DatabaseUnavailableError); // answered 503, as an exhausted pool is
      expect(String(timedOut)).toMatch(/timeout/i);
      expect(performance.now() - started).toBeLessThan(5_000);
      await other.query('commit');
      expect((await addOne(pool, 3))[0]!.n).toBe(4); // on a new connection
    } finally {
      await other.end();
      await pool.close();
    }
  });

  it('keeps its connection after a database error', async () => {
    const preparedAddOnes = async () => (await db.query(`select name from pg_prepared_statements where name like 'add_one%'`)).rows.length;
    const before = await preparedAddOnes();
    const pool = newPool(1);
    try {
      await addOne(pool, 1);
      await expect(pool.query('bad', 'select * from no_such_table where id = $1', [1])).rejects.toThrow(/no_such_table/);
      expect((await addOne(pool, 1))[0]!.n).toBe(2);
      expect(await preparedAddOnes()).toBe(before + 1); // one connection prepared it: not replaced after the error
    } finally {
      await pool.close();
    }
  });
});
