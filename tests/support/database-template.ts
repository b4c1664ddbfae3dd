/**
 * Building the per-run template database; shared by global-setup.ts (main process) and
 * database.ts (workers). Must not import vitest's runtime: global setup runs outside a test.
 */
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, databaseUrlFor, dropDatabases, listDatabases } from '../../server/src/db/admin.js';
import { openDatabase } from '../../server/src/db/database.js';

/** What global-setup.ts hands to the test files (through vitest's provide/inject). */
export type TestDatabaseContext =
  | { kind: 'embedded'; dumpPath: string }
  | { kind: 'postgres'; adminUrl: string; template: string; prefix: string };

declare module 'vitest' {
  export interface ProvidedContext {
    gradualTestDatabase: TestDatabaseContext;
  }
}

const RUN_PREFIX = 'gradual_t_';
/** Databases of runs older than this are leftovers of a crashed run: global setup drops them. */
const ABANDONED_AFTER_MS = 6 * 60 * 60 * 1000;

/** `gradual_t_<base36 ms>_<random>`: unique per run, and its age can be read back. */
export function newRunPrefix(): string {
  return `${RUN_PREFIX}${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/** A migrated embedded database as an uncompressed tarball (loads ~2x faster than gzip). */
export async function buildEmbeddedTemplate(): Promise<Blob> {
  const db = await openDatabase({ dataDir: 'memory://' });
  try {
    return await db.dumpDataDir('none');
  } finally {
    await db.close();
  }
}

/** Builds this run's template; returns the context for the test files and a teardown. */
export async function prepareTestDatabases(
  adminUrl = process.env.DATABASE_URL,
): Promise<{ context: TestDatabaseContext; teardown: () => Promise<void> }> {
  if (!adminUrl) {
    const dump = await buildEmbeddedTemplate();
    const dumpPath = join(tmpdir(), `gradual-test-db-${process.pid}-${randomBytes(4).toString('hex')}.tar`);
    await writeFile(dumpPath, Buffer.from(await dump.arrayBuffer()));
    return {
      context: { kind: 'embedded', dumpPath },
      teardown: () => rm(dumpPath, { force: true }),
    };
  }

  await dropAbandonedDatabases(adminUrl);
  const prefix = newRunPrefix();
  const template = `${prefix}_tpl`;
  await createDatabase(adminUrl, template);
  try {
    const db = await openDatabase({ databaseUrl: databaseUrlFor(adminUrl, template), dataDir: 'memory://', poolMax: 2 });
    await db.close(); // CREATE DATABASE … TEMPLATE refuses while anyone is connected to it
  } catch (err) {
    await dropDatabases(adminUrl, [template]);
    throw err;
  }
  return {
    context: { kind: 'postgres', adminUrl, template, prefix },
    // Drops the template and any test database a crashed test file did not clean up.
    teardown: async () => dropDatabases(adminUrl, await listDatabases(adminUrl, prefix)),
  };
}

async function dropAbandonedDatabases(adminUrl: string): Promise<void> {
  const names = await listDatabases(adminUrl, RUN_PREFIX);
  const abandoned = names.filter((name) => {
    const startedAt = parseInt(name.slice(RUN_PREFIX.length).split('_')[0] ?? '', 36);
    return Number.isFinite(startedAt) && Date.now() - startedAt > ABANDONED_AFTER_MS;
  });
  await dropDatabases(adminUrl, abandoned);
}
