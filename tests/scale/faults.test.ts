/**
 * Crashes and outages against production processes (`node scripts/start.mjs`):
 *
 * - `kill -9` in the middle of a 100,000-ID replace and in the middle of a scheduler tick over
 *   many due rollouts: after a restart on the same data (embedded data dir or PostgreSQL
 *   database), nothing is half-applied and every acknowledged write is there.
 * - PostgreSQL stopped and started again under traffic (a private cluster made with Debian's
 *   pg_createcluster, so the shared server the other tests use is never touched): /readyz goes
 *   red then green, requests meanwhile fail with the 503 envelope (never a 500), nothing
 *   acknowledged is lost.
 *
 * SMTP being down is covered in tests/http/signin.test.ts (bounded retries, then logged).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@gradual/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { claimProcess, createScratchDatabase, freePort, setProcessClock, startProduction, waitReady, type ProductionServer } from '../support/production.js';
import { allFlagTargetIds } from '../support/rollout-ops.js';

const ADMIN_URL = process.env.DATABASE_URL;
const backend = ADMIN_URL ? 'PostgreSQL' : 'embedded PGlite';
const ENV = { NODE_ENV: 'test', SERVICE_TEST_CLOCK: '1', LOG_LEVEL: 'warn' };

/** Where the data lives across restarts: a scratch PostgreSQL database, or an embedded data dir. */
async function durableStore(): Promise<{ start: () => Promise<ProductionServer>; dispose: () => Promise<void> }> {
  if (ADMIN_URL) {
    const db = await createScratchDatabase(ADMIN_URL, 'gradual_t_faults');
    return { start: () => startProduction({ databaseUrl: db.url, env: ENV }), dispose: db.drop };
  }
  const dir = mkdtempSync(join(tmpdir(), 'gradual-faults-'));
  return {
    start: () => startProduction({ dataDir: join(dir, 'data'), env: ENV }),
    dispose: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

describe(`kill -9 and restart (${backend})`, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  }, 60_000);

  it('in the middle of a 100,000-ID replace: the old list or the new one, never a mix', async () => {
    const store = await durableStore();
    cleanups.push(store.dispose);
    let server = await store.start();
    cleanups.push(() => server.stop());
    const { owner, sessionToken: token } = await claimProcess(server);
    const project = await owner.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    const envId = (await owner.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.createFlag({ path: { id: project.id }, body: { key: 'beta', name: 'Beta', defaultValue: false } });
    await owner.putFlagRollout({ path: { envId, key: 'beta' }, body: { percent: 0, newValue: true } });
    const before = Array.from({ length: 1000 }, (_, i) => `old-${String(i).padStart(4, '0')}`);
    expect(await owner.replaceFlagTargetIds({ path: { envId, key: 'beta' }, body: { targetIds: before } })).toEqual({ kind: 'applied', data: { count: 1000 } });

    const after = Array.from({ length: 100_000 }, (_, i) => `new-${String(i).padStart(6, '0')}`);
    let acknowledged = false;
    const replace = owner
      .replaceFlagTargetIds({ path: { envId, key: 'beta' }, body: { targetIds: after } })
      .then(() => (acknowledged = true))
      .catch(() => undefined);
    // Somewhere inside the request: body upload, validation or the transaction.
    await new Promise((r) => setTimeout(r, ADMIN_URL ? 400 : 900));
    await server.crash();
    await replace;

    server = await store.start();
    const api = createClient({ baseUrl: server.url, sessionToken: token });
    const ids = await allFlagTargetIds(api, envId, 'beta');
    const rollout = await api.getFlagRollout({ path: { envId, key: 'beta' } });
    expect(rollout.targetIdsCount).toBe(ids.length);
    if (acknowledged) expect(ids.length).toBe(100_000);
    if (ids.length === 1000) expect(ids).toEqual(before);
    else expect(ids).toEqual(after);
    const audit = await api.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', limit: 200 } });
    const replaced = audit.events.filter((e) => e.action === 'rollout.target_ids_replaced');
    expect(replaced).toHaveLength(ids.length === 1000 ? 1 : 2);
    console.info(`replace crash: ${acknowledged ? 'acknowledged before the kill' : 'killed in flight'}, ${ids.length === 1000 ? 'rolled back' : 'committed'}`);
  }, 180_000);

  it('in the middle of a scheduler tick: each due step applied once, with its audit row', async () => {
    const store = await durableStore();
    cleanups.push(store.dispose);
    let server = await store.start();
    cleanups.push(() => server.stop());
    const { owner, sessionToken: token } = await claimProcess(server);
    const project = await owner.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    const envIds: string[] = [];
    for (let e = 0; e < 4; e++) envIds.push((await owner.createEnvironment({ path: { id: project.id }, body: { key: `env${e}`, name: `Env ${e}` } })).id);
    await owner.createRolloutPlan({
      path: { id: project.id },
      body: { key: 'ramp', name: 'Ramp', cadence: 'auto', rampSteps: [{ percent: 5, holdForSeconds: 60 }, { percent: 25, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] },
    });
    expect((await setProcessClock(server, '2026-06-01T10:00:00.000Z')).status).toBe(200);
    const flags = 50;
    for (let i = 0; i < flags; i++) {
      await owner.createFlag({ path: { id: project.id }, body: { key: `f${i}`, name: `F${i}`, defaultValue: false } });
      await Promise.all(envIds.map((envId) => owner.putFlagRollout({ path: { envId, key: `f${i}` }, body: { percent: 5, newValue: true, planKey: 'ramp' } })));
    }
    const total = flags * envIds.length;

    // The clock move runs one tick over all 200 due rollouts; kill the process during it.
    const tick = setProcessClock(server, '2026-06-01T10:01:01.000Z').catch(() => undefined);
    await new Promise((r) => setTimeout(r, ADMIN_URL ? 60 : 150));
    await server.crash();
    await tick;

    server = await store.start();
    const api = createClient({ baseUrl: server.url, sessionToken: token });
    const advancedRows = async () =>
      (await api.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', limit: 200 } })).events.filter((e) => e.action === 'rollout.advanced');
    const states = async () =>
      Promise.all(envIds.flatMap((envId) => Array.from({ length: flags }, (_, i) => api.getFlagRollout({ path: { envId, key: `f${i}` } }))));
    // Whatever the crash left: every rollout on step 2 has exactly its one audit row, the rest are untouched.
    const partial = await states();
    const onStep2 = partial.filter((r) => r.rampStepIdx === 1);
    expect(partial.every((r) => (r.rampStepIdx === 1 && r.percent === 25) || (r.rampStepIdx === 0 && r.percent === 5))).toBe(true);
    expect((await advancedRows()).length).toBe(onStep2.length);
    console.info(`tick crash: ${onStep2.length} of ${total} rollouts had advanced when the process died`);

    // The next tick (same instant) finishes the job, and nothing is applied twice.
    expect((await setProcessClock(server, '2026-06-01T10:01:01.000Z')).status).toBe(200);
    const done = await states();
    expect(done.every((r) => r.rampStepIdx === 1 && r.percent === 25)).toBe(true);
    const rows = await advancedRows();
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((e) => `${e.envId}/${e.resourceKey}`)).size).toBe(total);
  }, 240_000);
});

