import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tests/support/database.js';
import { preparedQuery } from '../features/common/sql.js';
import { createDatabase, databaseUrlFor, dropDatabases } from './admin.js';
import { DataDirLockedError, openDatabase, type Database } from './database.js';
import { migrationsList } from './migrations/index.js';
import {
  EnvironmentEntity,
  OrgEntity,
  PrimitiveEntity,
  PrimitiveStateEntity,
  ProjectEntity,
  UserEntity,
  type JsonValue,
} from './entities/index.js';

const now = () => new Date();

/**
 * Opens many raw connections at once (over the socket server's maxConnections), sends a
 * startup packet and drops each one abruptly: RST on TCP, close-with-unread-data on a Unix
 * socket. The server must log these (ECONNRESET/EPIPE), never crash.
 */
async function abuseConnections(target: { path: string } | { host: string; port: number }) {
  const startup = Buffer.alloc(8 + 'user\0postgres\0\0'.length);
  startup.writeInt32BE(startup.length, 0);
  startup.writeInt32BE(196608, 4); // protocol 3.0
  startup.write('user\0postgres\0\0', 8);
  await Promise.all(
    Array.from(
      { length: 12 },
      () =>
        new Promise<void>((resolve) => {
          const s = connect(target as { path: string });
          s.on('error', () => resolve());
          s.on('close', () => resolve());
          s.on('connect', () => {
            s.write(startup);
            setImmediate(() => ('path' in target ? s.destroy() : s.resetAndDestroy()));
          });
        }),
    ),
  );
}

async function seedProject(em: EntityManager) {
  const org = em.create(OrgEntity, { slug: `org-${crypto.randomUUID()}`, name: 'Acme', createdAt: now(), updatedAt: now() });
  const project = em.create(ProjectEntity, {
    orgId: org.id, // the id exists before flush (processOnCreateHooksEarly)
    key: 'web',
    name: 'Web',
    targetIdField: 'userId',
    createdAt: now(),
    updatedAt: now(),
  });
  const env = em.create(EnvironmentEntity, {
    projectId: project.id,
    orgId: org.id,
    key: 'prod',
    name: 'Production',
    version: 0,
    createdAt: now(),
    updatedAt: now(),
  });
  await em.flush();
  return { org, project, env };
}

/**
 * The embedded database's own behaviour runs in the embedded pass only (DATABASE_URL unset); with
 * DATABASE_URL set, these tests check the backend it names, and the embedded ones would repeat the
 * embedded pass to the letter.
 */
const postgresRun = Boolean(process.env.DATABASE_URL);

