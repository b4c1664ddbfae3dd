import { connect, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type ServedPGlite, type WireServer } from '../src/index.js';

// The wire server (wire-server.js) with a real PGlite and the `pg` client.

let db: PGlite;
let server: WireServer;
let port: number;
/** PGlite calls since the last reset, by the first byte of each call's input. */
let calls: string[] = [];
/** What the server logged at warn level. */
const warnings: string[] = [];

beforeAll(async () => {
  db = await PGlite.create();
  await db.exec('create table items (id int primary key, note text)');
  // The server sees PGlite through this object, which records each call's first byte.
  const counted: ServedPGlite = {
    execProtocolRawStream: (message, options) => {
      calls.push(String.fromCharCode(message[0]!));
      return db.execProtocolRawStream(message, options);
    },
    runExclusive: (fn) => db.runExclusive(fn),
    isInTransaction: () => db.isInTransaction(),
    exec: (sql, options) => db.exec(sql, options),
    query: (sql, params, options) => db.query(sql, params, options),
  };
  server = await serve({ db: counted, maxConnections: 4, log: (level, msg) => level === 'warn' && warnings.push(msg) });
  port = server.port!;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await db?.close();
});

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await c.connect();
  return c;
}

/** Runs `use` on a new connection, closed afterwards whatever happens. */
async function withClient<T>(use: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = await client();
  try {
    return await use(c);
  } finally {
    await c.end();
  }
}

/** A simple-protocol Query message. */
function query(sql: string): Buffer {
  const text = Buffer.from(`${sql}\0`);
  const head = Buffer.alloc(5);
  head.write('Q');
  head.writeInt32BE(4 + text.length, 1);
  return Buffer.concat([head, text]);
}

/** A frontend message: type byte, int32 length, body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

/** Parse, Bind and Execute of `sql` (unnamed statement and portal, no parameters): an extended query without its Sync. */
function extendedWithoutSync(sql: string): Buffer {
  const zeros = (n: number) => Buffer.alloc(n);
  return Buffer.concat([
    message('P', Buffer.concat([Buffer.from(`\0${sql}\0`), zeros(2)])),
    message('B', Buffer.concat([Buffer.from('\0\0'), zeros(6)])),
    message('E', Buffer.concat([Buffer.from('\0'), zeros(4)])),
  ]);
}

function startupPacket(): Buffer {
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + params.length, 0);
  head.writeInt32BE(196608, 4); // protocol 3.0
  return Buffer.concat([head, params]);
}

/** A raw connection: everything it receives, and a way to wait for the n-th ReadyForQuery. */
async function rawConnection(): Promise<{ socket: Socket; received: () => Buffer; readyCount: (n: number) => Promise<void>; closed: Promise<void> }> {
  const socket = connect({ host: '127.0.0.1', port, noDelay: true });
  let received = Buffer.alloc(0);
  let waiters: Array<() => void> = [];
  socket.on('data', (d: Buffer) => {
    received = Buffer.concat([received, d]);
    for (const w of waiters) w();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const readyCount = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (messages(received).filter((m) => m.type === 'Z').length >= n) {
          waiters = waiters.filter((w) => w !== check);
          resolve();
        }
      };
      waiters.push(check);
      check();
    });
  socket.write(startupPacket());
  await readyCount(1);
  return { socket, received: () => received, readyCount, closed };
}

/** The backend messages in `buf` (after the startup answer too): type and, for DataRow, the first column. */
function messages(buf: Buffer): Array<{ type: string; value?: string }> {
  const out: Array<{ type: string; value?: string }> = [];
  for (let at = 0; at + 5 <= buf.length; ) {
    const type = String.fromCharCode(buf[at]!);
    const length = buf.readInt32BE(at + 1);
    if (at + 1 + length > buf.length) break;
    if (type === 'D') {
      const size = buf.readInt32BE(at + 7);
      out.push({ type, value: buf.toString('utf8', at + 11, at + 11 + size) });
    } else out.push({ type });
    at += 1 + length;
  }
  return out;
}

