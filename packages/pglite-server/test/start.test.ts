import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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
  it('listens on a socket in a private temporary dir (never TCP), dumps, and starts a new database from the dump', async () => {
    const starting = start({ dataDir: MEMORY_DATA_DIR });
    expect(starting.target.port).toBe(5432);
    expect(starting.target.host.startsWith(tmpdir())).toBe(true);
    const first = await starting.ready;
    let dump: Blob;
    try {
      expect(statSync(first.host).mode & 0o777).toBe(0o700);
      expect(lstatSync(join(first.host, '.s.PGSQL.5432')).isSocket()).toBe(true);
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
    expect(existsSync(second.host)).toBe(false); // the private socket dir is removed
  }, 60_000);
});

/** Every mode under `dir`, as `path: mode` for those group or others may use. */
function widelyReadable(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string) => {
    const st = lstatSync(path);
    if (!st.isSocket() && (st.mode & 0o077) !== 0) out.push(`${path}: ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return out;
}

describe('start(): the socket and the files are private', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'pglite-server-private-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('creates the data dir 0700 and every file 0600, whatever the umask', async () => {
    const dataDir = join(root, 'modes');
    const umask = process.umask(0); // the widest: PGlite's own modes would show
    let server: PGliteServer;
    try {
      server = await start({ dataDir }).ready;
    } finally {
      process.umask(umask);
    }
    try {
      await withClient(server, (c) => c.query('create table t as select generate_series(1, 1000) as n'));
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(widelyReadable(dataDir)).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('with a DATA_DIR too long for a socket path: a socket in a private temporary dir, never TCP', async () => {
    const dataDir = join(root, 'a'.repeat(60), 'b'.repeat(60), 'data');
    const starting = start({ dataDir });
    expect(starting.target.port).toBe(5432);
    expect(starting.target.host.startsWith(tmpdir())).toBe(true);
    const server = await starting.ready;
    try {
      expect(statSync(server.host).mode & 0o777).toBe(0o700);
      await withClient(server, async (c) => {
        expect((await c.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      });
    } finally {
      await server.stop();
    }
    expect(existsSync(server.host)).toBe(false);
  }, 60_000);

  it('fails with the reason when no socket path fits, never falling back to TCP', () => {
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = join(root, 't'.repeat(100));
    mkdirSync(process.env.TMPDIR);
    try {
      expect(() => start({ dataDir: join(root, 'x'.repeat(120)) })).toThrow(/no Unix socket path fits.*set TMPDIR to a shorter directory/);
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
    // The lock was released: a start with a usable path succeeds.
    expect(existsSync(join(root, 'x'.repeat(120), LOCK_FILE_NAME))).toBe(false);
  });
});

describe('start(): faults', () => {
  it('a full disk fails writes with SQLSTATE 53100; once space returns, writes succeed again', async () => {
    const root = mkdtempSync(join(tmpdir(), 'pglite-server-full-'));
    const server = await start({ dataDir: join(root, 'data'), faultInjection: true }).ready;
    try {
      await withClient(server, async (c) => {
        await c.query('create table t (n int, pad text)');
        await server.injectFault({ diskFull: true });
        await expect(c.query("insert into t select n, repeat('x', 500) from generate_series(1, 20000) n")).rejects.toMatchObject({ code: '53100' });
        await server.ping(); // the thread still answers
        await server.injectFault({ diskFull: false });
        await c.query("insert into t select n, repeat('x', 500) from generate_series(1, 20000) n");
        expect((await c.query('select count(*)::int as n from t')).rows).toEqual([{ n: 20000 }]);
      });
      // Stopping on a full disk (PGlite's last checkpoint cannot write) finishes, in bounded time.
      await server.injectFault({ diskFull: true });
      const stopping = Date.now();
      await server.stop();
      expect(Date.now() - stopping).toBeLessThan(8_000);
    } finally {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('a wedged database thread answers no ping, and stop() ends it in bounded time', async () => {
    const server = await start({ dataDir: MEMORY_DATA_DIR, faultInjection: true }).ready;
    await server.ping();
    await server.injectFault({ wedge: true });
    const answered = await Promise.race([server.ping().then(() => true), new Promise((r) => setTimeout(() => r(false), 500))]);
    expect(answered).toBe(false);
    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 60_000);
});
