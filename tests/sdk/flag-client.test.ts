import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFlagClient, GradualApiError, type Exposure, type FlagChangeEvent, type FlagClient, type FlagClientOptions, type FlagClientStatus } from '@gradual/sdk';
import { bucket, compileRuleset, type Ruleset } from '@gradual/sdk/evaluation';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Recorded {
  url: string;
  ifNoneMatch: string | null;
  status: number;
}

/** The request a fetch was called with (the SDK's generated client passes a Request). */
const requestOf = (input: RequestInfo | URL, init?: RequestInit): Request => (input instanceof Request && !init ? input : new Request(input, init));

/** fetch that records each ruleset GET (not the stream) with its If-None-Match and the answer's status. */
function recordingFetch() {
  const requests: Recorded[] = [];
  const streams: string[] = [];
  const f: typeof fetch = async (input, init) => {
    const req = requestOf(input, init);
    const res = await fetch(input, init);
    if (req.url.endsWith('/stream')) streams.push(req.url);
    else requests.push({ url: req.url, ifNoneMatch: req.headers.get('if-none-match'), status: res.status });
    return res;
  };
  return { fetch: f, requests, streams };
}

/** fetch that fails like an unreachable server while `offline` is true. */
function switchableFetch() {
  const state = { offline: false };
  const f: typeof fetch = async (input, init) => {
    if (state.offline) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED (simulated)') });
    return fetch(input, init);
  };
  return { fetch: f, state };
}

/** Ref'd timers of this process (unref'd ones, like the server's heartbeats, are not listed). */
const pendingTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/**
 * Closes the test server without waiting for idle client sockets: Node's
 * `server.close()` waits for connections that never sent a request, and
 * undici can leave one in its pool after a fetch aborted while connecting
 * (as `close()` of a flag client does), which would hold the close for seconds.
 * It also drops connections a client could otherwise reuse to reopen its
 * stream after the server ended it, which holds a gracefully closing server
 * open indefinitely (server-side; reported).
 */
async function closeServer(t: TestServer): Promise<void> {
  const closing = t.close();
  t.server.http.closeAllConnections();
  await closing;
}

interface Fixture {
  t: TestServer;
  owner: ClaimedInstance;
  projectId: string;
  envId: string;
  token: string;
}

/**
 * One project with an environment `prod`: a flag `checkout` (false; rule
 * plan=internal → true; rollout 37.5 % → true; target ID vip-1) and configs
 * `limits` ({max: 1}), `banner` ("hello") and `max-items` (10).
 */
async function setUp(): Promise<Fixture> {
  const t = await startTestServer();
  const owner = await claim(t);
  const projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
  const envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
  const token = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'sdk', actions: ['read'] } })).token;
  const s = owner.session;
  await s.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
  await s.createConfig({ path: { id: projectId }, body: { key: 'limits', name: 'Limits', defaultValue: { max: 1 } } });
  await s.createConfig({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', defaultValue: 'hello' } });
  await s.createConfig({ path: { id: projectId }, body: { key: 'max-items', name: 'Max items', defaultValue: 10 } });
  await s.setFlagRules({
    path: { envId, key: 'checkout' },
    body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['internal'] }], value: true }] },
  });
  await s.putFlagRollout({ path: { envId, key: 'checkout' }, body: { percent: 37.5, newValue: true } });
  await s.addFlagTargetIds({ path: { envId, key: 'checkout' }, body: { targetIds: ['vip-1'] } });
  return { t, owner, projectId, envId, token };
}

const SEED = 'checkout:prod';
const ids = Array.from({ length: 400 }, (_, i) => `user-${i}`);
const admitted = ids.find((id) => bucket(SEED, id) < 37.5)!;
const excluded = ids.find((id) => bucket(SEED, id) >= 37.5)!;

