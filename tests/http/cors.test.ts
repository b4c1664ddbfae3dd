import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { ConfigError, loadConfig } from '../../server/src/config.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * CORS on the evaluation endpoints (server/src/http/cors.ts): a preflight is granted to the
 * origins a client key or CORS_ALLOWED_ORIGINS allows, an actual answer only to a client key's
 * own origins; server keys, sessions and the management API get no CORS headers at all.
 */
const APP = 'https://app.example.com';
const DEFAULT = 'https://default.example.com';
const STRANGER = 'https://evil.example.net';

const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-expose-headers',
  'access-control-allow-credentials',
];

function corsHeadersOf(res: Response): Record<string, string> {
  return Object.fromEntries(CORS_HEADERS.flatMap((name) => (res.headers.has(name) ? [[name, res.headers.get(name)!]] : [])));
}

describe('CORS on the evaluation endpoints', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId = '';
  /** Client key allowing APP. */
  let appKey = '';
  /** Client key naming no origins: the server default applies. */
  let defaultKey = '';
  let serverKey = '';
  let sdkKey = '';
  const seen: Response[] = [];

  const send = async (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) => {
    const res = await fetch(`${t.url}${path}`, {
      method: init.method ?? 'POST',
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    await res.arrayBuffer();
    seen.push(res);
    return res;
  };
  const preflight = (path: string, origin: string) =>
    send(path, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
  const evaluate = (origin: string | undefined, headers: Record<string, string>) =>
    send(`/api/v1/envs/${envId}/evaluate`, { headers: { ...(origin ? { origin } : {}), ...headers }, body: { context: { userId: 'u-1' } } });

  beforeAll(async () => {
    t = await startTestServer({ CORS_ALLOWED_ORIGINS: `${DEFAULT}, http://localhost:5173` }, { direct: true });
    owner = await claim(t);
    const s = owner.session;
    const slug = owner.orgSlug;
    const projectId = (await s.createProject({ path: { slug }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await s.createFlag({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', defaultValue: false, clientVisible: true } });
    appKey = (await s.createApiKey({ path: { slug }, body: { name: 'web app', kind: 'client', environments: [envId], allowedOrigins: [APP] } })).token;
    defaultKey = (await s.createApiKey({ path: { slug }, body: { name: 'web default', kind: 'client', environments: [envId] } })).token;
    serverKey = (await s.createApiKey({ path: { slug }, body: { name: 'backend', actions: ['read'] } })).token;
    sdkKey = (await s.createApiKey({ path: { slug }, body: { name: 'sdk', kind: 'sdk', environments: [envId] } })).token;
  });
  afterAll(async () => {
    try {
      // No answer of this file, granted or not, lets a page send credentials.
      expect(seen.length).toBeGreaterThan(10);
      for (const res of seen) expect(res.headers.has('access-control-allow-credentials')).toBe(false);
    } finally {
      await t?.close(); // also when the check fails, so no server is left running
    }
  });

  it('grants a preflight to an origin an active client key allows, naming it (never *)', async () => {
    for (const path of [`/api/v1/envs/${envId}/evaluate`, `/api/v1/envs/${envId}/usage`, '/api/v1/ofrep/v1/evaluate/flags', '/api/v1/ofrep/v1/evaluate/flags/banner']) {
      const res = await preflight(path, APP);
      expect(res.status).toBe(204);
      expect(corsHeadersOf(res)).toEqual({
        'access-control-allow-origin': APP,
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'Authorization, X-API-Key, Content-Type, If-None-Match',
        'access-control-max-age': '600',
      });
      expect(res.headers.get('vary')).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    }
  });

  it('grants a preflight to the server default origins', async () => {
    const res = await preflight('/api/v1/ofrep/v1/evaluate/flags', 'http://localhost:5173');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  it('answers a preflight from an origin nobody allows with 204 and no Access-Control-Allow-* headers', async () => {
    const res = await preflight(`/api/v1/envs/${envId}/evaluate`, STRANGER);
    expect(res.status).toBe(204);
    expect(corsHeadersOf(res)).toEqual({});
    expect(res.headers.get('vary')).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
  });

  it('stops granting preflights to a revoked key’s origin once the instance reads the origins again (30 s)', async () => {
    const origin = 'https://short-lived.example.com';
    const minted = await owner.session.createApiKey({
      path: { slug: owner.orgSlug },
      body: { name: 'short', kind: 'client', environments: [envId], allowedOrigins: [origin] },
    });
    expect((await preflight('/api/v1/ofrep/v1/evaluate/flags', origin)).headers.get('access-control-allow-origin')).toBe(origin);
    await owner.session.revokeApiKey({ path: { slug: owner.orgSlug, id: minted.id } });
    await t.advanceClock(31);
    expect(corsHeadersOf(await preflight('/api/v1/ofrep/v1/evaluate/flags', origin))).toEqual({});
  });

  it('grants an actual answer to a client key from its allowed origin, with the headers a page may read', async () => {
    const res = await evaluate(APP, { authorization: `Bearer ${appKey}` });
    expect(res.status).toBe(200);
    expect(corsHeadersOf(res)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-expose-headers': 'ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    });
    expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
    // Repeated, the answer may come from memory (http/answer-cache.ts): the same grant.
    for (let i = 0; i < 3; i++) {
      const again = await evaluate(APP, { authorization: `Bearer ${appKey}` });
      expect(again.status).toBe(200);
      expect(again.headers.get('access-control-allow-origin')).toBe(APP);
      expect(again.headers.get('vary')).toMatch(/\bOrigin\b/);
    }
  });

  it('reads the key from X-API-Key as well', async () => {
    const res = await evaluate(APP, { 'x-api-key': appKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('grants nothing to a client key used from an origin it does not allow, answered or not', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await evaluate(STRANGER, { authorization: `Bearer ${appKey}` });
      expect(corsHeadersOf(res)).toEqual({});
      expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
    }
    // The default origins do not widen a key that names its own.
    expect(corsHeadersOf(await evaluate(DEFAULT, { authorization: `Bearer ${appKey}` }))).toEqual({});
  });

  it('grants the server default origins to a client key naming none', async () => {
    const res = await evaluate(DEFAULT, { authorization: `Bearer ${defaultKey}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(DEFAULT);
    expect(corsHeadersOf(await evaluate(APP, { authorization: `Bearer ${defaultKey}` }))).toEqual({});
  });

  it('grants nothing to server keys (api, sdk) or sessions, even from an allowed origin', async () => {
    for (const token of [serverKey, sdkKey]) {
      for (let i = 0; i < 2; i++) {
        const res = await evaluate(APP, { authorization: `Bearer ${token}` });
        expect(res.status).toBe(200);
        expect(corsHeadersOf(res)).toEqual({});
      }
    }
    const session = await evaluate(DEFAULT, { cookie: `svc_session=${encodeURIComponent(owner.sessionToken)}` });
    expect(corsHeadersOf(session)).toEqual({});
  });

  it('makes error answers of a granted key readable by the page (401 for a revoked client key)', async () => {
    const minted = await owner.session.createApiKey({ path: { slug: owner.orgSlug }, body: { name: 'gone', kind: 'client', environments: [envId], allowedOrigins: [APP] } });
    await owner.session.revokeApiKey({ path: { slug: owner.orgSlug, id: minted.id } });
    const res = await evaluate(APP, { authorization: `Bearer ${minted.token}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    // A malformed or unknown pub_ token is no client key: no grant.
    expect(corsHeadersOf(await evaluate(APP, { authorization: 'Bearer pub_notakey' }))).toEqual({});
  });

  it('grants the OFREP bulk evaluation and its event stream (ticket, no key header) to the client key’s origin only', async () => {
    const streamUrl = async (token: string) => {
      const res = await fetch(`${t.url}/api/v1/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: { origin: APP, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ context: { targetingKey: 'u-1' } }),
      });
      seen.push(res);
      expect(res.status).toBe(200);
      return { res, url: ((await res.json()) as { eventStreams: Array<{ url: string }> }).eventStreams[0]!.url };
    };
    const open = async (url: string, origin: string) => {
      const abort = new AbortController();
      const res = await fetch(url, { headers: { origin }, signal: abort.signal });
      seen.push(res);
      abort.abort();
      return res;
    };
    const client = await streamUrl(appKey);
    expect(client.res.headers.get('access-control-allow-origin')).toBe(APP);
    const granted = await open(client.url, APP);
    expect(granted.status).toBe(200);
    expect(granted.headers.get('access-control-allow-origin')).toBe(APP);
    expect(granted.headers.get('vary')).toMatch(/\bOrigin\b/);
    expect(corsHeadersOf(await open(client.url, STRANGER))).toEqual({});
    // A server-side key's stream is never granted to a page.
    const sdk = await streamUrl(sdkKey);
    expect(corsHeadersOf(sdk.res)).toEqual({});
    expect(corsHeadersOf(await open(sdk.url, APP))).toEqual({});
  });

  it('adds nothing to answers without an Origin', async () => {
    const res = await evaluate(undefined, { authorization: `Bearer ${appKey}` });
    expect(res.status).toBe(200);
    expect(corsHeadersOf(res)).toEqual({});
  });

  it('leaves the management API as it is: no CORS headers on OPTIONS or answers', async () => {
    const before = await send(`/api/v1/envs/${envId}`, { method: 'OPTIONS' });
    const res = await send(`/api/v1/envs/${envId}`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBe(before.status);
    expect(corsHeadersOf(res)).toEqual({});
    expect(res.headers.get('vary') ?? '').not.toMatch(/Origin/);
    const ruleset = await send(`/api/v1/envs/${envId}/ruleset`, { method: 'GET', headers: { origin: APP, authorization: `Bearer ${appKey}` } });
    expect(corsHeadersOf(ruleset)).toEqual({});
    const list = await send(`/api/v1/orgs/${owner.orgSlug}/api-keys`, { method: 'GET', headers: { origin: APP, authorization: `Bearer ${appKey}` } });
    expect(corsHeadersOf(list)).toEqual({});
  });

  // Last in this block: it pins the server's clock.
  it('reads the database for preflights from ever-new origins at most every few seconds, not once per origin', async () => {
    const db = t.server.deps.db;
    const fork = db.em.bind(db);
    const executes: MockInstance[] = [];
    const em = vi.spyOn(db, 'em').mockImplementation(() => {
      const forked = fork();
      executes.push(vi.spyOn(forked, 'execute'));
      return forked;
    });
    /** Queries that read client keys' allowed origins, so far. */
    const originReads = () => executes.reduce((n, execute) => n + execute.mock.calls.filter(([query]) => String(query).includes('allowed_origins')).length, 0);
    const burst = async (prefix: string, count: number) => {
      for (let i = 0; i < count; i += 25) {
        const answers = await Promise.all(Array.from({ length: Math.min(25, count - i) }, (_, j) => preflight('/api/v1/ofrep/v1/evaluate/flags', `https://${prefix}-${i + j}.example.net`)));
        for (const res of answers) expect(corsHeadersOf(res)).toEqual({});
      }
    };
    try {
      // Held still, so only the test moves time; past the 30 s the last read is good for.
      await t.setClock(new Date(Date.now() + 60_000));
      await burst('novel', 200);
      expect(originReads()).toBe(1);
      // Origins the read found are granted without reading again.
      expect((await preflight('/api/v1/ofrep/v1/evaluate/flags', APP)).headers.get('access-control-allow-origin')).toBe(APP);
      expect(originReads()).toBe(1);

      // A client key minted on this instance is granted at once, although its origin was just refused.
      const fresh = 'https://fresh.example.com';
      expect(corsHeadersOf(await preflight('/api/v1/ofrep/v1/evaluate/flags', fresh))).toEqual({});
      await owner.session.createApiKey({ path: { slug: owner.orgSlug }, body: { name: 'fresh', kind: 'client', environments: [envId], allowedOrigins: [fresh] } });
      expect((await preflight('/api/v1/ofrep/v1/evaluate/flags', fresh)).headers.get('access-control-allow-origin')).toBe(fresh);
      expect(originReads()).toBe(2);

      // An origin the read lacks reads again once the read is 5 s old (a key minted on another instance), and only once.
      await t.advanceClock(5);
      await burst('later', 100);
      expect(originReads()).toBe(3);
    } finally {
      em.mockRestore();
    }
  });
});

describe('CORS_ALLOWED_ORIGINS', () => {
  it('is empty by default, and a comma-separated list of origins otherwise', () => {
    expect(loadConfig({}).corsAllowedOrigins).toEqual([]);
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173,,https://app.example.com' }).corsAllowedOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
  });

  it('refuses anything that is not an origin as a browser sends it, naming it', () => {
    for (const value of ['https://app.example.com/', 'https://app.example.com/path', 'ftp://files.example.com', 'app.example.com', 'https://APP.example.com', '*']) {
      expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: value })).toThrow(/CORS_ALLOWED_ORIGINS: .* is not an origin/);
    }
  });
});
