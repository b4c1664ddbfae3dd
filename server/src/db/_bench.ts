import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from './database.js';
const mode = process.argv[2];
const dir = process.argv[3] ?? join(mkdtempSync(join(tmpdir(), 'gb-')), 'data');
let t = performance.now();
if (mode === 'pglite') {
  const pg = await PGlite.create({ dataDir: dir });
  console.log('pglite.create new dir', Math.round(performance.now() - t));
  await pg.close();
} else {
  const db = await openDatabase({ dataDir: dir, logger: pino({ level: 'info' }) });
  console.log(mode, 'openDatabase', Math.round(performance.now() - t), dir);
  await db.close();
}
