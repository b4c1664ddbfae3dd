import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { seedUser } from '../support/users.js';
import { scrapeMetrics } from '../support/metrics.js';
import { openRulesetStream, within, type StreamAnswer, type StreamOptions } from '../support/sse.js';
import { loadConfig } from '../../server/src/config.js';
import { startServer } from '../../server/src/server.js';
import { openDatabase } from '../../server/src/db/database.js';

/**
 * Caps on open ruleset streams (per API key, per session, per client address, per instance) and
 * streams that end with their credentials. The caps are set low here; the defaults are
 * STREAM_MAX_PER_KEY=50, STREAM_MAX_PER_SESSION=10, STREAM_MAX_PER_IP=100, STREAM_MAX_TOTAL=10000.
 */
describe('ruleset stream caps and credentials', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let orgId: string;
  let envId: string;
  const open: StreamAnswer[] = [];
  const bearer = (token: string) => `Bearer ${token}`;
  const mintKey = async (name: string, ttlSeconds?: number) =>
    (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name, actions: ['read'], ...(ttlSeconds ? { ttlSeconds } : {}) } })).token;
  const stream = async (opts: StreamOptions, env = envId) => {
    const answer = await openRulesetStream(t.server.url, env, opts);
    open.push(answer);
    return answer;
  };
  const streams = async (n: number, opts: StreamOptions) => {
    const answers: StreamAnswer[] = [];
    for (let i = 0; i < n; i++) answers.push(await stream(opts));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    return answers;
  };
  const expectRefused = (answer: StreamAnswer, limit: string, max: number) => {
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('10');
    expect(answer.error).toMatchObject({ code: 'token_rate_limit', details: { limit, max, retryAfterSeconds: 10 } });
    expect(answer.error?.requestId).toBeTruthy();
  };

  beforeAll(async () => {
    t = await startTestServer({ STREAM_MAX_PER_KEY: '3', STREAM_MAX_PER_SESSION: '2', STREAM_MAX_PER_IP: '5', STREAM_MAX_TOTAL: '7' });
    owner = await claim(t);
    orgId = (await owner.session.getOrg({ path: { slug: 'acme' } })).id;
    const projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
  });
  afterEach(async () => {
    for (const answer of open.splice(0)) answer.close();
    await expect.poll(() => t.server.deps.streams.size).toBe(0);
  });
  afterAll(() => t?.close());

  it('runs its HTTP server with the configured limits (here the defaults)', () => {
    const { http } = t.server;
    expect([http.headersTimeout, http.requestTimeout, http.keepAliveTimeout, http.maxHeadersCount, http.maxConnections]).toEqual([20_000, 600_000, 65_000, 100, 20_000]);
  });

  it('refuses a key’s stream beyond STREAM_MAX_PER_KEY with 429, Retry-After and the envelope, and frees the place when one ends', async () => {
    const key = await mintKey('per-key');
    const held = await streams(3, { authorization: bearer(key) });
    expectRefused(await stream({ authorization: bearer(key) }), 'streams_per_key', 3);
    // Another key from the same address is not affected.
    expect((await stream({ authorization: bearer(await mintKey('other')) })).status).toBe(200);
    held[0]!.close();
    await expect.poll(() => t.server.deps.streams.size).toBe(3);
    expect((await stream({ authorization: bearer(key) })).status).toBe(200);
    expect((await scrapeMetrics(t.server.url)).sample('gradual_sse_streams_refused_total{limit="key"}')).toBe(1);
    expect((await scrapeMetrics(t.server.url)).sample('gradual_sse_open_streams')).toBe(4);
  });

  it('refuses a session’s stream beyond STREAM_MAX_PER_SESSION, and frees the place when one ends', async () => {
    const held = await streams(2, { sessionToken: owner.sessionToken });
    expectRefused(await stream({ sessionToken: owner.sessionToken }), 'streams_per_session', 2);
    held[1]!.close();
    await expect.poll(() => t.server.deps.streams.size).toBe(1);
    expect((await stream({ sessionToken: owner.sessionToken })).status).toBe(200);
  });

  it('refuses a client address’s stream beyond STREAM_MAX_PER_IP, whatever its credentials; other addresses go on', async () => {
    const [a, b] = [await mintKey('ip-a'), await mintKey('ip-b')];
    await streams(3, { authorization: bearer(a) });
    const fromB = await streams(2, { authorization: bearer(b) });
    expectRefused(await stream({ authorization: bearer(b) }), 'streams_per_ip', 5);
    expectRefused(await stream({ sessionToken: owner.sessionToken }), 'streams_per_ip', 5);
    expect((await stream({ authorization: bearer(b), localAddress: '127.0.0.2' })).status).toBe(200);
    fromB[0]!.close();
    await expect.poll(() => t.server.deps.streams.size).toBe(5);
    expect((await stream({ authorization: bearer(b) })).status).toBe(200);
  });

  it('refuses any stream beyond STREAM_MAX_TOTAL on the instance, until one ends', async () => {
    const keys = await Promise.all(['t1', 't2', 't3'].map((name) => mintKey(name)));
    await streams(3, { authorization: bearer(keys[0]!), localAddress: '127.0.0.11' });
    const second = await streams(3, { authorization: bearer(keys[1]!), localAddress: '127.0.0.12' });
    await streams(1, { authorization: bearer(keys[2]!), localAddress: '127.0.0.13' });
    expectRefused(await stream({ authorization: bearer(keys[2]!), localAddress: '127.0.0.13' }), 'streams_per_total', 7);
    expectRefused(await stream({ sessionToken: owner.sessionToken, localAddress: '127.0.0.14' }), 'streams_per_total', 7);
    second[0]!.close();
    await expect.poll(() => t.server.deps.streams.size).toBe(6);
    expect((await stream({ sessionToken: owner.sessionToken, localAddress: '127.0.0.14' })).status).toBe(200);
  });

  it('refuses a flood of stream requests over a key’s cap without touching the database: another tenant’s GET stays fast', async () => {
    const other = await seedUser(t.server.deps.db, 'other@example.com');
    const otherSession = t.asSession(other.sessionToken);
    const otherOrg = await otherSession.createOrg({ body: { name: 'Other', slug: 'other' } });
    const otherProject = (await otherSession.createProject({ path: { slug: otherOrg.slug }, body: { key: 'app', name: 'App' } })).id;
    const otherEnv = (await otherSession.createEnvironment({ path: { id: otherProject }, body: { key: 'prod', name: 'Prod' } })).id;
    await otherSession.createFlag({ path: { id: otherProject }, body: { key: 'f', name: 'F', defaultValue: true } });

    const key = await mintKey('flood');
    await streams(3, { authorization: bearer(key) });
    const flood = Promise.all(Array.from({ length: 300 }, () => stream({ authorization: bearer(key) })));
    const started = Date.now();
    const answer = await otherSession.getOrg({ path: { slug: otherOrg.slug } });
    const ruleset = await fetch(`${t.url}/api/v1/envs/${otherEnv}/ruleset`, { headers: { cookie: `svc_session=${encodeURIComponent(other.sessionToken)}` } });
    const elapsed = Date.now() - started;
    expect(answer.slug).toBe('other');
    expect(ruleset.status).toBe(200);
    const refused = await flood;
    expect(refused.every((a) => a.status === 429)).toBe(true);
    expect(elapsed).toBeLessThan(2000);
    expect(t.server.deps.streams.size).toBe(3);
  });

  it('ends an API key’s open streams when the key is revoked on this instance (within a second)', async () => {
    const minted = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'to-revoke', actions: ['read'] } });
    const live = await stream({ authorization: bearer(minted.token) });
    const other = await stream({ authorization: bearer(await mintKey('kept')) });
    await live.next();
    await owner.session.revokeApiKey({ path: { slug: 'acme', id: minted.id } });
    await within(live.ended, 1000, 'the revoked key’s stream ended');
    expect(other.isEnded).toBe(false);
    expect((await stream({ authorization: bearer(minted.token) })).status).toBe(401);
  });

  it('ends a session’s open streams when it logs out on this instance (within a second)', async () => {
    const member = await seedUser(t.server.deps.db, 'leaving@example.com', { orgId, role: 'member' });
    const live = await stream({ sessionToken: member.sessionToken });
    const ownerStream = await stream({ sessionToken: owner.sessionToken });
    await live.next();
    const res = await fetch(`${t.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie: `svc_session=${encodeURIComponent(member.sessionToken)}` } });
    expect(res.status).toBe(204);
    await within(live.ended, 1000, 'the logged-out session’s stream ended');
    expect(ownerStream.isEnded).toBe(false);
    expect((await stream({ sessionToken: member.sessionToken })).status).toBe(401);
  });

  it('ends streams whose credentials stopped holding elsewhere (another instance, the database) at the next re-check, by the clock', async () => {
    const minted = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'revoked-elsewhere', actions: ['read'] } });
    const loggedOut = await seedUser(t.server.deps.db, 'elsewhere@example.com', { orgId, role: 'member' });
    const byKey = await stream({ authorization: bearer(minted.token) });
    const bySession = await stream({ sessionToken: loggedOut.sessionToken });
    const kept = await stream({ sessionToken: owner.sessionToken });
    for (const s of [byKey, bySession, kept]) await s.next();
    // As another instance would: revoke and log out straight in the database.
    const knex = t.server.deps.db.em().getKnex();
    await knex.raw('update api_keys set revoked_at = now() where id = ?', [minted.id]);
    await knex.raw('delete from sessions where user_id = ?', [loggedOut.userId]);
    await new Promise((r) => setTimeout(r, 500));
    expect([byKey.isEnded, bySession.isEnded]).toEqual([false, false]);
    await t.advanceClock(6); // past STREAM_RECHECK_INTERVAL_MS (5 s)
    await within(Promise.all([byKey.ended, bySession.ended]), 3000, 'the streams ended at the re-check');
    expect(kept.isEnded).toBe(false);
    expect((await scrapeMetrics(t.server.url)).sample('gradual_sse_streams_credentials_ended_total')).toBeGreaterThanOrEqual(2);
  });

  it('ends a removed member’s session streams on the organization, and the streams of the keys they minted (within a second)', async () => {
    const admin = await seedUser(t.server.deps.db, 'admin-leaving@example.com', { orgId, role: 'admin' });
    const minted = await t.asSession(admin.sessionToken).createApiKey({ path: { slug: 'acme' }, body: { name: 'admins-key', actions: ['read'] } });
    const bySession = await stream({ sessionToken: admin.sessionToken });
    const byKey = await stream({ authorization: bearer(minted.token) });
    const kept = await stream({ sessionToken: owner.sessionToken });
    for (const s of [bySession, byKey, kept]) await s.next();
    await owner.session.removeMember({ path: { slug: 'acme', userId: admin.userId } });
    await within(Promise.all([bySession.ended, byKey.ended]), 1000, 'the removed member’s streams ended');
    expect(kept.isEnded).toBe(false);
  });

  it.runIf(!!process.env.DATABASE_URL)('ends a stream on another instance when its key is revoked here, at that instance’s next re-check', async () => {
    const minted = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'two-instances', actions: ['read'] } });
    const db = await openDatabase({ ...t.databaseOptions, migrate: false });
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'test', LOG_LEVEL: 'silent', SERVICE_TEST_CLOCK: '1' });
    const second = await startServer({ config, db, logger: pino({ level: 'silent' }) });
    try {
      const live = await openRulesetStream(second.url, envId, { authorization: bearer(minted.token) });
      await live.next();
      await owner.session.revokeApiKey({ path: { slug: 'acme', id: minted.id } }); // through the first instance
      await fetch(`${second.url}/__test__/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: 6 }) });
      await within(live.ended, 3000, 'the other instance’s stream ended');
    } finally {
      await second.close();
      await db.close();
    }
  });

  // Last: it moves the clock past every session's and key's lifetime.
  it('ends streams whose key or session expires, at the next re-check', async () => {
    const expiring = await mintKey('expiring', 3600);
    const member = await seedUser(t.server.deps.db, 'expiring@example.com', { orgId, role: 'member' });
    const byKey = await stream({ authorization: bearer(expiring) });
    const bySession = await stream({ sessionToken: member.sessionToken });
    await byKey.next();
    await bySession.next();
    await t.advanceClock(3601);
    await within(byKey.ended, 3000, 'the expired key’s stream ended');
    expect(bySession.isEnded).toBe(false);
    await t.advanceClock(15 * 24 * 3600);
    await within(bySession.ended, 3000, 'the expired session’s stream ended');
  });
});

