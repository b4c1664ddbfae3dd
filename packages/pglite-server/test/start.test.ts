import { lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE_NAME, MEMORY_DATA_DIR, start, type PGliteServer } from '../src/index.js';

// start(): the worker thread, the data dir (layout, lock, socket) and dumps, through `pg`.

async function withClient<T>(server: PGliteServer, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ host: server.host, port: server.port, user: 'postgres', database: 'postgres' });
  await c.connect();
  try {
    return await use(c);
  } finally {
    await c.end();
  }
}

describe('start() on a data dir', () => {
  let root: string;
  let dataDir: string;
  let server: PGliteServer | undefined;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'pglite-server-test-'));
    dataDir = join(root, 'nested', 'data'); // parents do not exist yet
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('creates the database, listens on a Unix socket in the dir and holds the lock', async () => {
    const starting = start({ dataDir });
    expect(starting.created).toBe(true);
    expect(starting.target).toEqual({ host: dataDir, port: 5432 }); // known before it is ready
    server = await starting.ready;
    expect(server.createdFrom === 'template' || server.createdFrom === 'initdb').toBe(true);
    expect(lstatSync(join(dataDir, '.s.PGSQL.5432')).isSocket()).toBe(true);
    expect(lstatSync(join(dataDir, '.s.PGSQL.5432')).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(dataDir, 'pg', 'PG_VERSION')).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE_NAME), 'utf8'))).toMatchObject({ pid: process.pid });
    await withClient(server, async (c) => {
      await c.query('create table notes (id int primary key, body text)');
      await c.query('insert into notes values ($1, $2)', [1, 'kept']);
    });
  });

  it('refuses a second start on the same dir at once', () => {
    expect(() => start({ dataDir })).toThrow(DataDirLockedError);
  });

  it('stops cleanly, releases the lock, and reopens with the data', async () => {
    await server!.stop();
    server = undefined;
    expect(() => lstatSync(join(dataDir, LOCK_FILE_NAME))).toThrow(/ENOENT/);
    const starting = start({ dataDir });
    expect(starting.created).toBe(false);
    server = await starting.ready;
    expect(server.createdFrom).toBeUndefined();
    await withClient(server, async (c) => {
      expect((await c.query('select body from notes where id = $1', [1])).rows).toEqual([{ body: 'kept' }]);
    });
  });
});

describe('start() in memory', () => {
  it('listens on 127.0.0.1, dumps, and starts a new database from the dump', async () => {
    const starting = start({ dataDir: MEMORY_DATA_DIR });
    expect(starting.target).toEqual({ host: '127.0.0.1', port: undefined });
    const first = await starting.ready;
    let dump: Blob;
    try {
      expect(first.port).toBeGreaterThan(0);
      await withClient(first, (c) => c.query(`create table t as select 42 as answer`));
      dump = await first.dumpDataDir('none');
    } finally {
      await first.stop();
    }
    const second = await start({ dataDir: MEMORY_DATA_DIR, loadDataDir: dump }).ready;
    try {
      expect(second.createdFrom).toBe('dump');
      await withClient(second, async (c) => {
        expect((await c.query('select answer from t')).rows).toEqual([{ answer: 42 }]);
      });
    } finally {
      await second.stop();
    }
    await expect(second.dumpDataDir('none')).rejects.toThrow(/not running/);
  });
});
