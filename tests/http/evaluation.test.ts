import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { bucket } from '@gradual/sdk/evaluation';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { scrapeMetrics } from '../support/metrics.js';
import { loadConfig } from '../../server/src/config.js';
import { startServer } from '../../server/src/server.js';
import { openDatabase } from '../../server/src/db/database.js';

/** Reads server-sent events from a streaming fetch response. */
function sseReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return async function next(timeoutMs = 5000): Promise<{ event: string; data: string }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split('\n');
        const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
        const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
        if (event && data) return { event, data };
        continue;
      }
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no event in time')), Math.max(1, deadline - Date.now()))),
      ]);
      if (chunk.done) throw new Error('stream ended');
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
}

describe('rulesets, evaluation and the ruleset stream', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;
  let token: string;
  const auth = () => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    token = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'sdk', actions: ['read'] } })).token;
  });
  afterAll(() => t?.close());

  it('spec "Code catalog" ruleset_not_cached: a brand-new environment answers 503 ruleset_not_cached with Retry-After until the first write', async () => {
    const err = await expectApiError(t.asToken(token).getRuleset({ path: { envId } }), 503, 'ruleset_not_cached');
    expect(err.requestId).toBeTruthy();
    const res = await fetch(`${t.url}/api/v1/envs/${envId}/ruleset`, { headers: auth() });
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('serves the ruleset (gzip when accepted) with a strong ETag, and 304 on If-None-Match', async () => {
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    await owner.session.createConfig({ path: { id: projectId }, body: { key: 'limits', name: 'Limits', defaultValue: { max: 1 } } });
    await owner.session.setFlagRules({
      path: { envId, key: 'checkout' },
      body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['internal'] }], value: true }] },
    });
    await owner.session.putFlagRollout({ path: { envId, key: 'checkout' }, body: { percent: 37.5, newValue: true } });
    await owner.session.addFlagTargetIds({ path: { envId, key: 'checkout' }, body: { targetIds: ['vip-2', 'vip-1'] } });

    const { data, response, notModified } = await t.asToken(token).withResponse.getRuleset({ path: { envId } });
    expect(notModified).toBe(false);
    if (data === undefined) throw new Error('no ruleset in a 200 answer');
    const version = (await owner.session.getEnvironment({ path: { envId } })).version;
    expect(data.version).toBe(version);
    expect(data.primitives).toEqual([
      { kind: 'config', key: 'limits', value: { max: 1 }, rules: [], rollout: null },
      {
        kind: 'flag',
        key: 'checkout',
        value: false,
        rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['internal'] }], value: true }],
        rollout: expect.objectContaining({ status: 'active', percent: 37.5, seed: 'checkout:prod', bucketField: 'userId', newValue: true, targetIds: ['vip-1', 'vip-2'] }),
      },
    ]);
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"rs-/);

    const gz = await fetch(`${t.url}/api/v1/envs/${envId}/ruleset`, { headers: { ...auth(), 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(((await gz.json()) as { version: number }).version).toBe(version);
    const gzEtag = gz.headers.get('etag')!;
    for (const tag of [etag, gzEtag]) {
      const cached = await fetch(`${t.url}/api/v1/envs/${envId}/ruleset`, { headers: { ...auth(), 'if-none-match': tag, 'accept-encoding': 'gzip' } });
      expect(cached.status).toBe(304);
    }
    // A write makes the old ETag stale.
    await owner.session.setConfigValue({ path: { envId, key: 'limits' }, body: { value: { max: 2 } } });
    const fresh = await fetch(`${t.url}/api/v1/envs/${envId}/ruleset`, { headers: { ...auth(), 'if-none-match': etag } });
    expect(fresh.status).toBe(200);
    expect(((await fresh.json()) as { version: number }).version).toBe(version + 1);
  });

  it('answers warm polls from memory (a replay of the route’s answer) with the route’s 304, never a stale one', async () => {
    const fromMemory = async () => (await scrapeMetrics(t.server.url)).sample('gradual_ruleset_polls_from_memory_total');
    const poll = (tag: string, headers: Record<string, string> = auth()) =>
      fetch(`${t.url}/api/v1/envs/${envId}/ruleset`, { headers: { ...headers, 'if-none-match': tag, 'accept-encoding': 'gzip' } });
    const cold = await fetch(`${t.url}/api/v1/envs/${envId}/ruleset`, { headers: { ...auth(), 'accept-encoding': 'gzip' } });
    const tag = cold.headers.get('etag')!;
    // The caches stay warm for a second after the full route fills them: on a slow machine a poll
    // may miss that window (the full route answers it and warms them again), so poll until one
    // is answered from memory. Every answer is the same 304 either way.
    const latencyCount = async () =>
      (await scrapeMetrics(t.server.url)).sample('gradual_http_request_duration_seconds_count{method="GET",route="/api/v1/envs/:envId/ruleset",status="304"}', 0);
    let warm!: Response;
    let answered = false;
    for (let attempt = 0; attempt < 5 && !answered; attempt++) {
      const before = await fromMemory();
      const counted = await latencyCount();
      warm = await poll(tag);
      expect(warm.status).toBe(304);
      answered = (await fromMemory()) === before + 1;
      expect(await latencyCount()).toBe(counted + 1); // in the latency histogram, under the full route's labels
    }
    expect(answered).toBe(true);
    const before = await fromMemory();
    // The same headers as the full route's 304 (a session poll takes the full route; keys add rate-limit headers).
    const full = await poll(tag, { cookie: `svc_session=${owner.sessionToken}` });
    expect(full.status).toBe(304);
    expect(await fromMemory()).toBe(before);
    for (const h of ['etag', 'vary', 'cache-control']) expect(warm.headers.get(h), h).toBe(full.headers.get(h));
    expect(warm.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(warm.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    expect(warm.headers.get('x-ratelimit-remaining')).not.toBeNull();
    // A write on this instance makes the old tag stale at once: a 200 with the new version, from the full route.
    await owner.session.setConfigValue({ path: { envId, key: 'limits' }, body: { value: { max: 3 } } });
    const stale = await poll(tag);
    expect(stale.status).toBe(200);
    // A revoked key is refused at once, however warm the caches are.
    const { token: doomed, id } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'doomed', actions: ['read'] } });
    const fresh = (await poll('"none"', { authorization: `Bearer ${doomed}` })).headers.get('etag')!;
    expect((await poll(fresh, { authorization: `Bearer ${doomed}` })).status).toBe(304);
    await owner.session.revokeApiKey({ path: { slug: 'acme', id } });
    expect((await poll(fresh, { authorization: `Bearer ${doomed}` })).status).toBe(401);
    // An exhausted bucket is the full route's 429, with its headers.
    const { token: tight } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'tight', actions: ['read'], rateLimitPerMin: 2 } });
    const tightTag = (await poll('"none"', { authorization: `Bearer ${tight}` })).headers.get('etag')!;
    expect((await poll(tightTag, { authorization: `Bearer ${tight}` })).status).toBe(304);
    const limited = await poll(tightTag, { authorization: `Bearer ${tight}` });
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { code: string }).code).toBe('token_rate_limit');
    expect(limited.headers.get('retry-after')).not.toBeNull();
    await owner.session.setConfigValue({ path: { envId, key: 'limits' }, body: { value: { max: 2 } } }); // as the next test expects
  });

  it('evaluates on the server with the shared evaluator: target IDs, rollout, rules, default', async () => {
    const seed = 'checkout:prod';
    const ids = Array.from({ length: 400 }, (_, i) => `user-${i}`);
    const admitted = ids.find((id) => bucket(seed, id) < 37.5)!;
    const excluded = ids.find((id) => bucket(seed, id) >= 37.5)!;
    const api = t.asToken(token);
    const res = await api.evaluate({ path: { envId }, body: { context: { userId: 'vip-1' } } });
    expect(res.results.checkout).toEqual({ kind: 'flag', value: true, reason: 'TARGETING_MATCH', variant: 'target-id', branch: 'target-id', bucket: bucket(seed, 'vip-1'), rolloutPercent: 37.5 });
    expect(res.results.limits).toEqual({ kind: 'config', value: { max: 2 }, reason: 'STATIC', variant: 'default', branch: 'default', bucket: null, rolloutPercent: null });

    const one = await api.evaluate({ path: { envId }, body: { context: { userId: admitted }, keys: ['checkout', 'missing'] } });
    expect(Object.keys(one.results)).toEqual(['checkout']);
    expect(one.results.checkout).toEqual({ kind: 'flag', value: true, reason: 'SPLIT', variant: 'rollout-new', branch: 'rollout-new', bucket: bucket(seed, admitted), rolloutPercent: 37.5 });
    expect((await api.evaluate({ path: { envId }, body: { context: { userId: excluded, plan: 'internal' } } })).results.checkout).toMatchObject({
      value: true,
      reason: 'TARGETING_MATCH',
      variant: 'rule-1',
      branch: 'rule-1',
    });
    expect((await api.evaluate({ path: { envId }, body: { context: { userId: excluded } } })).results.checkout).toMatchObject({
      value: false,
      reason: 'SPLIT',
      variant: 'rollout-base',
      branch: 'rollout-base',
    });
    expect((await api.evaluate({ path: { envId }, body: { context: {} } })).results.checkout).toEqual({
      kind: 'flag',
      value: false,
      reason: 'DEFAULT',
      variant: 'default',
      branch: 'default',
      bucket: null,
      rolloutPercent: 37.5,
    });
    await expectApiError(api.evaluate({ path: { envId }, body: { context: 'x' } as never }), 400, 'invalid_request');
  });

  it('POST /evaluate answers every branch with its reason, variant, bucket and rollout percent (gated rules, ended rollouts)', async () => {
    // A project of its own, so the ruleset the other tests read keeps its primitives.
    const s = owner.session;
    const project = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'branches', name: 'Branches' } })).id;
    const env = (await s.createEnvironment({ path: { id: project }, body: { key: 'staging', name: 'Staging' } })).id;
    const pro = { conditions: [{ attribute: 'plan', operator: 'in' as const, values: ['pro'] }], value: true };
    const dutch = { conditions: [{ attribute: 'country', operator: 'in' as const, values: ['NL'] }], value: true };
    await s.createFlag({ path: { id: project }, body: { key: 'search', name: 'Search', defaultValue: false } });
    await s.createFlag({ path: { id: project }, body: { key: 'gated', name: 'Gated', defaultValue: false } });
    await s.createConfig({ path: { id: project }, body: { key: 'theme', name: 'Theme', defaultValue: 'light' } });
    await s.setFlagRules({ path: { envId: env, key: 'search' }, body: { rules: [pro, dutch] } });
    await s.setFlagRules({ path: { envId: env, key: 'gated' }, body: { rules: [pro] } });
    await s.putFlagRollout({ path: { envId: env, key: 'search' }, body: { percent: 20, newValue: true } });
    await s.addFlagTargetIds({ path: { envId: env, key: 'search' }, body: { targetIds: ['vip'] } });
    await s.putFlagRollout({ path: { envId: env, key: 'gated' }, body: { percent: 20 } });

    const ids = Array.from({ length: 400 }, (_, i) => `user-${i}`);
    const inSearch = ids.find((id) => bucket('search:staging', id) < 20)!;
    const outOfSearch = ids.find((id) => bucket('search:staging', id) >= 20)!;
    const inGated = ids.find((id) => bucket('gated:staging', id) < 20)!;
    const outOfGated = ids.find((id) => bucket('gated:staging', id) >= 20)!;
    const evaluate = async (context: Record<string, unknown>, keys: string[]) => {
      const res = await fetch(`${t.url}/api/v1/envs/${env}/evaluate`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ context, keys }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { version: number; results: Record<string, unknown> }).results;
    };
    const flag = (value: unknown, reason: string, branch: string, b: number | null, rolloutPercent: number | null) => ({ kind: 'flag', value, reason, variant: branch, branch, bucket: b, rolloutPercent });

    const cases: Array<[string, Record<string, unknown>, string, ReturnType<typeof flag>]> = [
      ['target ID', { userId: 'vip' }, 'search', flag(true, 'TARGETING_MATCH', 'target-id', bucket('search:staging', 'vip'), 20)],
      ['admitted', { userId: inSearch }, 'search', flag(true, 'SPLIT', 'rollout-new', bucket('search:staging', inSearch), 20)],
      ['not admitted, rule 2', { userId: outOfSearch, country: 'NL' }, 'search', flag(true, 'TARGETING_MATCH', 'rule-2', bucket('search:staging', outOfSearch), 20)],
      ['not admitted', { userId: outOfSearch }, 'search', flag(false, 'SPLIT', 'rollout-base', bucket('search:staging', outOfSearch), 20)],
      ['no bucket field', { country: 'DE' }, 'search', flag(false, 'DEFAULT', 'default', null, 20)],
      ['gated, admitted, rule 1', { userId: inGated, plan: 'pro' }, 'gated', flag(true, 'TARGETING_MATCH', 'rule-1', bucket('gated:staging', inGated), 20)],
      ['gated, admitted, no rule', { userId: inGated }, 'gated', flag(false, 'DEFAULT', 'default', bucket('gated:staging', inGated), 20)],
      ['gated, not admitted', { userId: outOfGated, plan: 'pro' }, 'gated', flag(false, 'SPLIT', 'rollout-base', bucket('gated:staging', outOfGated), 20)],
      ['gated, no bucket field', { plan: 'pro' }, 'gated', flag(false, 'DEFAULT', 'default', null, 20)],
    ];
    for (const [branch, context, key, expected] of cases) expect((await evaluate(context, [key]))[key], branch).toEqual(expected);
    expect((await evaluate({ userId: 'vip' }, ['theme'])).theme).toEqual({ kind: 'config', value: 'light', reason: 'STATIC', variant: 'default', branch: 'default', bucket: null, rolloutPercent: null });

    // Ended rollouts are ignored: no bucket, no percent; the rules decide alone.
    await s.cancelFlagRollout({ path: { envId: env, key: 'search' } });
    await s.cancelFlagRollout({ path: { envId: env, key: 'gated' } });
    expect(await evaluate({ userId: 'vip' }, ['search', 'gated'])).toEqual({
      search: flag(false, 'DEFAULT', 'default', null, null),
      gated: flag(false, 'DEFAULT', 'default', null, null),
    });
    expect((await evaluate({ userId: outOfGated, plan: 'pro' }, ['gated'])).gated).toEqual(flag(true, 'TARGETING_MATCH', 'rule-1', null, null));
  });

  it('answers repeated API-key evaluations from memory with the route’s answers, and leaves every odd body to the route', async () => {
    const fastCount = async () => (await scrapeMetrics(t.server.url)).sample('gradual_evaluations_from_memory_total');
    const url = `${t.url}/api/v1/envs/${envId}/evaluate`;
    const post = (body: string, headers: Record<string, string> = auth()) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const viaSession = (body: string, headers: Record<string, string> = {}) => post(body, { cookie: `svc_session=${owner.sessionToken}`, ...headers });
    await fetch(`${t.url}/api/v1/envs/${envId}/ruleset`, { headers: auth() }); // the ruleset cache, environment directory and key cache
    let fast = false;
    for (let attempt = 0; attempt < 5 && !fast; attempt++) {
      const before = await fastCount();
      expect((await post('{"context":{"userId":"vip-1"}}')).status).toBe(200);
      fast = (await fastCount()) === before + 1;
    }
    expect(fast).toBe(true);
    // The same answers and headers as the full route (a session takes it).
    for (const body of [{ context: { userId: 'vip-1' } }, { context: { userId: 'someone', plan: 'internal' }, keys: ['checkout', 'missing'] }, { context: {} }, { context: { userId: 'ü-☃' }, keys: [] }, { context: {}, extra: 1 }]) {
      const before = await fastCount();
      const viaKey = await post(JSON.stringify(body));
      expect(await fastCount()).toBe(before + 1);
      const full = await viaSession(JSON.stringify(body));
      expect(viaKey.status).toBe(200);
      expect(await viaKey.json(), JSON.stringify(body)).toEqual(await full.json());
      expect(viaKey.headers.get('content-type')).toBe(full.headers.get('content-type'));
      expect(viaKey.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number(viaKey.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    }
    // Bodies read in front of the router but not answered there go back on the request for the
    // route, which answers exactly as it answers a session (the same status and error code).
    const odd: Array<[string, string, Record<string, string>?]> = [
      ['a context that is not an object', '{"context":"x"}'],
      ['keys of the wrong type', '{"context":{},"keys":"checkout"}'],
      ['not JSON', '{"context":'],
      ['a NUL escape', '{"context":{"userId":"a\\u0000b"}}'],
      ['a lone surrogate escape', '{"context":{"userId":"\\ud800"}}'],
      ['nesting deeper than allowed', `{"context":{"deep":${'['.repeat(120)}${']'.repeat(120)}}}`],
      ['a body over the size read in front of the router', JSON.stringify({ context: { userId: 'vip-1', pad: 'x'.repeat(20_000) } })],
      ['a charset other than UTF-8', '{"context":{}}', { 'content-type': 'application/json; charset=latin1' }],
      ['another content type', '{"context":{}}', { 'content-type': 'text/plain' }],
    ];
    const before = await fastCount();
    for (const [what, body, headers] of odd) {
      const viaKey = await post(body, { ...auth(), ...headers });
      const full = await viaSession(body, headers);
      expect(viaKey.status, what).toBe(full.status);
      const [a, b] = [await viaKey.text(), await full.text()];
      if (full.status === 200) expect(JSON.parse(a), what).toEqual(JSON.parse(b));
      else {
        const withoutId = (text: string) => ({ ...(JSON.parse(text) as Record<string, unknown>), requestId: undefined });
        expect(withoutId(a), what).toEqual(withoutId(b)); // code, message and field details alike
      }
    }
    expect(await fastCount()).toBe(before);
    // The replayed request is a whole request: the connection serves the next one normally.
    expect((await post('{"context":{"userId":"vip-1"}}')).status).toBe(200);
    // An exhausted bucket is the route's 429 (the body was read in front and no token taken).
    const { token: tight } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'tight-evaluate', actions: ['read'], rateLimitPerMin: 2 } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post('{"context":{}}', { authorization: `Bearer ${tight}` })).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('drops ended rollouts from the ruleset, and shows a token only the primitives it may read', async () => {
    await owner.session.pauseFlagRollout({ path: { envId, key: 'checkout' } });
    expect((await t.asToken(token).getRuleset({ path: { envId } })).primitives[1]!.rollout).toMatchObject({ status: 'paused', percent: 37.5 });
    await owner.session.cancelFlagRollout({ path: { envId, key: 'checkout' } });
    expect((await t.asToken(token).getRuleset({ path: { envId } })).primitives[1]!.rollout).toBeNull();
    const scoped = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'checkout-only', resources: ['check*'] } });
    expect((await t.asToken(scoped.token).getRuleset({ path: { envId } })).primitives.map((p) => p.key)).toEqual(['checkout']);
    const envScoped = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'other-env', environments: [] } });
    expect(envScoped.environments).toEqual([]);
    await expectApiError(t.asToken(envScoped.token).getRuleset({ path: { envId } }), 403, 'token_env_out_of_scope');
  });

  it('streams a `ruleset` event on connect and after every committed write', async () => {
    const controller = new AbortController();
    const res = await fetch(`${t.url}/api/v1/envs/${envId}/ruleset/stream`, { headers: auth(), signal: controller.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const next = sseReader(res);
    const first = await next();
    const version = (await owner.session.getEnvironment({ path: { envId } })).version;
    expect(first).toEqual({ event: 'ruleset', data: JSON.stringify({ version }) });
    await owner.session.setFlagValue({ path: { envId, key: 'checkout' }, body: { value: true } });
    expect(JSON.parse((await next()).data)).toEqual({ version: version + 1 });
    await owner.session.putFlagRollout({ path: { envId, key: 'checkout' }, body: { percent: 5, newValue: false } });
    expect(JSON.parse((await next()).data)).toEqual({ version: version + 2 });
    controller.abort();
    await expect.poll(() => t.server.deps.streams.size).toBe(0);
  });

  it.runIf(!!process.env.DATABASE_URL)('delivers a write on one instance to a stream on another (PostgreSQL LISTEN/NOTIFY)', async () => {
    const db = await openDatabase({ ...t.databaseOptions, migrate: false });
    const second = await startServer({ config: loadConfig({ PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'test', LOG_LEVEL: 'silent' }), db, logger: pino({ level: 'silent' }) });
    try {
      const controller = new AbortController();
      const res = await fetch(`${second.url}/api/v1/envs/${envId}/ruleset/stream`, { headers: auth(), signal: controller.signal });
      const next = sseReader(res);
      const { version } = JSON.parse((await next()).data) as { version: number };
      await owner.session.setFlagValue({ path: { envId, key: 'checkout' }, body: { value: false } }); // written through the first instance
      expect(JSON.parse((await next()).data)).toEqual({ version: version + 1 });
      controller.abort();
    } finally {
      await second.close();
      await db.close();
    }
  });
});

