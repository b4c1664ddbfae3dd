// What openDatabase() loads once the embedded database's thread has started (see database.ts):
// MikroORM (~0.5 s to load) and everything the ORM options pull in (entities, migrations).
export { MikroORM } from '@mikro-orm/postgresql';
export { baseOrmOptions } from './orm-options.js';