describe.skipIf(postgresRun)('embedded database in a data dir', () => {
  let root: string;
  let dataDir: string;
  let db: Database | undefined;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'gradual-db-test-'));
    dataDir = join(root, 'nested', 'data'); // parents do not exist yet
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await db?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('creates a new data dir, migrates it and stores an entity', async () => {
    const started = performance.now();
    db = await openDatabase({ dataDir });
    const ms = performance.now() - started;
    console.log(`embedded open, new data dir: ${Math.round(ms)} ms`);
    expect(db.kind).toBe('embedded');
    expect(lstatSync(join(dataDir, '.s.PGSQL.5432')).isSocket()).toBe(true);

    const em = db.em();
    em.create(OrgEntity, { slug: 'acme', name: 'Acme', createdAt: now(), updatedAt: now() });
    await em.flush();
    const found = await db.em().findOneOrFail(OrgEntity, { slug: 'acme' });
    expect(found.name).toBe('Acme');
    await db.close();
    db = undefined;
  });

  it('reopens an existing data dir with its data', async () => {
    const started = performance.now();
    db = await openDatabase({ dataDir });
    console.log(`embedded open, existing data dir: ${Math.round(performance.now() - started)} ms`);
    expect((await db.em().findOneOrFail(OrgEntity, { slug: 'acme' })).name).toBe('Acme');
  });

  it('rejects a second open of the same dir in this process', async () => {
    await expect(openDatabase({ dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
    await db!.ping(); // the first one is unharmed
  });

  it('survives clients dropping connections, including over maxConnections', async () => {
    await abuseConnections({ path: join(dataDir, '.s.PGSQL.5432') });
    await db!.ping();
    expect(await db!.em().count(OrgEntity)).toBe(1);
  });

  it('rejects an open while another process holds the dir, and recovers once it is killed', async () => {
    await db!.close();
    db = undefined;

    // A second server process holding the data dir.
    const databaseTs = fileURLToPath(new URL('./database.ts', import.meta.url));
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { openDatabase } = await import(process.argv[1]);
         await openDatabase({ dataDir: process.argv[2] });
         console.log('ready'); setInterval(() => {}, 1000);`,
        databaseTs,
        dataDir,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child!.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child!.on('exit', (code) => reject(new Error(`child exited with ${code}`)));
    });

    const rejected = performance.now();
    const err = await openDatabase({ dataDir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect(String(err)).toContain(`pid ${child.pid}`);
    expect(performance.now() - rejected).toBeLessThan(1000); // fails fast

    // A crash leaves the lock file and the Unix socket behind.
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = undefined;
    expect(lstatSync(join(dataDir, '.s.PGSQL.5432')).isSocket()).toBe(true);

    const started = performance.now();
    db = await openDatabase({ dataDir });
    console.log(`embedded open after a crash: ${Math.round(performance.now() - started)} ms`);
    expect(await db.em().count(OrgEntity)).toBe(1);
  });
});

const backends = [postgresRun ? ('postgres' as const) : ('embedded' as const)];

describe.each(backends)('%s backend', (backend) => {
  let t: TestDatabase;

  beforeAll(async () => {
    const started = performance.now();
    t = await createTestDatabase({ backend });
    console.log(`${backend}: createTestDatabase ${Math.round(performance.now() - started)} ms`);
  });
  afterAll(() => t?.cleanup());

  it('matches the entities exactly after migrating (no pending schema diff)', async () => {
    expect(await t.db.orm.getMigrator().checkMigrationNeeded()).toBe(false);
  });

  it('round-trips any JSON in jsonb columns, scalars included', async () => {
    const { project, org } = await seedProject(t.db.em());
    const values: JsonValue[] = [false, true, 0, -1.5, 'x', '', 'null', '{"a":1}', [], {}, [null], { a: { b: [1, 'two'] } }];
    const em = t.db.em();
    const ids = values.map(
      (defaultValue, i) =>
        em.create(PrimitiveEntity, {
          orgId: org.id,
          projectId: project.id,
          kind: 'config',
          key: `k${i}`,
          name: `k${i}`,
          valueType: 'json',
          defaultValue,
          createdAt: now(),
          updatedAt: now(),
        }).id,
    );
    const nullId = em.create(PrimitiveEntity, {
      orgId: org.id,
      projectId: project.id,
      kind: 'config',
      key: 'knull',
      name: 'knull',
      valueType: 'json',
      defaultValue: null,
      createdAt: now(),
      updatedAt: now(),
    }).id;
    await em.flush();

    const read = t.db.em();
    for (const [i, id] of ids.entries()) {
      expect((await read.findOneOrFail(PrimitiveEntity, id)).defaultValue).toStrictEqual(values[i]);
    }
    // JSON null is stored as SQL NULL and reads back as null.
    expect((await read.findOneOrFail(PrimitiveEntity, nullId)).defaultValue).toBeNull();
    const [raw] = await t.db
      .em()
      .getConnection()
      .execute(`select default_value is null as sql_null from primitives where id = '${nullId}'`);
    expect(raw?.sql_null).toBe(true);

    // Updates between scalar types are detected and written.
    const p = await read.findOneOrFail(PrimitiveEntity, ids[0]!);
    for (const v of [0, '0', 'false', null, false] as JsonValue[]) {
      p.defaultValue = v;
      await read.flush();
      expect((await t.db.em().findOneOrFail(PrimitiveEntity, p.id)).defaultValue).toStrictEqual(v);
    }
  });

  it('serialises concurrent read-modify-write with LockMode.PESSIMISTIC_WRITE', async () => {
    const { env } = await seedProject(t.db.em());
    const bump = () =>
      t.db.em().transactional(async (em) => {
        const row = await em.findOneOrFail(EnvironmentEntity, env.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
        await new Promise((r) => setTimeout(r, 5)); // widen the race window
        row.version += 1;
      });
    const worker = async () => {
      for (let i = 0; i < 5; i++) await bump();
    };
    await Promise.all([worker(), worker(), worker()]);
    expect((await t.db.em().findOneOrFail(EnvironmentEntity, env.id)).version).toBe(15);
  });

  it('enforces uniques, the lowercase email check and cascading deletes', async () => {
    const { org, project, env } = await seedProject(t.db.em());
    const em = t.db.em();
    const prim = em.create(PrimitiveEntity, {
      orgId: org.id,
      projectId: project.id,
      kind: 'flag',
      key: 'beta',
      name: 'Beta',
      valueType: 'boolean',
      defaultValue: false,
      createdAt: now(),
      updatedAt: now(),
    });
    em.create(PrimitiveStateEntity, { primitiveId: prim.id, envId: env.id, value: true, rules: [], createdAt: now(), updatedAt: now() });
    await em.flush();

    const dup = t.db.em();
    dup.create(ProjectEntity, { orgId: org.id, key: 'web', name: 'again', targetIdField: 'userId', createdAt: now(), updatedAt: now() });
    await expect(dup.flush()).rejects.toThrow(/unique/i);

    const upper = t.db.em();
    upper.create(UserEntity, { email: 'Ann@Example.com', displayName: 'Ann', createdAt: now() });
    await expect(upper.flush()).rejects.toThrow(/users_email_lowercase_check/);

    await t.db.em().nativeDelete(OrgEntity, { id: org.id });
    expect(await t.db.em().count(PrimitiveStateEntity, { envId: env.id })).toBe(0);
  });

  it('pings', async () => {
    await t.db.ping();
  });
});

describe.skipIf(postgresRun)('embedded pool of one', () => {
  it('fails (instead of hanging) when a second connection is needed inside a transaction', async () => {
    const t = await createTestDatabase({ backend: 'embedded' });
    const db = await openDatabase({ ...t.options, acquireTimeoutMs: 300 });
    try {
      const err = await db
        .em()
        .transactional(async () => {
          // Wrong on purpose: a different EntityManager needs a second pooled connection.
          await db.em().count(OrgEntity);
        })
        .catch((e: unknown) => e);
      expect(String(err)).toMatch(/timeout/i);
      await db.ping(); // and the pool recovers

      // The same mistake with a prepared statement, which runs on the statement pool's connections.
      const one = () => preparedQuery(db.em(), 'one', 'select 1 as one', []);
      await expect(db.em().transactional(one)).rejects.toThrow(/timeout/i);
      expect(await one()).toEqual([{ one: 1 }]);

      // In memory the socket is in a private temporary dir: reset its connections too.
      await abuseConnections({ path: join(String(db.orm.config.get('host')), '.s.PGSQL.5432') });
      await db.ping();
    } finally {
      await db.close();
      await t.cleanup();
    }
    await expect(db.ping()).rejects.toThrow();
  });
});

describe.skipIf(!process.env.DATABASE_URL)('postgres with a schema', () => {
  it('creates the schema and keeps every table and the migrations log in it', async () => {
    // An empty database (no template): the diff check below must not see tables in public.
    const adminUrl = process.env.DATABASE_URL!;
    const name = `gradual_schema_test_${crypto.randomUUID().slice(0, 8)}`;
    await createDatabase(adminUrl, name);
    const schema = 'tenant_a';
    let db: Database | undefined;
    try {
      db = await openDatabase({ databaseUrl: databaseUrlFor(adminUrl, name), dataDir: 'memory://', schema });
      const rows = await db
        .em()
        .getConnection()
        .execute(`select table_schema, table_name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')`);
      const tables = rows.map((r) => `${String(r.table_schema)}.${String(r.table_name)}`);
      expect(tables).toEqual(expect.arrayContaining(['tenant_a.users', 'tenant_a.audit_events', 'tenant_a.mikro_orm_migrations']));
      expect(tables.filter((t) => !t.startsWith('tenant_a.'))).toEqual([]);

      const { org } = await seedProject(db.em());
      // Unqualified raw SQL resolves through search_path to the schema as well.
      const [row] = await db.em().getConnection().execute(`select count(*)::int as n from orgs where id = '${org.id}'`);
      expect(row?.n).toBe(1);
      expect(await db.orm.getMigrator().checkMigrationNeeded()).toBe(false);
      await db.close();

      // Reopening finds the migrations already applied in the schema.
      db = await openDatabase({ databaseUrl: databaseUrlFor(adminUrl, name), dataDir: 'memory://', schema });
      expect(await db.orm.getMigrator().getPendingMigrations()).toEqual([]);
      expect(await db.em().count(OrgEntity)).toBe(1);
    } finally {
      await db?.close();
      await dropDatabases(adminUrl, [name]);
    }
  });

  it('lets several instances start at once on an empty database: one migrates, the others wait', async () => {
    const adminUrl = process.env.DATABASE_URL!;
    const name = `gradual_schema_test_${crypto.randomUUID().slice(0, 8)}`;
    await createDatabase(adminUrl, name);
    const opts = { databaseUrl: databaseUrlFor(adminUrl, name), dataDir: 'memory://', schema: 'tenant_b', poolMax: 2 };
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => openDatabase(opts)));
    try {
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      const db = (results[0] as PromiseFulfilledResult<Database>).value;
      const [row] = await db.em().getConnection().execute('select count(*)::int as n from tenant_b.mikro_orm_migrations');
      expect(row?.n).toBe(migrationsList.length);
    } finally {
      for (const r of results) if (r.status === 'fulfilled') await r.value.close();
      await dropDatabases(adminUrl, [name]);
    }
  });
});
