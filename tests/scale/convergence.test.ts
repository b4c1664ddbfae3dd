/**
 * The convergence ledger's accuracy (docs/convergence.md): 1,000 simulated SDK instances in a lean
 * pool of processes (tests/scale/support/ack-pool.ts), 10 of them frozen on the version they
 * started on. After a write, the ledger reports 990 of 1,000 on the new version and names the 10
 * laggards. The goal is within 2 s: the time it took is printed, not asserted (times belong to
 * benchmarks). On PostgreSQL two server processes share the database: the instances acknowledge
 * to both, and the ledger, read from one, merges them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createClient } from '@gradual/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimProcess, createScratchDatabase, startProduction, type ProductionServer } from '../support/production.js';

const ADMIN_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const POOLS = 4;
const PER_POOL = 250;
/** Instance 0 to 9 of the first pool. */
const FROZEN = Array.from({ length: 10 }, (_, i) => i);
/** How long the test waits for the ledger to show the change (a broken one never does, or counts the frozen ones). */
const WAIT_MS = 20_000;

describe('convergence ledger accuracy', () => {
  const servers: ProductionServer[] = [];
  const pools: ChildProcess[] = [];
  let dropDb: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const env = { NODE_ENV: 'test', LOG_LEVEL: 'warn', ORG_RATE_LIMIT_PER_MIN: '1000000', ...(ADMIN_URL ? { REDIS_URL } : {}) };
    if (ADMIN_URL) {
      const db = await createScratchDatabase(ADMIN_URL, 'gradual_t_convergence');
      dropDb = db.drop;
      servers.push(await startProduction({ databaseUrl: db.url, env }));
      servers.push(await startProduction({ databaseUrl: db.url, env }));
    } else {
      servers.push(await startProduction({ env }));
    }
  }, 180_000);

  afterAll(async () => {
    for (const p of pools) p.kill();
    await Promise.all(servers.map((s) => s.stop()));
    await dropDb?.();
  }, 60_000);

  it('reports 990 of 1,000 instances on the new version within seconds of the write, and names the 10 frozen ones', async () => {
    const { sessionToken } = await claimProcess(servers[0]!);
    const owner = createClient({ baseUrl: servers[0]!.url, sessionToken });
    const reader = createClient({ baseUrl: servers.at(-1)!.url, sessionToken });
    const projectId = (await owner.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    const envId = (await owner.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    const { token } = await owner.createApiKey({ path: { slug: 'acme' }, body: { name: 'fleet', kind: 'sdk', environments: [envId], rateLimitPerMin: 100_000 } });

    const ready: Array<Promise<void>> = [];
    for (let p = 0; p < POOLS; p++) {
      const child = spawn(process.execPath, ['--import', 'tsx', new URL('./support/ack-pool.ts', import.meta.url).pathname], {
        env: { ...process.env, URLS: servers.map((s) => s.url).join(','), TOKEN: token, ENV_ID: envId, POOL: String(p), INSTANCES: String(PER_POOL), FROZEN: p === 0 ? FROZEN.join(',') : '' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      pools.push(child);
      ready.push(new Promise((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`ack pool ${p} exited with ${code}`)));
        createInterface({ input: child.stdout }).once('line', () => resolve());
      }));
    }
    await Promise.all(ready);
    // The other server writes what it holds every second: read until its share is in.
    let before = await reader.getConvergence({ path: { envId } });
    for (const t = Date.now(); before.instances < POOLS * PER_POOL && Date.now() - t < 5000; ) {
      await new Promise((r) => setTimeout(r, 100));
      before = await reader.getConvergence({ path: { envId } });
    }
    expect(before).toMatchObject({ instances: POOLS * PER_POOL, current: POOLS * PER_POOL, laggards: [] });

    const t0 = Date.now();
    await owner.setFlagValue({ path: { envId, key: 'checkout' }, body: { value: true } });
    let ledger = before;
    while (Date.now() - t0 < WAIT_MS) {
      ledger = await reader.getConvergence({ path: { envId } });
      if (ledger.version > before.version && ledger.current === POOLS * PER_POOL - FROZEN.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const tookMs = Date.now() - t0;
    expect(ledger).toMatchObject({ version: before.version + 1, instances: POOLS * PER_POOL, current: POOLS * PER_POOL - FROZEN.length });
    expect(ledger.laggards.map((l) => l.instanceId).sort()).toEqual(FROZEN.map((i) => `sim-0-${i}`).sort());
    expect(ledger.laggards.every((l) => l.version === before.version && l.service === 'pool-0')).toBe(true);
    console.log(`ledger: ${ledger.current}/${ledger.instances} on v${ledger.version} after ${tookMs} ms; p50 ${ledger.versions[0]?.p50Ms} ms, p99 ${ledger.versions[0]?.p99Ms} ms (${servers.length} server instance(s))`);
  }, 120_000);
});
