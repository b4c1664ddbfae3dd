import { writeFileSync } from 'node:fs';
import { openDatabase } from './database.js';
const db = await openDatabase({ dataDir: 'memory://' });
writeFileSync('/tmp/gradual-bench-dump.tar', Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()));
await db.close();
