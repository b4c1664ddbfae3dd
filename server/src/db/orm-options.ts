import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { MikroORM } from '@mikro-orm/core';
import type { Migrator } from '@mikro-orm/migrations';
import type { Options } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { entities } from './entities/index.js';
import { migrationsList } from './migrations/index.js';

/** Where migration files live; make-migration.ts writes here. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

const requireHere = createRequire(import.meta.url);

/**
 * What `extensions: [Migrator]` registers, but @mikro-orm/migrations (with umzug and its CLI,
 * ~0.1 s to load) is loaded when a migrator is first used: at start-up only when a migration is
 * pending (database.ts). Same package instance as the migrations' `import { Migration }`.
 */
const lazyMigrator = {
  register(orm: MikroORM): void {
    orm.config.registerExtension('@mikro-orm/migrator', () => {
      const { Migrator: MigratorClass } = requireHere('@mikro-orm/migrations') as { Migrator: typeof Migrator };
      return new MigratorClass(orm.em as ConstructorParameters<typeof Migrator>[0]);
    });
  },
};

/**
 * MikroORM options shared by the server (database.ts) and the migration generator
 * (make-migration.ts). Connection details are added by the caller.
 */
export function baseOrmOptions(logger?: Logger): Options {
  return {
    entities,
    extensions: [lazyMigrator],
    // defineEntity carries all metadata: no reflection, no file globbing (both break under vitest/tsx).
    discovery: { disableDynamicFileAccess: true, warnWhenNoEntities: false },
    migrations: {
      // Static list: loading .ts migration files by glob fails under vitest.
      migrationsList,
      path: MIGRATIONS_DIR,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      // Diff against the real database, not a snapshot file that could drift.
      snapshot: false,
      emit: 'ts',
      silent: true,
    },
    // Run `onCreate` (our uuid generator) inside em.create(), not at flush: services need the
    // new row's id at once, e.g. to create its children in the same unit of work.
    processOnCreateHooksEarly: true,
    colors: false,
    // Query logging only when the caller's pino logger is at trace level.
    debug: logger?.isLevelEnabled('trace') ? ['query', 'query-params'] : false,
    logger: (message: string) => logger?.trace({ component: 'mikro-orm' }, message),
  };
}