describe('live flag client', () => {
  let f: Fixture;
  const clients: FlagClient[] = [];
  const open = (options: Partial<FlagClientOptions> = {}) => {
    // These count ruleset requests: acknowledgements are tests/http/convergence.test.ts's.
    const client = createFlagClient({ baseUrl: f.t.url, token: f.token, envId: f.envId, logger: null, ackIntervalMs: 0, ...options });
    clients.push(client);
    return client;
  };
  const envVersion = async () => (await f.owner.session.getEnvironment({ path: { envId: f.envId } })).version;

  beforeAll(async () => {
    f = await setUp();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    if (f) await closeServer(f.t);
  });

  it('stream mode: holds the ruleset and evaluates synchronously, with reasons, buckets and typed getters', async () => {
    const client = open({ mode: 'stream' });
    expect(client.status).toBe('not_ready');
    await client.waitForReady({ timeoutMs: 5000 });
    expect(client.status).toBe('ready');
    expect(client.version).toBe(await envVersion());
    expect([...client.keys()].sort()).toEqual(['banner', 'checkout', 'limits', 'max-items']);

    expect(client.evaluate('checkout', { userId: 'vip-1' })).toEqual({
      key: 'checkout',
      value: true,
      reason: 'TARGETING_MATCH',
      variant: 'target-id',
      branch: 'target-id',
      kind: 'flag',
      bucket: bucket(SEED, 'vip-1'),
      rolloutPercent: 37.5,
      version: client.version,
      metadata: {},
    });
    expect(client.evaluate('checkout', { userId: admitted })).toMatchObject({
      value: true,
      reason: 'SPLIT',
      variant: 'rollout-new',
      branch: 'rollout-new',
      bucket: bucket(SEED, admitted),
      rolloutPercent: 37.5,
    });
    expect(client.evaluate('checkout', { userId: excluded, plan: 'internal' })).toMatchObject({ value: true, reason: 'TARGETING_MATCH', variant: 'rule-1' });
    expect(client.evaluate('checkout', { userId: excluded })).toMatchObject({ value: false, reason: 'SPLIT', variant: 'rollout-base' });
    expect(client.evaluate('checkout', {})).toMatchObject({ value: false, reason: 'DEFAULT', variant: 'default', bucket: null, rolloutPercent: 37.5 });
    expect(client.evaluate('limits', {})).toMatchObject({ value: { max: 1 }, reason: 'STATIC', variant: 'default', bucket: null, rolloutPercent: null });
    // targetingKey stands in for the bucket field only when the context lacks it.
    expect(client.evaluate('checkout', {}, { targetingKey: 'vip-1' })).toMatchObject({ reason: 'TARGETING_MATCH', variant: 'target-id' });
    expect(client.evaluate('checkout', { userId: excluded }, { targetingKey: 'vip-1' })).toMatchObject({ reason: 'SPLIT', variant: 'rollout-base' });

    expect(client.getBoolean('checkout', { userId: 'vip-1' }, false)).toBe(true);
    expect(client.getString('banner', {}, 'fallback')).toBe('hello');
    expect(client.getNumber('max-items', {}, 0)).toBe(10);
    expect(client.getJson('limits', {}, null)).toEqual({ max: 1 });
    expect(client.getJson('banner', {}, null)).toBe('hello');

    // Wrong type: the fallback, with TYPE_MISMATCH.
    expect(client.getNumber('banner', {}, 7)).toBe(7);
    expect(client.getBoolean('limits', {}, true)).toBe(true);
    expect(client.evaluate('banner', {}, { fallback: false, type: 'boolean' })).toMatchObject({
      value: false,
      reason: 'ERROR',
      variant: null,
      branch: null,
      errorCode: 'TYPE_MISMATCH',
      kind: 'config',
    });
    // Unknown key: the fallback, with FLAG_NOT_FOUND.
    expect(client.getBoolean('missing', {}, true)).toBe(true);
    expect(client.evaluate('missing', {}, { fallback: 'x' })).toMatchObject({ value: 'x', reason: 'ERROR', variant: null, errorCode: 'FLAG_NOT_FOUND', kind: null });
  });

  it('stream mode: a write reaches the client at once (no polling); only announced versions are fetched', async () => {
    const rec = recordingFetch();
    const client = open({ mode: 'stream', fetch: rec.fetch, pollIntervalMs: 60_000 });
    await client.ready();
    await expect.poll(() => f.t.server.deps.streams.size, { timeout: 5000 }).toBe(1);
    const before = client.version!;
    const changes: FlagChangeEvent[] = [];
    client.on('change', (c) => changes.push(c));
    const started = Date.now();
    await f.owner.session.setConfigValue({ path: { envId: f.envId, key: 'limits' }, body: { value: { max: 2 } } });
    await expect.poll(() => changes.length, { timeout: 5000, interval: 10 }).toBe(1);
    expect(Date.now() - started).toBeLessThan(2000); // typically ~20 ms; generous for loaded CI machines
    expect(changes[0]).toEqual({ previousVersion: before, version: before + 1, changedKeys: ['limits'], source: 'server' });
    expect(client.getJson('limits', {}, null)).toEqual({ max: 2 });
    // One GET at start, one for the announced version (conditional, with the old ETag): no polling while the stream is up.
    expect(rec.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(rec.requests[1]!.ifNoneMatch).toMatch(/^"rs-/);
    expect(rec.streams).toHaveLength(1);
  });

  it('poll mode: conditional GETs are answered 304 until a write, then the new ruleset arrives', async () => {
    const rec = recordingFetch();
    const client = open({ mode: 'poll', pollIntervalMs: 50, fetch: rec.fetch });
    await client.ready();
    await expect.poll(() => rec.requests.length, { timeout: 5000 }).toBeGreaterThanOrEqual(4);
    const [first, ...rest] = rec.requests;
    expect(first).toMatchObject({ status: 200, ifNoneMatch: null });
    expect(rest.every((r) => r.status === 304 && r.ifNoneMatch !== null)).toBe(true);
    expect(rec.streams).toEqual([]);

    const changes: FlagChangeEvent[] = [];
    client.on('change', (c) => changes.push(c));
    await f.owner.session.setConfigValue({ path: { envId: f.envId, key: 'banner' }, body: { value: 'polled' } });
    await expect.poll(() => changes.length, { timeout: 5000 }).toBe(1);
    expect(changes[0]!.changedKeys).toEqual(['banner']);
    expect(client.getString('banner', {}, '')).toBe('polled');
    expect(rec.requests.some((r) => r.status === 200 && r.ifNoneMatch !== null)).toBe(true);
  });

  it('bootstrap: ready at once and served until the server answers, then replaced (with a change event)', async () => {
    const current = await f.t.asToken(f.token).getRuleset({ path: { envId: f.envId } });
    const bootstrap: Ruleset = {
      ...current,
      version: 1,
      primitives: current.primitives.map((p) => (p.key === 'banner' ? { ...p, value: 'from bootstrap' } : p)),
    };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated: typeof fetch = async (input, init) => {
      await gate;
      return fetch(input, init);
    };
    const client = open({ mode: 'poll', bootstrap, fetch: gated });
    expect(client.status).toBe('ready');
    expect(client.getString('banner', {}, '')).toBe('from bootstrap');
    const readies: unknown[] = [];
    const changes: FlagChangeEvent[] = [];
    client.on('ready', (r) => readies.push(r));
    client.on('change', (c) => changes.push(c));
    await client.ready();
    await Promise.resolve();
    expect(readies).toEqual([{ version: 1, source: 'bootstrap' }]);

    release();
    await expect.poll(() => changes.length, { timeout: 5000 }).toBe(1);
    expect(changes[0]).toEqual({ previousVersion: 1, version: current.version, changedKeys: ['banner'], source: 'server' });
    expect(client.getString('banner', {}, '')).toBe(current.primitives.find((p) => p.key === 'banner')!.value);
  });

  it('bootstrap with the server unreachable: serves the bootstrap, reports the error, turns stale', async () => {
    const bootstrap = await f.t.asToken(f.token).getRuleset({ path: { envId: f.envId } });
    const client = open({ mode: 'stream', bootstrap, baseUrl: `http://127.0.0.1:${await closedPort()}` });
    const errors: GradualApiError[] = [];
    client.on('error', (e) => errors.push(e));
    await expect.poll(() => errors.length, { timeout: 5000 }).toBeGreaterThan(0);
    // No response: the REST client's error type, status 0.
    expect(errors[0]).toBeInstanceOf(GradualApiError);
    expect(errors[0]).toMatchObject({ name: 'GradualApiError', status: 0, code: 'service_unavailable', message: expect.stringMatching(/ECONNREFUSED/) });
    expect(client.status).toBe('stale');
    expect(client.getString('banner', {}, 'fallback')).toBe(bootstrap.primitives.find((p) => p.key === 'banner')!.value);

    expect(() => open({ bootstrap: { ...bootstrap, envId: 'another-env' } })).toThrow(/environment another-env/);
    expect(() => open({ bootstrap: { envId: f.envId } as never })).toThrow(/not a ruleset/);
  });

  it('before the first write: the fallback with PROVIDER_NOT_READY; ready as soon as the environment is written', async () => {
    const projectId = (await f.owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'fresh', name: 'Fresh' } })).id;
    const envId = (await f.owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'dev', name: 'Dev' } })).id;
    const client = open({ mode: 'stream', envId });
    const errors: GradualApiError[] = [];
    client.on('error', (e) => errors.push(e));
    await expect.poll(() => errors.map((e) => e.code), { timeout: 5000 }).toContain('ruleset_not_cached');
    expect(errors[0]).toMatchObject({ status: 503, retryAfterSeconds: 1 });
    expect(client.status).toBe('not_ready');
    expect(client.evaluate('first', { userId: 'u' }, { fallback: 'fb' })).toEqual({
      key: 'first',
      value: 'fb',
      reason: 'ERROR',
      variant: null,
      branch: null,
      errorCode: 'PROVIDER_NOT_READY',
      errorMessage: 'no ruleset yet',
      kind: null,
      bucket: null,
      rolloutPercent: null,
      version: null,
      metadata: {},
    });
    expect(client.getBoolean('first', {}, false)).toBe(false);

    const ready = client.waitForReady({ timeoutMs: 5000 });
    await f.owner.session.createFlag({ path: { id: projectId }, body: { key: 'first', name: 'First', defaultValue: true } });
    await ready;
    expect(client.getBoolean('first', {}, false)).toBe(true);
  });

  it('waitForReady rejects on a rejected token (fatal) and times out when the server is unreachable', async () => {
    const bad = open({ token: 'svc_not_a_real_token' });
    const errors: GradualApiError[] = [];
    bad.on('error', (e) => errors.push(e));
    const rejected = await bad.waitForReady({ timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(GradualApiError);
    expect(rejected).toMatchObject({ code: 'unauthorized', status: 401 });
    expect((rejected as GradualApiError).requestId).toBeTruthy();
    await expect(bad.ready()).rejects.toMatchObject({ code: 'unauthorized' });
    expect(errors[0]).toBe(rejected);
    expect(bad.status).toBe('not_ready');

    const down = open({ mode: 'poll', baseUrl: `http://127.0.0.1:${await closedPort()}` });
    await expect(down.waitForReady({ timeoutMs: 300 })).rejects.toMatchObject({
      name: 'GradualApiError',
      status: 0,
      code: 'service_unavailable',
      message: expect.stringMatching(/^no ruleset within 300 ms \(last error: ruleset: no response: .*ECONNREFUSED/),
    });
    const controller = new AbortController();
    const aborted = down.waitForReady({ signal: controller.signal });
    controller.abort(new Error('gave up'));
    await expect(aborted).rejects.toThrow('gave up');
  });

  it('recovers: stale while the server is unreachable (last good served), ready again when it answers', async () => {
    const net = switchableFetch();
    const client = open({ mode: 'poll', pollIntervalMs: 50, backoff: { initialMs: 20, maxMs: 100 }, fetch: net.fetch });
    await client.ready();
    const statuses: FlagClientStatus[] = [];
    client.on('status', (s) => statuses.push(s.status));
    const value = client.getJson('limits', {}, null);
    net.state.offline = true;
    await expect.poll(() => client.status, { timeout: 5000 }).toBe('stale');
    expect(client.lastError).toMatchObject({ status: 0, code: 'service_unavailable', message: expect.stringMatching(/^ruleset: no response: .*ECONNREFUSED \(simulated\)/) });
    expect(client.getJson('limits', {}, null)).toEqual(value);
    net.state.offline = false;
    await expect.poll(() => client.status, { timeout: 5000 }).toBe('ready');
    expect(statuses).toEqual(['stale', 'ready']);
  });

  it('stream mode: reconnects after the server ends the stream, and catches up on a write made meanwhile', async () => {
    const rec = recordingFetch();
    const client = open({ mode: 'stream', fetch: rec.fetch });
    await client.ready();
    await expect.poll(() => f.t.server.deps.streams.size, { timeout: 5000 }).toBe(1);
    const changes: FlagChangeEvent[] = [];
    client.on('change', (c) => changes.push(c));
    f.t.server.deps.streams.closeAll(); // as on a deploy: the server ends the stream cleanly
    await f.owner.session.setConfigValue({ path: { envId: f.envId, key: 'max-items' }, body: { value: 11 } });
    // Reconnects after the server's `retry: 1000`, learns the new version on connect, fetches it.
    await expect.poll(() => changes.length, { timeout: 5000 }).toBe(1);
    expect(changes[0]!.changedKeys).toEqual(['max-items']);
    expect(rec.streams).toHaveLength(2);
    expect(client.status).toBe('ready');
    expect(client.lastError).toBeUndefined();
  });

  it('stream mode: a silent stream (no heartbeat) is dropped as idle and reopened', async () => {
    let opened = 0;
    const silent: typeof fetch = async (input, init) => {
      const req = requestOf(input, init);
      if (!req.url.endsWith('/stream')) return fetch(input, init);
      opened++;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          req.signal.addEventListener('abort', () => controller.error(req.signal.reason));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    const client = open({ mode: 'stream', fetch: silent, streamIdleTimeoutMs: 100, backoff: { initialMs: 20, maxMs: 50 } });
    const errors: GradualApiError[] = [];
    client.on('error', (e) => errors.push(e));
    await client.ready(); // the initial GET does not wait for the stream
    await expect.poll(() => opened, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    expect(errors[0]).toMatchObject({ status: 0, message: 'ruleset stream: no response: silent for 100 ms' });
    expect(client.status).toBe('stale');
  });

  it('allFlags, onEvaluation and exposures: every value at once; each evaluation seen; exposures batched, de-duplicated, flushed by close()', async () => {
    const seen: string[] = [];
    const batches: Exposure[][] = [];
    const client = open({
      mode: 'poll',
      onEvaluation: (key, _context, result) => {
        seen.push(`${key}:${result.reason}:${result.variant}`);
        throw new Error('a broken hook'); // never reaches the caller
      },
      exposures: { track: (batch) => void batches.push(batch), flushIntervalMs: 60_000 },
    });
    await client.ready();
    // Earlier tests wrote to the configs: the evaluator on the held ruleset says what they hold now.
    const compiled = compileRuleset(client.ruleset()!);
    const banner = compiled.evaluate('banner', {})!.value;
    const all = client.allFlags({ userId: 'vip-1' });
    expect(Object.keys(all).sort()).toEqual(['banner', 'checkout', 'limits', 'max-items']);
    expect(all).toEqual(Object.fromEntries(Object.entries(compiled.evaluateAll({ userId: 'vip-1' })).map(([k, r]) => [k, r.value])));
    expect(all.checkout).toBe(true);
    expect(client.allFlagsDetail({ userId: excluded })).toMatchObject({
      checkout: { value: false, reason: 'SPLIT', variant: 'rollout-base', branch: 'rollout-base', kind: 'flag', bucket: bucket(SEED, excluded), rolloutPercent: 37.5, version: client.version },
      banner: { value: banner, reason: 'STATIC', variant: 'default', branch: 'default', kind: 'config', bucket: null, rolloutPercent: null },
    });
    expect(client.allFlags({}, { targetingKey: 'vip-1' }).checkout).toBe(true);
    expect(seen).toEqual([]); // bulk reads are not evaluations the hooks see

    for (let i = 0; i < 3; i++) expect(client.getBoolean('checkout', { userId: 'vip-1', visit: i }, false)).toBe(true);
    expect(client.getBoolean('checkout', { userId: admitted }, false)).toBe(true);
    expect(client.getString('banner', { userId: admitted }, '')).toBe(banner);
    expect(client.getNumber('banner', {}, 1)).toBe(1); // TYPE_MISMATCH: seen, not an exposure
    expect(seen).toEqual([
      'checkout:TARGETING_MATCH:target-id',
      'checkout:TARGETING_MATCH:target-id',
      'checkout:TARGETING_MATCH:target-id',
      'checkout:SPLIT:rollout-new',
      'banner:STATIC:default',
      'banner:ERROR:null',
    ]);
    expect(batches).toEqual([]); // the interval has not passed

    await client.close();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((e) => [e.key, e.value, e.reason, e.variant, e.bucket, e.rolloutPercent, e.version])).toEqual([
      ['checkout', true, 'TARGETING_MATCH', 'target-id', bucket(SEED, 'vip-1'), 37.5, client.version],
      ['checkout', true, 'SPLIT', 'rollout-new', bucket(SEED, admitted), 37.5, client.version],
      ['banner', banner, 'STATIC', 'default', null, null, client.version],
    ]);
    expect(batches[0]![0]!.context).toEqual({ userId: 'vip-1', visit: 0 });
    // Closed: the last ruleset still answers; nothing more is delivered.
    expect(client.getBoolean('checkout', { userId: 'vip-2' }, false)).toBe(false);
    await client.flush();
    expect(batches).toHaveLength(1);
  });

  it('close(): ends the stream on the server, clears every timer, rejects waiters; idempotent', async () => {
    const baseline = pendingTimers();
    const streaming = open({ mode: 'stream' });
    const polling = open({ mode: 'poll', pollIntervalMs: 1000 });
    const down = open({ mode: 'poll', baseUrl: `http://127.0.0.1:${await closedPort()}` });
    const waiting = down.waitForReady({ timeoutMs: 60_000 });
    await Promise.all([streaming.ready(), polling.ready()]);
    await expect.poll(() => f.t.server.deps.streams.size, { timeout: 5000 }).toBe(1);
    expect(pendingTimers()).toBeGreaterThan(baseline);

    const statuses: FlagClientStatus[] = [];
    streaming.on('status', (s) => statuses.push(s.status));
    const closing = streaming.close();
    expect(streaming.close()).toBe(closing);
    await Promise.all([closing, polling.close(), down.close()]);
    await expect(waiting).rejects.toThrow('the flag client is closed');
    await expect(down.ready()).rejects.toBeInstanceOf(GradualApiError);
    expect(statuses).toEqual(['closed']);
    expect(streaming.status).toBe('closed');
    await expect.poll(() => f.t.server.deps.streams.size, { timeout: 5000 }).toBe(0);
    await expect.poll(() => pendingTimers(), { timeout: 5000 }).toBe(baseline);
    // The last ruleset is still served after close.
    expect(streaming.getString('banner', {}, 'fallback')).not.toBe('fallback');
  });
});

describe('live flag client when the server goes away', () => {
  it('keeps serving the last good ruleset, reports the error and turns stale (stream and poll)', async () => {
    const f = await setUp();
    let closed = false;
    const options = { baseUrl: f.t.url, token: f.token, envId: f.envId, logger: null, backoff: { initialMs: 50, maxMs: 200 } };
    const streaming = createFlagClient({ ...options, mode: 'stream' });
    const polling = createFlagClient({ ...options, mode: 'poll', pollIntervalMs: 100 });
    try {
      await Promise.all([streaming.ready(), polling.ready()]);
      const errors = new Map<FlagClient, GradualApiError[]>([
        [streaming, []],
        [polling, []],
      ]);
      for (const [client, list] of errors) client.on('error', (e) => list.push(e));

      await closeServer(f.t);
      closed = true;
      for (const [client, list] of errors) {
        await expect.poll(() => list.length, { timeout: 5000 }).toBeGreaterThan(0);
        expect(list[0]).toMatchObject({ status: 0, code: 'service_unavailable' });
        expect(client.status).toBe('stale');
        expect(client.getBoolean('checkout', { userId: 'vip-1' }, false)).toBe(true);
        expect(client.evaluate('checkout', { userId: excluded })).toMatchObject({ value: false, reason: 'SPLIT', variant: 'rollout-base' });
        expect(client.getJson('limits', {}, null)).toEqual({ max: 1 });
      }
    } finally {
      await Promise.all([streaming.close(), polling.close()]);
      if (!closed) await closeServer(f.t);
    }
  });
});
