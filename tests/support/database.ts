/**
 * A fresh, migrated, isolated database per test file, on either backend:
 *
 *   DATABASE_URL unset → embedded PGlite. global-setup.ts migrates one database and dumps it
 *     to a tarball in os.tmpdir(); each createTestDatabase() loads that dump into a new
 *     in-memory PGlite (~0.4 s) instead of initdb + migrations (~3 s).
 *   DATABASE_URL set (postgres://postgres@127.0.0.1:5432/postgres) → global-setup.ts creates
 *     a uniquely named template database and migrates it; each createTestDatabase() runs
 *     CREATE DATABASE <unique> TEMPLATE <template>. Teardown drops everything the run created.
 *
 * Usage in a test file:
 *
 *   let t: TestDatabase;
 *   beforeAll(async () => { t = await createTestDatabase(); });
 *   afterAll(() => t.cleanup());
 *   it('…', async () => { const em = t.db.em(); … });
 *
 * Without the global setup (e.g. a one-off run) it still works, just slower: the embedded
 * template is built once per worker, and on PostgreSQL each database is migrated from scratch.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import { createDatabase, databaseUrlFor, dropDatabases } from '../../server/src/db/admin.js';
import { openDatabase, type Database, type DatabaseOptions } from '../../server/src/db/database.js';
import { buildEmbeddedTemplate, newRunPrefix, type TestDatabaseContext } from './database-template.js';

export type { TestDatabaseContext } from './database-template.js';

export interface TestDatabase {
  /**
   * Options that reach this database. On PostgreSQL they name the same database, so a
   * second openDatabase(options) (e.g. a server under test) shares its data. Embedded in
   * memory they describe a *new copy* of the migrated template; pass `{ onDisk: true }` to
   * get a data dir instead (close `db` before opening it elsewhere: the dir is locked).
   */
  options: DatabaseOptions;
  db: Database;
  /** Closes `db` and drops the database (or deletes the temp data dir). */
  cleanup(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  logger?: Logger;
  /** Embedded only: use a temp data dir instead of memory (~0.3 s slower). */
  onDisk?: boolean;
  /**
   * Force a backend instead of following DATABASE_URL, e.g. to cover embedded-only
   * behaviour in a PostgreSQL run (its template is then built in this worker, ~3 s).
   */
  backend?: 'embedded' | 'postgres';
}

export async function createTestDatabase(opts: CreateTestDatabaseOptions = {}): Promise<TestDatabase> {
  const ctx = providedContext();
  const adminUrl = process.env.DATABASE_URL;
  const backend = opts.backend ?? (ctx?.kind ?? (adminUrl ? 'postgres' : 'embedded'));
  if (backend === 'postgres') {
    if (ctx?.kind === 'postgres') return createPostgresTestDatabase(ctx, opts);
    if (!adminUrl) throw new Error('createTestDatabase({ backend: "postgres" }) needs DATABASE_URL');
    return createPostgresTestDatabase({ adminUrl }, opts);
  }
  return createEmbeddedTestDatabase(ctx?.kind === 'embedded' ? ctx.dumpPath : undefined, opts);
}

function providedContext(): TestDatabaseContext | undefined {
  try {
    return inject('gradualTestDatabase');
  } catch {
    return undefined; // not running under vitest
  }
}

async function createPostgresTestDatabase(
  ctx: { adminUrl: string; template?: string; prefix?: string },
  opts: CreateTestDatabaseOptions,
): Promise<TestDatabase> {
  const name = `${ctx.prefix ?? newRunPrefix()}_${randomBytes(4).toString('hex')}`;
  // With a template the copy is already migrated; without one openDatabase migrates it.
  await createDatabase(ctx.adminUrl, name, ctx.template);
  const options: DatabaseOptions = {
    databaseUrl: databaseUrlFor(ctx.adminUrl, name),
    dataDir: 'memory://', // unused with databaseUrl
    poolMax: 4,
    logger: opts.logger,
  };
  const drop = () => dropDatabases(ctx.adminUrl, [name]);
  let db: Database;
  try {
    db = await openDatabase(options);
  } catch (err) {
    await drop();
    throw err;
  }
  return {
    options,
    db,
    async cleanup() {
      try {
        await db.close();
      } finally {
        await drop();
      }
    },
  };
}

let dumpCache: Promise<Blob> | undefined;

async function createEmbeddedTestDatabase(dumpPath: string | undefined, opts: CreateTestDatabaseOptions): Promise<TestDatabase> {
  dumpCache ??= dumpPath ? readFile(dumpPath).then((buf) => new Blob([buf])) : buildEmbeddedTemplate();
  const loadDataDir = await dumpCache;
  const dir = opts.onDisk ? await mkdtemp(join(tmpdir(), 'gradual-test-db-')) : undefined;
  const options: DatabaseOptions = { dataDir: dir ? join(dir, 'data') : 'memory://', loadDataDir, logger: opts.logger };
  const removeDir = async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  let db: Database;
  try {
    db = await openDatabase(options);
  } catch (err) {
    await removeDir();
    throw err;
  }
  return {
    options,
    db,
    async cleanup() {
      try {
        await db.close();
      } finally {
        await removeDir();
      }
    },
  };
}
