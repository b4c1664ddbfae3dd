/**
 * The database failing, and the server failing loudly rather than hanging or answering 500:
 *
 * - a full disk (embedded: ENOSPC injected into PGlite's file system; PostgreSQL's 53100 maps the
 *   same way): writes answer 503 service_unavailable with Retry-After, and once space returns the
 *   same write succeeds and /readyz is green, without a restart;
 * - the pool timing out (a connection held past the acquire timeout): 503 with Retry-After;
 * - another client of the embedded socket emptying search_path (as pg_dump does): every answer
 *   still right; on PostgreSQL a database whose default search_path is empty changes nothing;
 * - /readyz reads a real table;
 * - start-up that waits for a database that never answers: logs what it waits for, and exits
 *   non-zero naming it when its deadline passes.
 *
 * The watchdog (db/watchdog.test.ts), the socket path, file modes and the zombie lock holder
 * (packages/pglite-server/test) are covered beside their code.
 */
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createClient, type GradualClient } from '@gradual/sdk';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/src/config.js';
import { withAdminConnection } from '../../server/src/db/admin.js';
import { openDatabase, type Database } from '../../server/src/db/database.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { sessionTokenFrom } from '../support/server.js';

const ADMIN_URL = process.env.DATABASE_URL;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Running {
  server: RunningServer;
  owner: GradualClient;
  projectId: string;
  envId: string;
  close(): Promise<void>;
}

/** A server on `db`, claimed, with a project, an environment and a flag. */
async function serve(db: Database): Promise<Running> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', SERVICE_TEST_CLOCK: '1', LOG_LEVEL: 'silent', NODE_ENV: 'test' });
  const server = await startServer({ config, db, logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) });
  const anonymous = createClient({ baseUrl: server.url });
  const { response } = await anonymous.withResponse.claimInstall({
    body: { email: 'owner@example.com', displayName: 'Olive Owner', orgName: 'Acme', orgSlug: 'acme' },
  });
  const owner = createClient({ baseUrl: server.url, sessionToken: sessionTokenFrom(response) });
  const project = await owner.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
  const envId = (await owner.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
  await owner.createFlag({ path: { id: project.id }, body: { key: 'beta', name: 'Beta', defaultValue: false } });
  await owner.putFlagRollout({ path: { envId, key: 'beta' }, body: { percent: 0, newValue: true } });
  return { server, owner, projectId: project.id, envId, close: () => server.close() };
}

/** The API error a call rejects with. */
async function failure(promise: Promise<unknown>): Promise<{ status: number; code: string; retryAfterSeconds?: number; requestId?: string }> {
  const err = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as { status: number; code: string; retryAfterSeconds?: number; requestId?: string },
  );
  return err;
}

