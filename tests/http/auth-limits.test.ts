import { randomBytes, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open, startMailSink, startServerWithMail, type MailSink } from '../support/mail.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { seedUser } from '../support/users.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const random62 = (n: number) => Array.from(randomBytes(n), (b) => BASE62[b % 62]).join('');
/** A client address of its own for each use (198.18.0.0/15, for benchmarks), so runs sharing a Redis never meet. */
const freshIp = () => `198.${18 + randomInt(2)}.${randomInt(256)}.${randomInt(1, 255)}`;

/*
 * The test servers trust a proxy on loopback (TRUST_PROXY=loopback), so X-Forwarded-For sets the
 * client address each request counts under.
 */

describe.each([
  ['in memory', {}],
  ['in Redis', { REDIS_URL }],
] as const)('failed authentication per client address (%s)', (_name, env) => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  let apiKey: string;

  const get = (ip: string, credentials: { token?: string; session?: string } = {}) =>
    fetch(`${t.url}/api/v1/envs/${envId}`, {
      headers: {
        'x-forwarded-for': ip,
        ...(credentials.token === undefined ? {} : { authorization: `Bearer ${credentials.token}` }),
        ...(credentials.session === undefined ? {} : { cookie: `svc_session=${credentials.session}` }),
      },
    });
  const fire = (ip: string, token: string, env = envId) =>
    fetch(`${t.url}/api/v1/webhooks/rollback/envs/${env}/flags/f`, { method: 'POST', headers: { 'x-forwarded-for': ip, authorization: `Bearer ${token}` } });
  const unknownKey = () => `svc_${random62(32)}`;
  const code = async (res: Response) => ((await res.json()) as { code: string }).code;

  beforeAll(async () => {
    t = await startTestServer({ TRUST_PROXY: 'loopback', AUTH_FAILURES_PER_IP_PER_MIN: '5', ...env });
    owner = await claim(t);
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'p', name: 'P' } });
    envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'f', name: 'F', defaultValue: false } });
    apiKey = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'good' } })).token;
    await t.setClock('2026-11-22T10:00:00Z');
  });
  afterAll(() => t?.close());

  it('refuses an address with too many unknown API keys (429 with Retry-After, before any lookup); other addresses are unaffected', async () => {
    const attacker = freshIp();
    const bystander = freshIp();
    expect((await get(bystander, { token: apiKey })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const res = await get(attacker, { token: unknownKey() });
      expect(res.status).toBe(401);
      expect(await code(res)).toBe('unauthorized');
    }
    const refused = await get(attacker, { token: unknownKey() });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('12'); // one failure more every 12 s at 5 a minute
    expect(await refused.json()).toMatchObject({ code: 'token_rate_limit', details: { retryAfterSeconds: 12, bucket: 'address' } });
    // A malformed key, a revoked one and a bad session cookie are all credentials to look up: refused too.
    expect((await get(attacker, { token: 'nonsense' })).status).toBe(429);
    expect((await get(attacker, { session: random62(43) })).status).toBe(429);
    // No credentials, nothing to look up: the usual 401.
    expect((await get(attacker)).status).toBe(401);

    // Another address, bad key or good, is not concerned.
    expect((await get(bystander, { token: unknownKey() })).status).toBe(401);
    expect((await get(bystander, { token: apiKey })).status).toBe(200);

    // Once a token is back, one more failure is looked up (401), and the address is refused again.
    await t.advanceClock(12);
    expect((await get(attacker, { token: unknownKey() })).status).toBe(401);
    expect((await get(attacker, { token: unknownKey() })).status).toBe(429);
  });

  it('lets through, from a refused address, credentials known good without a lookup: a cached API key, a session seen to succeed', async () => {
    const shared = freshIp(); // e.g. a NAT an attacker shares with the team
    expect((await get(freshIp(), { token: apiKey })).status).toBe(200);
    expect((await t.asSession(owner.sessionToken).getSession()).user.email).toBe('owner@example.com');
    for (let i = 0; i < 5; i++) expect((await get(shared, { token: unknownKey() })).status).toBe(401);
    expect((await get(shared, { token: unknownKey() })).status).toBe(429);

    // A key and a session that succeeded on this instance go on working.
    expect((await get(shared, { token: apiKey })).status).toBe(200);
    expect((await get(shared, { session: owner.sessionToken })).status).toBe(200);
    // Credentials this instance has not seen succeed wait like any other.
    const fresh = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'fresh' } })).token;
    const newcomer = await seedUser(t.server.deps.db, `newcomer-${random62(8).toLowerCase()}@example.com`);
    expect((await get(shared, { token: fresh })).status).toBe(429);
    expect((await get(shared, { session: newcomer.sessionToken })).status).toBe(429);
    // Seen to succeed from elsewhere, they are known good.
    expect((await get(freshIp(), { token: fresh })).status).toBe(200);
    expect((await t.asSession(newcomer.sessionToken).getSession()).user.email).toMatch(/^newcomer-/);
    expect((await get(shared, { token: fresh })).status).toBe(200);
    expect((await get(shared, { session: newcomer.sessionToken })).status).not.toBe(429);
  });

  it('counts bad session cookies and revoked keys like unknown keys', async () => {
    const revoked = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'revoked' } });
    await owner.session.revokeApiKey({ path: { slug: 'acme', id: revoked.id } });
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expect((await get(ip, { session: random62(43) })).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await get(ip, { token: revoked.token })).status).toBe(401);
    const refused = await get(ip, { session: random62(43) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses an address with too many wrong rollback secrets or unknown fire URLs (429 rollback_rate_limited), recording nothing more', async () => {
    const secret = (await owner.session.createRollbackSecret({ path: { envId }, body: { name: `s-${random62(6)}` } })).token;
    const fires = async () => (await owner.session.listRollbackFires({ path: { envId }, query: { limit: 200 } })).fires.length;
    const attacker = freshIp();
    for (let i = 0; i < 3; i++) expect(await code(await fire(attacker, `svcrb_${random62(32)}`))).toBe('rollback_unauthorized');
    for (let i = 0; i < 2; i++) expect(await code(await fire(attacker, secret, '00000000-0000-4000-8000-000000000000'))).toBe('rollback_unauthorized');
    const recorded = await fires();
    const refused = await fire(attacker, `svcrb_${random62(32)}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('12');
    expect(await refused.json()).toMatchObject({ code: 'rollback_rate_limited', details: { retryAfterSeconds: 12 } });
    // The right secret, not yet seen to succeed on this instance, waits too.
    expect((await fire(attacker, secret)).status).toBe(429);
    expect(await fires()).toBe(recorded);

    // From elsewhere the secret works (no rollout for f: 404), and from then on also from the refused address.
    expect(await code(await fire(freshIp(), secret))).toBe('rollback_rollout_not_found');
    expect(await code(await fire(attacker, secret))).toBe('rollback_rollout_not_found');
    expect((await fire(attacker, `svcrb_${random62(32)}`)).status).toBe(429);
  });

  it('counts failures only: successful requests take nothing from the address\'s allowance', async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) expect((await get(ip, { token: apiKey })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get(ip, { token: unknownKey() })).status).toBe(401);
    expect((await get(ip, { token: unknownKey() })).status).toBe(429);
  });
});

describe('sign-in mail requests for someone else\'s address', () => {
  let sink: MailSink;
  let t: TestServer;
  const victim = 'victim@example.com';

  const ask = async (ip: string, email = victim) => {
    const res = await fetch(`${t.url}/api/v1/auth/magic-link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify({ email }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as unknown;
  };
  const inbox = async () => {
    await t.server.deps.mailer.idle();
    return sink.pending(victim);
  };
  const drain = async () => {
    const mails = await inbox();
    for (let i = 0; i < mails.length; i++) await sink.next(victim);
    return mails;
  };

  beforeAll(async () => {
    sink = await startMailSink();
    t = await startServerWithMail(sink, { TRUST_PROXY: 'loopback' });
    await claim(t);
    await seedUser(t.server.deps.db, victim);
    await t.setClock('2026-11-22T10:00:00Z');
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('do not stop the owner of the address from getting a working link from their own address', async () => {
    // Requests from many addresses, as many as a per-address cap would have allowed and more,
    // answered exactly as for an address without an account.
    for (let i = 1; i <= 8; i++) {
      expect(await ask(`203.0.113.${i}`)).toEqual({ sent: true });
      expect(await ask(`203.0.113.${i}`, 'nobody@example.com')).toEqual({ sent: true });
    }
    // They bound the mail the address gets: one within the minute.
    expect(await drain()).toHaveLength(1);
    await t.advanceClock(20 * 60); // that link has expired

    expect(await ask('198.51.100.7')).toEqual({ sent: true });
    const [mail] = await drain();
    expect(mail).toBeDefined();
    expect(await open(mail!.link)).toMatchObject({ status: 303, location: '/app/' });
  });

  it('neither invalidate the link the owner just got nor, inside the minute, leave them without a working one', async () => {
    await t.advanceClock(61);
    expect(await ask('198.51.100.7')).toEqual({ sent: true });
    const [mine] = await drain();
    for (let i = 1; i <= 6; i++) expect(await ask(`203.0.113.${20 + i}`)).toEqual({ sent: true });
    expect(await inbox()).toEqual([]); // no more mail within the minute…
    expect(await open(mine!.link)).toMatchObject({ status: 303, location: '/app/' }); // …and the owner's link works

    // Someone else's request mails the address; its owner asking seconds later gets no second
    // mail, but the one in their inbox works.
    await t.advanceClock(61);
    expect(await ask('203.0.113.99')).toEqual({ sent: true });
    await t.advanceClock(10);
    expect(await ask('198.51.100.7')).toEqual({ sent: true });
    const mails = await drain();
    expect(mails).toHaveLength(1);
    expect(await open(mails[0]!.link)).toMatchObject({ status: 303, location: '/app/' });
  });
});