describe('wire server', () => {
  it('runs a prepared query (Bind, Describe, Execute, Sync) as one PGlite call', async () => {
    await withClient(async (c) => {
      const q = { name: 'add_one', text: 'select $1::int + 1 as n', values: [41] };
      expect((await c.query(q)).rows).toEqual([{ n: 42 }]); // Parse too: prepares it
      calls = [];
      expect((await c.query({ ...q, values: [1] })).rows).toEqual([{ n: 2 }]);
      expect(calls).toEqual(['B']); // one call for Bind, Describe, Execute and Sync
    });
  });

  it('answers pipelined queries in order, with a Terminate in the same write', async () => {
    const raw = await rawConnection();
    const terminate = Buffer.from([0x58, 0, 0, 0, 4]);
    raw.socket.write(Buffer.concat([query('select 1'), query('select 2'), query('select 3'), terminate]));
    await raw.readyCount(4);
    raw.socket.end();
    await raw.closed;
    const rows = messages(raw.received()).filter((m) => m.type === 'D');
    expect(rows.map((m) => m.value)).toEqual(['1', '2', '3']);
  });

  it('reassembles a message whose header and body arrive in separate pieces', async () => {
    const raw = await rawConnection();
    const bytes = Buffer.concat([query("select 'split'"), query("select 'whole'")]);
    for (const piece of [bytes.subarray(0, 2), bytes.subarray(2, 7), bytes.subarray(7, 12), bytes.subarray(12)]) {
      raw.socket.write(piece);
      await new Promise((r) => setTimeout(r, 20)); // separate reads on the server
    }
    await raw.readyCount(3);
    raw.socket.destroy();
    expect(messages(raw.received()).filter((m) => m.type === 'D').map((m) => m.value)).toEqual(['split', 'whole']);
  });

  it('ends a connection that sends a message shorter than its own length field', async () => {
    const raw = await rawConnection();
    raw.socket.write(Buffer.from([0x51, 0, 0, 0, 2, 0])); // 'Q' claiming 2 bytes
    await raw.closed;
    await withClient(async (c) => {
      expect((await c.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    });
  });

  it('takes a multi-megabyte Bind that arrives in many reads', async () => {
    await withClient(async (c) => {
      const big = 'x'.repeat(3_000_000);
      expect((await c.query('select length($1::text) as n', [big])).rows).toEqual([{ n: 3_000_000 }]);
      expect((await c.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    });
  });

  it('skips to Sync after an error inside a batch and keeps the connection usable', async () => {
    await withClient(async (c) => {
      await expect(c.query('select * from no_such_table where id = $1', [1])).rejects.toThrow(/no_such_table/);
      await expect(c.query('insert into items values ($1, $2)', [1, 'a'])).resolves.toBeDefined();
      await expect(c.query('insert into items values ($1, $2)', [1, 'again'])).rejects.toThrow(/duplicate key/);
      expect((await c.query('select note from items where id = $1', [1])).rows).toEqual([{ note: 'a' }]);
    });
  });

  it("runs an extended query only with its Sync, so another connection's statement cannot land in its implicit transaction", async () => {
    const raw = await rawConnection();
    try {
      raw.socket.write(extendedWithoutSync('select txid_current()::text'));
      await new Promise((r) => setTimeout(r, 50));
      // Meanwhile another connection: it runs now, in a transaction of its own.
      const other = await withClient((c) => c.query<{ txid: string }>('select txid_current()::text as txid'));
      expect(messages(raw.received()).filter((m) => m.type === 'D')).toEqual([]); // nothing ran before the Sync
      raw.socket.write(message('S', Buffer.alloc(0)));
      await raw.readyCount(2);
      const [row] = messages(raw.received()).filter((m) => m.type === 'D');
      expect(row?.value).toBeDefined();
      expect(row!.value).not.toBe(other.rows[0]!.txid);
    } finally {
      raw.socket.destroy();
    }
  });

  it("keeps another connection's statements out of an open transaction", async () => {
    const a = await client();
    const b = await client();
    try {
      await a.query('begin');
      await a.query('insert into items values ($1, $2)', [2, 'in a transaction']);
      let seen: number | undefined;
      const counted = b.query<{ n: number }>('select count(*)::int as n from items').then((r) => (seen = r.rows[0]?.n));
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toBeUndefined(); // waits for a's transaction
      await a.query('insert into items values ($1, $2)', [3, 'same transaction']);
      await a.query('commit');
      await counted;
      expect(seen).toBe(3);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('rolls back the open transaction of a connection that goes away, and lets the others run', async () => {
    const raw = await rawConnection();
    raw.socket.write(Buffer.concat([query('begin'), query("insert into items values (10, 'never committed')")]));
    await raw.readyCount(3);
    raw.socket.destroy(); // no Terminate, no commit
    await raw.closed;
    await withClient(async (b) => {
      expect((await b.query('select count(*)::int as n from items where id = $1', [10])).rows).toEqual([{ n: 0 }]);
    });
  });

  it("keeps each connection's session settings its own: pg_dump's empty search_path breaks no other client", async () => {
    const dump = await client();
    const app = await client();
    try {
      await dump.query("select pg_catalog.set_config('search_path', '', false)");
      await dump.query("set timezone = 'America/New_York'");
      await dump.query('set statement_timeout = 1');
      // The other client: its unqualified names and its time zone as before.
      expect((await app.query('select count(*) > 0 as some from items')).rows).toEqual([{ some: true }]);
      expect((await app.query('show timezone')).rows).toEqual([{ TimeZone: 'UTC' }]);
      expect((await app.query('show search_path')).rows).toEqual([{ search_path: 'public' }]);
      // The client that changed them keeps its own values.
      expect((await dump.query('show search_path')).rows).toEqual([{ search_path: '' }]);
      await expect(dump.query('select count(*) from items')).rejects.toThrow(/does not exist/);
      expect((await dump.query('show timezone')).rows).toEqual([{ TimeZone: 'America/New_York' }]);
      // A new connection starts from the server's settings, not the last client's.
      await withClient(async (c) => {
        expect((await c.query('show search_path')).rows).toEqual([{ search_path: 'public' }]);
      });
      await dump.end();
      // Settings PostgreSQL does not report (statement_timeout) are reset when their connection closes.
      await expect.poll(async () => (await app.query<{ statement_timeout: string }>('show statement_timeout')).rows[0]).toEqual({ statement_timeout: '0' });
    } finally {
      await dump.end().catch(() => {});
      await app.end();
    }
  });

  it('answers an SSLRequest with N, then serves the connection unencrypted', async () => {
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const ssl = Buffer.alloc(8);
    ssl.writeInt32BE(8, 0);
    ssl.writeInt32BE(80877103, 4);
    const answer = new Promise<Buffer>((resolve) => socket.once('data', resolve));
    socket.write(ssl);
    expect((await answer).toString()).toBe('N');
    const ready = new Promise<void>((resolve) => {
      let got = Buffer.alloc(0);
      socket.on('data', (d: Buffer) => {
        got = Buffer.concat([got, d]);
        if (messages(got).some((m) => m.type === 'Z')) resolve();
      });
    });
    socket.write(startupPacket());
    await ready;
    socket.destroy();
  });

  it('refuses a connection over maxConnections with SQLSTATE 53300, and the others keep working', async () => {
    const open = await Promise.all([client(), client(), client(), client()]);
    try {
      const refused = await client().catch((err: unknown) => err);
      expect(refused).toMatchObject({ code: '53300' });
      expect(warnings.some((w) => w.includes('connection refused'))).toBe(true);
      expect((await open[0].query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await Promise.all(open.map((c) => c.end()));
    }
  });
});
