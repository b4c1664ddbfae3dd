import { readFileSync } from 'node:fs';
import { openDatabase } from './database.js';
const dump = new Blob([readFileSync(process.argv[2]!)]);
const t = performance.now();
const db = await openDatabase({ dataDir: 'memory://', loadDataDir: dump });
console.log('memory from dump', Math.round(performance.now() - t));
await db.close();
