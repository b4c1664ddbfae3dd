/**
 * Several server PROCESSES (production bundle, `node scripts/start.mjs`) on one PostgreSQL
 * database and one Redis: what an operator runs behind a load balancer. Each process has its own
 * pool, scheduler, caches, rate-limit client and LISTEN connection; only the database and Redis
 * are shared. (The in-process variants of these checks run on both backends in tests/http.)
 *
 * PostgreSQL only: an embedded PGlite data dir belongs to one process by design (lockfile).
 * The processes run with SERVICE_TEST_CLOCK=1 (NODE_ENV=test) so the test can line their clocks
 * up and make each run a scheduler tick at the same instant.
 */
import { createClient, type GradualClient } from '@gradual/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrapeMetrics } from '../support/metrics.js';
import { claimProcess, createScratchDatabase, setProcessClock, startProduction, type ProductionServer } from '../support/production.js';

const ADMIN_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const INSTANCES = 3;

describe.runIf(!!ADMIN_URL)(`${INSTANCES} server processes on one PostgreSQL and one Redis`, () => {
  const servers: ProductionServer[] = [];
  let dropDb: (() => Promise<void>) | undefined;
  let owners: GradualClient[] = [];
  let sessionToken: string;
  let projectId: string;
  let envId: string;

  beforeAll(async () => {
    const db = await createScratchDatabase(ADMIN_URL!, 'gradual_t_scale');
    dropDb = db.drop;
    const env = { NODE_ENV: 'test', SERVICE_TEST_CLOCK: '1', REDIS_URL, LOG_LEVEL: 'warn' };
    // The first process migrates; the others then start on the migrated database in parallel.
    servers.push(await startProduction({ databaseUrl: db.url, env }));
    servers.push(...(await Promise.all(Array.from({ length: INSTANCES - 1 }, () => startProduction({ databaseUrl: db.url, env })))));
    ({ sessionToken } = await claimProcess(servers[0]!));
    owners = servers.map((s) => createClient({ baseUrl: s.url, sessionToken }));
    projectId = (await owners[0]!.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owners[1]!.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await dropDb?.();
  }, 60_000);

  it('apply each plan step exactly once when every scheduler ticks at the same instant', async () => {
    await owners[0]!.createRolloutPlan({
      path: { id: projectId },
      body: { key: 'fast', name: 'Fast', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 20, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 0 }] },
    });
    const start = '2026-06-01T10:00:00.000Z';
    await Promise.all(servers.map(async (s) => expect((await setProcessClock(s, start)).status).toBe(200)));
    const n = 60;
    for (let i = 0; i < n; i++) {
      const api = owners[i % INSTANCES]!;
      await api.createFlag({ path: { id: projectId }, body: { key: `sched-${i}`, name: `S${i}`, defaultValue: false } });
      await api.putFlagRollout({ path: { envId, key: `sched-${i}` }, body: { percent: 10, newValue: true, planKey: 'fast' } });
    }
    // Every process moves its clock past the hold at once: each move runs one tick, and the
    // three ticks race over the same 60 due rollouts.
    await Promise.all(servers.map(async (s) => expect((await setProcessClock(s, '2026-06-01T10:01:01.000Z')).status).toBe(200)));
    const advanced = (await owners[2]!.listAuditEvents({ path: { slug: 'acme' }, query: { envId, resourceType: 'rollout', limit: 200 } })).events.filter(
      (e) => e.action === 'rollout.advanced',
    );
    expect(advanced).toHaveLength(n);
    expect(new Set(advanced.map((e) => e.resourceKey)).size).toBe(n);
    expect(advanced.every((e) => e.actorType === 'system')).toBe(true);
    for (let i = 0; i < n; i += 7) {
      expect(await owners[i % INSTANCES]!.getFlagRollout({ path: { envId, key: `sched-${i}` } })).toMatchObject({ percent: 20, rampStepIdx: 1 });
    }
  });

  it('deliver a write on one instance to SSE clients on every other', async () => {
    await owners[0]!.createFlag({ path: { id: projectId }, body: { key: 'live', name: 'Live', defaultValue: false } });
    const readers = await Promise.all(
      servers.map(async (s) => {
        const res = await fetch(`${s.url}/api/v1/envs/${envId}/ruleset/stream`, { headers: { cookie: `svc_session=${sessionToken}` } });
        const reader = res.body!.getReader();
        const state = { text: '' };
        const versions = () => [...state.text.matchAll(/data: \{"version":(\d+)\}/g)].map((m) => Number(m[1]));
        const until = async (pred: (v: number[]) => boolean) => {
          const decoder = new TextDecoder();
          while (!pred(versions())) state.text += decoder.decode((await reader.read()).value);
        };
        await until((v) => v.length >= 1);
        return { reader, versions, until };
      }),
    );
    const before = Math.max(...readers.map((r) => r.versions()[0]!));
    await owners[2]!.setFlagValue({ path: { envId, key: 'live' }, body: { value: true } });
    const after = (await owners[0]!.getEnvironment({ path: { envId } })).version;
    expect(after).toBeGreaterThan(before);
    await Promise.all(readers.map((r) => r.until((v) => v.includes(after))));
    for (const r of readers) await r.reader.cancel();
    // …and every instance serves that version's ruleset right away (its environment directory
    // heard the NOTIFY; no instance answers a stale 304).
    const key = (await owners[0]!.createApiKey({ path: { slug: 'acme' }, body: { name: 'reader' } })).token;
    for (const s of servers) {
      const ruleset = await createClient({ baseUrl: s.url, token: key }).getRuleset({ path: { envId } });
      expect(ruleset.version).toBe(after);
    }
  });

  it('keep every instance’s in-memory allow-list in step with edits made on another', async () => {
    await owners[0]!.createFlag({ path: { id: projectId }, body: { key: 'listed', name: 'Listed', defaultValue: false } });
    await owners[0]!.putFlagRollout({ path: { envId, key: 'listed' }, body: { percent: 0, newValue: true } });
    await owners[0]!.addFlagTargetIds({ path: { envId, key: 'listed' }, body: { targetIds: ['a', 'b'] } });
    const { token } = await owners[0]!.createApiKey({ path: { slug: 'acme' }, body: { name: 'checker', actions: ['read'] } });
    const check = async (s: ProductionServer, id: string) => {
      const res = await fetch(`${s.url}/api/v1/envs/${envId}/flags/listed/rollout/target-ids/contains/${id}`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { contains: boolean }).contains;
    };
    const fromMemory = async (s: ProductionServer) => (await scrapeMetrics(s.url)).sample('gradual_target_id_checks_total{source="memory"}', 0);
    /** Checks `id` on `s` until memory answers it (caches and the list warm up in the background), within 5 s. */
    const answeredFromMemory = async (s: ProductionServer, id: string) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const before = await fromMemory(s);
        const contains = await check(s, id);
        if ((await fromMemory(s)) > before) return contains;
        if (Date.now() > deadline) throw new Error(`${s.url} never answered ${id} from memory`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    for (const s of servers) expect(await answeredFromMemory(s, 'a')).toBe(true);
    // An edit on one instance: every other one hears of the new environment version (NOTIFY),
    // stops answering from its old copy at once, and answers from the new list in memory after.
    await owners[1]!.removeFlagTargetIds({ path: { envId, key: 'listed' }, body: { targetIds: ['a'] } });
    for (const s of servers) {
      const deadline = Date.now() + 2000;
      while (await check(s, 'a')) {
        if (Date.now() > deadline) throw new Error(`${s.url} still lists a`);
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await answeredFromMemory(s, 'a')).toBe(false);
      expect(await answeredFromMemory(s, 'b')).toBe(true);
    }
  });

  it('share API-key rate-limit buckets through Redis', async () => {
    const { token } = await owners[0]!.createApiKey({ path: { slug: 'acme' }, body: { name: 'limited', rateLimitPerMin: 30 } });
    const statuses: number[] = [];
    for (let i = 0; i < 36; i++) {
      const res = await fetch(`${servers[i % INSTANCES]!.url}/api/v1/orgs/acme`, { headers: { authorization: `Bearer ${token}` } });
      statuses.push(res.status);
    }
    // 30 tokens in the one shared bucket (a second of refill may add one): not 30 per instance.
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBeGreaterThanOrEqual(30);
    expect(ok).toBeLessThanOrEqual(31);
    expect(statuses.slice(-4).every((s) => s === 429)).toBe(true);
  });

  it('settle racing rollback fires on different instances: one transition, the rest no-ops', async () => {
    await owners[0]!.createFlag({ path: { id: projectId }, body: { key: 'fire', name: 'Fire', defaultValue: false } });
    await owners[0]!.putFlagRollout({ path: { envId, key: 'fire' }, body: { percent: 30, newValue: true } });
    const { token } = await owners[1]!.createRollbackSecret({ path: { envId }, body: { name: 'alertmanager' } });
    const fires = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        fetch(`${servers[i % INSTANCES]!.url}/api/v1/webhooks/rollback/envs/${envId}/flags/fire`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ alert_url: `https://alerts.example.com/${i}` }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { noop: boolean } })),
      ),
    );
    expect(fires.every((f) => f.status === 200)).toBe(true);
    expect(fires.filter((f) => !f.body.noop)).toHaveLength(1);
    expect(await owners[2]!.getFlagRollout({ path: { envId, key: 'fire' } })).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback' });
    const history = await owners[0]!.listFlagRollbackFires({ path: { envId, flagKey: 'fire' }, query: { limit: 200 } });
    expect(history.fires).toHaveLength(30);
    const audit = (await owners[0]!.listAuditEvents({ path: { slug: 'acme' }, query: { envId, resourceType: 'rollout', limit: 200 } })).events.filter(
      (e) => e.resourceKey === 'fire' && e.action === 'rollout.auto_rollback',
    );
    expect(audit).toHaveLength(1);
  });
});
