import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { RateLimits } from '../../server/src/rate-limits/rate-limits.js';
import { loadConfig } from '../../server/src/config.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { openDatabase, type Database } from '../../server/src/db/database.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('rate-limit buckets in Redis', () => {
  it('are shared by every RateLimits instance (each server has its own)', async () => {
    const a = await RateLimits.create(REDIS_URL);
    const b = await RateLimits.create(REDIS_URL);
    expect(a.shared && b.shared).toBe(true);
    try {
      const subject = randomUUID();
      const decisions = [];
      for (let i = 0; i < 6; i++) decisions.push(await (i % 2 ? a : b).consume('test-shared', subject, 5, 60));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(decisions[5]!.resetSeconds).toBeGreaterThan(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('rollback fires across instances', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestServer({ REDIS_URL });
    owner = await claim(t);
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'p', name: 'P' } });
    envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'f', name: 'F', defaultValue: false } });
    await owner.session.putFlagRollout({ path: { envId, key: 'f' }, body: { percent: 20, newValue: true } });
    token = (await owner.session.createRollbackSecret({ path: { envId }, body: { name: 'grafana' } })).token;
  });
  afterAll(() => t?.close());

  it('reaches a streaming client through the same path as any write', async () => {
    const reader = await fetch(`${t.url}/api/v1/envs/${envId}/ruleset/stream`, { headers: { cookie: `svc_session=${owner.sessionToken}` } });
    const stream = reader.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const versions = () => [...text.matchAll(/data: \{"version":(\d+)\}/g)].map((m) => Number(m[1]));
    while (versions().length < 1) text += decoder.decode((await stream.read()).value);
    const res = await fetch(`${t.url}/api/v1/webhooks/rollback/envs/${envId}/flags/f`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(await res.json()).toMatchObject({ noop: false, newStatus: 'paused' });
    while (versions().length < 2) text += decoder.decode((await stream.read()).value);
    expect(versions()[1]).toBe(versions()[0]! + 1);
    await stream.cancel();
    await owner.session.resumeFlagRollout({ path: { envId, key: 'f' } });
  });

  it.runIf(!!process.env.DATABASE_URL)('share the per-rollout cap between two servers on one database and one Redis', async () => {
    let db: Database | undefined;
    let second: RunningServer | undefined;
    try {
      db = await openDatabase({ ...t.databaseOptions, migrate: false });
      second = await startServer({
        config: loadConfig({ PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL }),
        db,
        logger: pino({ level: 'silent' }),
      });
      const fireAt = (url: string) => fetch(`${url}/api/v1/webhooks/rollback/envs/${envId}/flags/f`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      // The previous test used one fire of this minute's 60.
      const statuses: number[] = [];
      for (let i = 0; i < 59; i++) statuses.push((await fireAt(i % 2 ? t.url : second.url)).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect((await fireAt(second.url)).status).toBe(429);
      expect((await fireAt(t.url)).status).toBe(429);
    } finally {
      await second?.close();
      await db?.close();
    }
  });
});
