import { randomBytes, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { loadConfig } from '../../server/src/config.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { openDatabase, type Database } from '../../server/src/db/database.js';
import { createSession } from '../../server/src/features/auth/session.service.js';
import { seedUser } from '../support/users.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe.each([
  ['in memory', {}],
  ['in Redis', { REDIS_URL }],
] as const)('API-key rate limits (%s)', (_name, env) => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;

  const get = (token: string, path = `/api/v1/envs/${envId}`, headers: Record<string, string> = {}) =>
    fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  const limits = (res: Response) => ({
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  });

  beforeAll(async () => {
    t = await startTestServer({ ORG_RATE_LIMIT_PER_MIN: '12', ...env });
    owner = await claim(t);
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'p', name: 'P' } });
    envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'f', name: 'F', defaultValue: false } });
    await t.setClock('2026-11-22T10:00:00Z');
  });
  afterAll(() => t?.close());

  it('spec "Code catalog" token_rate_limit: a key\'s bucket of rateLimitPerMin, once exhausted, answers 429 token_rate_limit with Retry-After in seconds; X-RateLimit-Limit, -Remaining and -Reset report it', async () => {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'slow', rateLimitPerMin: 3 } });
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const res = await get(token);
      expect(res.status).toBe(200);
      seen.push(limits(res));
    }
    expect(seen.map((s) => [s.limit, s.remaining])).toEqual([
      ['3', '2'],
      ['3', '1'],
      ['3', '0'],
    ]);
    expect(Number(seen[2]!.reset)).toBe(60); // three tokens short: a full minute to refill
    const refused = await get(token);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { code: string; details: { retryAfterSeconds: number } };
    expect(body.code).toBe('token_rate_limit');
    expect(refused.headers.get('retry-after')).toBe('20'); // one token every 20 s at 3/min
    expect(body.details.retryAfterSeconds).toBe(20);
    expect(limits(refused)).toMatchObject({ limit: '3', remaining: '0' });
    await t.advanceClock(20);
    expect((await get(token)).status).toBe(200);
    expect((await get(token)).status).toBe(429);
  });

  it('spec "Rate-limit response headers": the headers report the more restrictive bucket; sent on a 304, never on other errors', async () => {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'headers' } });
    const missing = await get(token, '/api/v1/envs/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-ratelimit-limit')).toBeNull();
    const first = await get(token, `/api/v1/envs/${envId}/flags/f`);
    const cached = await get(token, `/api/v1/envs/${envId}/flags/f`, { 'if-none-match': first.headers.get('etag')! });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('x-ratelimit-limit')).toBe('12'); // the org bucket (12) is tighter than the key's (600)
  });

  it('spec "Rate-limit response headers": on bearer responses (2xx, 304, 429) only, never on session responses', async () => {
    await t.advanceClock(120); // every bucket full again
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'bearer' } });
    const orgId = (await owner.session.getOrg({ path: { slug: 'acme' } })).id;
    const member = await seedUser(t.server.deps.db, `member-${randomInt(1e9)}@example.com`, { orgId, role: 'member' });
    const asSession = (path: string, headers: Record<string, string> = {}) => fetch(`${t.url}${path}`, { headers: { cookie: `svc_session=${member.sessionToken}`, ...headers } });
    const none = { limit: null, remaining: null, reset: null };

    const bearer = await get(token);
    expect(bearer.status).toBe(200);
    expect(limits(bearer)).toEqual({ limit: expect.stringMatching(/^\d+$/), remaining: expect.stringMatching(/^\d+$/), reset: expect.stringMatching(/^\d+$/) });

    const session = await asSession(`/api/v1/envs/${envId}`);
    expect(session.status).toBe(200);
    expect(limits(session)).toEqual(none);
    const flag = await asSession(`/api/v1/envs/${envId}/flags/f`);
    expect(flag.status).toBe(200);
    const unchanged = await asSession(`/api/v1/envs/${envId}/flags/f`, { 'if-none-match': flag.headers.get('etag')! });
    expect(unchanged.status).toBe(304);
    expect(limits(unchanged)).toEqual(none);
    const me = await asSession('/api/v1/auth/me');
    expect(me.status).toBe(200);
    expect(limits(me)).toEqual(none);

    // Both credentials: the bearer token is used, and its answer carries the headers.
    const both = await get(token, `/api/v1/envs/${envId}`, { cookie: `svc_session=${member.sessionToken}` });
    expect(both.status).toBe(200);
    expect(limits(both).limit).not.toBeNull();
  });

  it('spec "Rate-limit response headers": a per-org aggregate bucket gates every key; on 429 the headers report the bucket that denied', async () => {
    await t.advanceClock(120); // every bucket full again
    const a = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'a' } })).token;
    const b = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'b' } })).token;
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await get(i % 2 ? a : b)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const refused = await get(a);
    expect(refused.status).toBe(429);
    expect(limits(refused).limit).toBe('12');
    expect(((await refused.json()) as { details: { bucket: string } }).details.bucket).toBe('org');
  });
});