describe('stream and HTTP server limits in the configuration', () => {
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error(`accepted: ${JSON.stringify(env)}`);
  };

  it('defaults to 50 streams a key, 5,000 a client key and 20 per client key and address, 10 a session, 100 an address, 10,000 an instance, and Node’s server limits tightened', () => {
    const config = loadConfig({});
    expect(config.streams).toEqual({ perKey: 50, perClientKey: 5000, perClientKeyAddress: 20, perSession: 10, perIp: 100, total: 10_000, recheckIntervalMs: 5000 });
    expect(config.http).toEqual({ headersTimeoutMs: 20_000, requestTimeoutMs: 600_000, keepAliveTimeoutMs: 65_000, maxHeadersCount: 100, maxConnections: 20_000 });
  });

  it('refuses values out of range, a headers timeout longer than the request timeout, and more streams than connections', () => {
    expect(refusal({ STREAM_MAX_PER_KEY: '0' })).toMatch(/STREAM_MAX_PER_KEY/);
    expect(refusal({ STREAM_MAX_PER_IP: 'many' })).toMatch(/STREAM_MAX_PER_IP/);
    expect(refusal({ STREAM_RECHECK_INTERVAL_MS: '10' })).toMatch(/STREAM_RECHECK_INTERVAL_MS/);
    expect(refusal({ HTTP_MAX_HEADERS_COUNT: '5' })).toMatch(/HTTP_MAX_HEADERS_COUNT/);
    expect(refusal({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '20000' })).toMatch(/HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/);
    expect(refusal({ HTTP_MAX_CONNECTIONS: '10000' })).toMatch(/STREAM_MAX_TOTAL: must be below HTTP_MAX_CONNECTIONS/);
  });
});
