import { MikroORM } from '@mikro-orm/postgresql';

/**
 * Database-level administration on a PostgreSQL server (create/drop whole databases).
 * Used by the test harness and tooling, never by the running service.
 */

const DB_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function assertName(name: string): void {
  if (!DB_NAME.test(name)) throw new Error(`invalid database name ${JSON.stringify(name)}`);
}

/** `databaseUrl` with its database (path) replaced by `name`; query parameters are kept. */
export function databaseUrlFor(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `fn` with a one-connection client to the database in `databaseUrl`. */
export async function withAdminConnection<T>(
  databaseUrl: string,
  fn: (execute: (sql: string) => Promise<Record<string, unknown>[]>) => Promise<T>,
): Promise<T> {
  const orm = await MikroORM.init({
    clientUrl: databaseUrl,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    ensureDatabase: false,
    colors: false,
    pool: { min: 0, max: 1 },
    driverOptions: { connection: { connectionString: databaseUrl } },
  });
  try {
    return await fn((sql) => orm.em.getConnection().execute(sql));
  } finally {
    await orm.close(true);
  }
}

/** CREATE DATABASE, optionally as a copy of `template` (no one may be connected to the template). */
export async function createDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  assertName(name);
  if (template) assertName(template);
  await withAdminConnection(adminUrl, (execute) =>
    execute(`create database "${name}"${template ? ` template "${template}"` : ''}`),
  );
}

/** DROP DATABASE IF EXISTS … WITH (FORCE): also ends sessions a crashed test left behind (PostgreSQL 13+). */
export async function dropDatabases(adminUrl: string, names: string[]): Promise<void> {
  names.forEach(assertName);
  if (names.length === 0) return;
  await withAdminConnection(adminUrl, async (execute) => {
    for (const name of names) await execute(`drop database if exists "${name}" with (force)`);
  });
}

/** Names of the databases starting with `prefix` (letters, digits and _ only). */
export async function listDatabases(adminUrl: string, prefix: string): Promise<string[]> {
  assertName(prefix);
  return withAdminConnection(adminUrl, async (execute) => {
    const rows = await execute(`select datname from pg_database where starts_with(datname, '${prefix}')`);
    return rows.map((r) => String(r.datname));
  });
}