describe.each([
  ['in memory', {}],
  ['in Redis', { REDIS_URL }],
] as const)('session rate limits (%s)', (_name, env) => {
  let t: TestServer;
  let owner: ClaimedInstance;

  const me = (sessionToken: string) => fetch(`${t.url}/api/v1/auth/me`, { headers: { cookie: `svc_session=${sessionToken}` } });

  beforeAll(async () => {
    t = await startTestServer({ SESSION_RATE_LIMIT_PER_MIN: '4', ...env });
    owner = await claim(t);
    await t.setClock('2026-11-22T10:00:00Z');
  });
  afterAll(() => t?.close());

  it('gives each signed-in user one token bucket for all their sessions (SESSION_RATE_LIMIT_PER_MIN), 429 token_rate_limit with Retry-After and no X-RateLimit headers', async () => {
    const user = await seedUser(t.server.deps.db, 'busy@example.com');
    const otherSession = await seedSessionOf(t, user.userId);
    for (let i = 0; i < 4; i++) {
      const res = await me(i % 2 ? otherSession : user.sessionToken);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    for (const token of [user.sessionToken, otherSession]) {
      const refused = await me(token);
      expect(refused.status).toBe(429);
      const body = (await refused.json()) as { code: string; details: { retryAfterSeconds: number; bucket: string } };
      expect(body).toMatchObject({ code: 'token_rate_limit', details: { retryAfterSeconds: 15, bucket: 'user' } });
      expect(refused.headers.get('retry-after')).toBe('15'); // one token every 15 s at 4/min
      for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(refused.headers.get(header)).toBeNull();
    }
    // Another user's bucket is their own.
    expect((await me(owner.sessionToken)).status).toBe(200);
    await t.advanceClock(15);
    expect((await me(otherSession)).status).toBe(200);
    expect((await me(user.sessionToken)).status).toBe(429);
  });
});

/** One more session for an existing user, straight through the persistence layer. */
async function seedSessionOf(t: TestServer, userId: string) {
  const em = t.server.deps.db.em();
  return (await em.transactional((tx) => Promise.resolve(createSession(tx, userId, new Date())))).token;
}

describe.runIf(!!process.env.DATABASE_URL)('API-key rate limits across instances', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let db: Database;
  let second: RunningServer;

  beforeAll(async () => {
    const limits = { SESSION_RATE_LIMIT_PER_MIN: '4', AUTH_FAILURES_PER_IP_PER_MIN: '4', TRUST_PROXY: 'loopback' };
    t = await startTestServer({ REDIS_URL, ...limits });
    owner = await claim(t);
    db = await openDatabase({ ...t.databaseOptions, migrate: false });
    second = await startServer({
      config: loadConfig({ PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL, ...limits }),
      db,
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await second?.close();
    await db?.close();
    await t?.close();
  });

  it('share one bucket per key through Redis', async () => {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'shared', rateLimitPerMin: 4 } });
    const at = (url: string) => fetch(`${url}/api/v1/orgs/acme`, { headers: { authorization: `Bearer ${token}` } });
    const statuses = [await at(t.url), await at(second.url), await at(t.url), await at(second.url), await at(t.url)].map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect((await at(second.url)).status).toBe(429);
  });

  it('share one bucket per signed-in user through Redis', async () => {
    const { sessionToken } = await seedUser(t.server.deps.db, 'shared@example.com');
    const at = (url: string) => fetch(`${url}/api/v1/auth/me`, { headers: { cookie: `svc_session=${sessionToken}` } });
    const statuses = [await at(t.url), await at(second.url), await at(t.url), await at(second.url), await at(t.url)].map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect((await at(second.url)).status).toBe(429);
  });

  it('count failed authentication per client address through Redis: another instance refuses the address after one lookup of its own', async () => {
    const ip = `198.18.${randomInt(256)}.${randomInt(1, 255)}`; // an address of this run's own (TRUST_PROXY=loopback)
    const at = (url: string) =>
      fetch(`${url}/api/v1/orgs/acme`, { headers: { authorization: `Bearer svc_${randomBytes(16).toString('hex')}`, 'x-forwarded-for': ip } });
    for (let i = 0; i < 4; i++) expect((await at(t.url)).status).toBe(401);
    expect((await at(t.url)).status).toBe(429);
    expect((await at(second.url)).status).toBe(401); // its first failure finds the shared bucket empty
    expect((await at(second.url)).status).toBe(429);
  });
});