const readyz = async (url: string) => (await fetch(`${url}/readyz`)).status;
const ids = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(6, '0')}`);

describe.skipIf(!!ADMIN_URL)('a full disk (embedded)', () => {
  let t: TestDatabase;
  let db: Database;
  let app: Running;
  beforeAll(async () => {
    t = await createTestDatabase({ onDisk: true });
    await t.db.close(); // the data dir is locked: reopen it with faults that can be injected
    db = await openDatabase({ ...t.options, faultInjection: true });
    app = await serve(db);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await t?.cleanup();
  });

  it('answers 503 with Retry-After while writes fail for space, and recovers without a restart once space returns', async () => {
    const { owner, envId } = app;
    await db.injectFault({ diskFull: true });
    const err = await failure(owner.replaceFlagTargetIds({ path: { envId, key: 'beta' }, body: { targetIds: ids(20_000, 'full') } }));
    expect(err).toMatchObject({ status: 503, code: 'service_unavailable', retryAfterSeconds: 10 });
    expect(err.requestId).toBeTruthy();

    await db.injectFault({ diskFull: false });
    expect(await readyz(app.server.url)).toBe(200);
    expect(await owner.replaceFlagTargetIds({ path: { envId, key: 'beta' }, body: { targetIds: ids(20_000, 'room') } })).toEqual({ kind: 'applied', data: { count: 20_000 } });
  }, 60_000);
});

describe('the pool timing out', () => {
  let t: TestDatabase;
  let db: Database;
  let app: Running;
  beforeAll(async () => {
    t = await createTestDatabase();
    db = await openDatabase({ ...t.options, poolMax: 2, acquireTimeoutMs: 300 });
    app = await serve(db);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await t?.cleanup();
  });

  it('answers 503 with Retry-After (not 500 after 30 s) while every connection is held', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Every pooled connection in a transaction that waits (the embedded pool has one; PostgreSQL's here two).
    const holders = Array.from({ length: db.kind === 'embedded' ? 1 : 2 }, () =>
      db.em().transactional(async (em) => {
        await em.getConnection().execute('select 1', [], 'all', em.getTransactionContext());
        await held;
      }),
    );
    try {
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      const err = await failure(app.owner.listProjects({ path: { slug: 'acme' } }));
      expect(err).toMatchObject({ status: 503, code: 'service_unavailable', retryAfterSeconds: 1 });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      release();
      await Promise.all(holders);
    }
    expect((await app.owner.listProjects({ path: { slug: 'acme' } })).length).toBe(1);
  }, 30_000);
});

describe('search_path', () => {
  it.skipIf(!!ADMIN_URL)("embedded: another client emptying search_path (pg_dump does) changes none of the server's answers", async () => {
    const t = await createTestDatabase();
    const app = await serve(t.db);
    const intruder = new pg.Client({ host: String(t.db.orm.config.get('host')), port: Number(t.db.orm.config.get('port')), user: 'postgres', database: 'postgres' });
    try {
      await intruder.connect();
      await intruder.query("SELECT pg_catalog.set_config('search_path', '', false)");
      await intruder.query("set timezone = 'Pacific/Kiritimati'");
      expect(await readyz(app.server.url)).toBe(200);
      expect((await app.owner.listProjects({ path: { slug: 'acme' } })).map((p) => p.key)).toEqual(['web']);
      await app.owner.createFlag({ path: { id: app.projectId }, body: { key: 'gamma', name: 'Gamma', defaultValue: false } });
      expect(await app.owner.replaceFlagTargetIds({ path: { envId: app.envId, key: 'beta' }, body: { targetIds: ids(10, 'sp') } })).toEqual({ kind: 'applied', data: { count: 10 } });
      // The intruder keeps its own setting.
      expect((await intruder.query('show search_path')).rows).toEqual([{ search_path: '' }]);
    } finally {
      await intruder.end();
      await app.close();
      await t.cleanup();
    }
  }, 60_000);

  it.skipIf(!ADMIN_URL)('PostgreSQL: a database whose default search_path is empty changes nothing: every connection sets its own', async () => {
    const t = await createTestDatabase();
    const name = new URL(t.options.databaseUrl!).pathname.slice(1);
    await withAdminConnection(ADMIN_URL!, (execute) => execute(`alter database "${name}" set search_path = ''`));
    const db = await openDatabase(t.options); // new connections
    const app = await serve(db);
    try {
      expect(await readyz(app.server.url)).toBe(200);
      expect((await app.owner.listProjects({ path: { slug: 'acme' } })).map((p) => p.key)).toEqual(['web']);
      expect(await app.owner.replaceFlagTargetIds({ path: { envId: app.envId, key: 'beta' }, body: { targetIds: ids(10, 'sp') } })).toEqual({ kind: 'applied', data: { count: 10 } });
    } finally {
      await app.close();
      await db.close();
      await t.cleanup();
    }
  }, 60_000);

  it("/readyz reads a real table, unqualified as the app's queries are: red when the session cannot see it", async () => {
    const t = await createTestDatabase();
    const app = await serve(t.db);
    const rename = (from: string, to: string) => t.db.em().getConnection().execute(`alter table ${from} rename to ${to}`);
    try {
      expect(await readyz(app.server.url)).toBe(200);
      await rename('environments', 'environments_away');
      expect(await readyz(app.server.url)).toBe(503);
      await rename('environments_away', 'environments');
      expect(await readyz(app.server.url)).toBe(200);
    } finally {
      await app.close();
      await t.cleanup();
    }
  }, 60_000);
});

// The same in both passes (the database is a silent socket of its own): the embedded pass runs it.
describe.skipIf(!!ADMIN_URL)('start-up with a database that never answers', () => {
  let silent: ReturnType<typeof createServer>;
  const sockets = new Set<Socket>();
  let port: number;
  beforeAll(async () => {
    // Accepts connections and never says a word.
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('logs what it waits for and exits non-zero with the reason once its deadline passes', async () => {
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/gradual`,
      DATABASE_STARTUP_TIMEOUT_MS: '6000',
      DATABASE_ACQUIRE_TIMEOUT_MS: '60000', // only the start-up deadline ends the wait
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      NODE_ENV: 'test',
    };
    const child = spawn(process.execPath, ['--conditions=@gradual/source', '--import', 'tsx', 'server/src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    // Usually it waits in the connection; on a loaded machine loading the modules can take long too.
    const step = /start-up timed out after 6 s while (connecting to PostgreSQL|loading the database modules)/.exec(output)?.[1];
    expect(step, output).toBeDefined();
    expect(output).toContain(`"msg":"${step}…"`);
    expect(output).toContain(`"msg":"still waiting: ${step}"`);
  }, 60_000);
});