const PG_VERSION = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql')[0] : undefined;
const canRunCluster = !!ADMIN_URL && !!PG_VERSION && existsSync('/usr/bin/pg_createcluster') && process.getuid?.() === 0;

describe.runIf(canRunCluster)('PostgreSQL stopped and restarted under traffic (a private cluster)', () => {
  it('readyz goes red then green, requests fail with the 503 envelope meanwhile, no acknowledged write is lost', async () => {
    const name = `gradual_fault_${process.pid}_${Date.now() % 100_000}`;
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'gradual-pgfault-'));
    execFileSync('chown', ['postgres:postgres', dir]);
    const pg = (...args: string[]) => execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', PG_VERSION!, name, ...args], { stdio: 'pipe' });
    execFileSync('pg_createcluster', ['-p', String(port), '-d', join(dir, 'data'), PG_VERSION!, name, '--', '--auth=trust'], { stdio: 'pipe' });
    let server: ProductionServer | undefined;
    try {
      pg('start');
      server = await startProduction({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, env: { LOG_LEVEL: 'error', DATABASE_POOL_MAX: '4' } });
      const { owner, sessionToken: token } = await claimProcess(server);
      const project = await owner.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
      const envId = (await owner.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
      await owner.createConfig({ path: { id: project.id }, body: { key: 'limit', name: 'Limit', defaultValue: 0 } });

      // Traffic: numbered config writes, one after another, until told to stop.
      const acknowledged: number[] = [];
      const failures: Array<{ status: number; code?: string }> = [];
      let stop = false;
      const traffic = (async () => {
        for (let n = 1; !stop; n++) {
          const res = await fetch(`${server.url}/api/v1/envs/${envId}/configs/limit/value`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json', cookie: `svc_session=${token}`, origin: server.url },
            body: JSON.stringify({ value: n }),
          }).catch(() => null);
          if (!res) continue;
          if (res.ok) acknowledged.push(n);
          else failures.push({ status: res.status, code: ((await res.json().catch(() => ({}))) as { code?: string }).code });
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      await new Promise((r) => setTimeout(r, 500));
      pg('stop', '-m', 'fast');
      // Red: readiness fails while the database is gone.
      let red = false;
      for (let i = 0; i < 100 && !red; i++) {
        red = (await fetch(`${server.url}/readyz`)).status === 503;
        if (!red) await new Promise((r) => setTimeout(r, 100));
      }
      expect(red).toBe(true);
      await new Promise((r) => setTimeout(r, 1500));
      pg('start');
      await waitReady(server.url, undefined, 60_000);
      const ackBeforeRecovery = acknowledged.length;
      for (let i = 0; i < 100 && acknowledged.length < ackBeforeRecovery + 3; i++) await new Promise((r) => setTimeout(r, 100));
      stop = true;
      await traffic;

      expect(acknowledged.length).toBeGreaterThan(ackBeforeRecovery); // writes work again
      expect(failures.length).toBeGreaterThan(0); // the outage was seen…
      expect(failures.every((f) => f.status === 503 && f.code === 'service_unavailable')).toBe(true); // …as the envelope, never a 500
      // Every acknowledged write committed: its audit row names its value.
      const audit = await owner.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'config', limit: 200 } });
      const valueRows = audit.events.filter((e) => e.action === 'config.update_value');
      const written = new Set(await Promise.all(valueRows.map(async (e) => (await owner.getAuditEvent({ path: { id: e.id } })).newValue)));
      expect(acknowledged.filter((n) => !written.has(n))).toEqual([]);
      console.info(`pg outage: ${acknowledged.length} writes acknowledged, ${failures.length} answered 503 during the outage`);
    } finally {
      await server?.stop();
      execFileSync('pg_dropcluster', ['--stop', PG_VERSION!, name], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