describe('request log lines', () => {
  it('logs SDK traffic that succeeded (a poll, an evaluation, an OFREP evaluation) at debug, answered from memory or by the route alike, and its 4xx and every other request at info', async () => {
    const lines: Array<{ level: number; msg: string; req?: { url: string; method: string }; res?: { statusCode: number } }> = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const t = await startTestServer({}, { logger });
    try {
      const owner = await claim(t);
      const projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
      const envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
      const token = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'sdk', actions: ['read'] } })).token;
      const sdkKey = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ofrep', kind: 'sdk', environments: [envId], actions: ['read'] } })).token;
      await owner.session.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
      const url = `${t.url}/api/v1/envs/${envId}/ruleset`;
      const cold = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(cold.status).toBe(200);
      const tag = cold.headers.get('etag')!;
      const fromMemory = async () => (await scrapeMetrics(t.server.url)).sample('gradual_ruleset_polls_from_memory_total');
      const before = await fromMemory();
      for (let i = 0; i < 3; i++) expect((await fetch(url, { headers: { authorization: `Bearer ${token}`, 'if-none-match': tag } })).status).toBe(304);
      // A session's poll always takes the full route; at least one key's poll was answered from memory.
      expect((await fetch(url, { headers: { cookie: `svc_session=${encodeURIComponent(owner.sessionToken)}`, 'if-none-match': tag } })).status).toBe(304);
      expect(await fromMemory()).toBeGreaterThan(before);
      const polls = lines.filter((l) => l.msg === 'request completed' && l.req?.url === `/api/v1/envs/${envId}/ruleset`);
      expect(polls.map((l) => [l.res?.statusCode, l.level])).toEqual([[200, 20], [304, 20], [304, 20], [304, 20], [304, 20]]);

      // Evaluations: the route's answer, then the same request from memory, then a bad body (400).
      const evaluate = (body: string) => fetch(`${t.url}/api/v1/envs/${envId}/evaluate`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
      const context = JSON.stringify({ context: { userId: 'u-1' } });
      const evaluationsFromMemory = async () => (await scrapeMetrics(t.server.url)).sample('gradual_evaluations_from_memory_total');
      expect((await evaluate(context)).status).toBe(200);
      const routeOnly = await evaluationsFromMemory();
      expect((await evaluate(context)).status).toBe(200);
      expect(await evaluationsFromMemory()).toBe(routeOnly + 1);
      expect((await evaluate('{"context": 3}')).status).toBe(400);
      const ofrep = (await fetch(`${t.url}/api/v1/ofrep/v1/evaluate/flags`, { method: 'POST', headers: { 'x-api-key': sdkKey, 'content-type': 'application/json' }, body: JSON.stringify({ context: { targetingKey: 'u-1' } }) })).status;
      expect(ofrep).toBe(200);
      const levels = (path: string) => lines.filter((l) => l.msg === 'request completed' && l.req?.url === path).map((l) => [l.res?.statusCode, l.level]);
      expect(levels(`/api/v1/envs/${envId}/evaluate`)).toEqual([[200, 20], [200, 20], [400, 30]]);
      expect(levels('/api/v1/ofrep/v1/evaluate/flags')).toEqual([[200, 20]]);
      // Anything else at info: the setup's writes, for one.
      expect(lines.filter((l) => l.msg === 'request completed' && l.req?.method === 'POST' && l.req.url === `/api/v1/projects/${projectId}/flags`).map((l) => l.level)).toEqual([30]);
    } finally {
      await t.close();
    }
  });
});
