import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { scrapeMetrics } from '../support/metrics.js';
import { redactUrl } from '../../server/src/http/request-context.js';

/** Reads the unnamed `data:` events of a server-sent event stream (OFREP's event stream has no `event:` lines). */
function dataReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return async function next(timeoutMs = 5000): Promise<{ event: string | undefined; data: unknown }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split('\n');
        const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
        if (data) return { event: lines.find((l) => l.startsWith('event: '))?.slice(7), data: JSON.parse(data) };
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

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { flags?: Array<Record<string, unknown>>; eventStreams?: Array<{ type: string; url: string; inactivityDelaySec: number }> };
}

describe('OFREP: single and bulk evaluation, errors, ETags and the event stream', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;
  let env2Id: string;
  let token: string;

  const post = async (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${token}` }): Promise<Answer> => {
    const res = await fetch(`${t.url}/api/v1/ofrep/v1/evaluate/flags${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Answer['body']) : {} };
  };
  const version = async () => (await owner.session.getEnvironment({ path: { envId } })).version;
  const mintKey = async (body: { environments?: string[]; rateLimitPerMin?: number }) =>
    (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ofrep', actions: ['read'], ...body } })).token;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    env2Id = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    token = await mintKey({ environments: [envId] });
  });
  afterAll(() => t?.close());

  it('answers FLAG_NOT_FOUND and an empty bulk evaluation before the environment’s first write', async () => {
    expect(await post('/plain', { context: {} })).toMatchObject({ status: 404, body: { key: 'plain', errorCode: 'FLAG_NOT_FOUND' } });
    const bulk = await post('', { context: {} });
    expect(bulk.status).toBe(200);
    expect(bulk.body).toMatchObject({ flags: [], metadata: { rulesetVersion: 0 } });
  });

  it('evaluates one flag or config: value, reason, variant, and metadata (the custom entries, a live rollout\'s percent and bucket) per branch', async () => {
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'plain', name: 'Plain', defaultValue: false } });
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'ruled', name: 'Ruled', defaultValue: false } });
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'rolled', name: 'Rolled', defaultValue: false } });
    await owner.session.createConfig({ path: { id: projectId }, body: { key: 'limits', name: 'Limits', defaultValue: { max: 1 }, metadata: { owner: 'ops', tier: 2 } } });
    await owner.session.setFlagRules({ path: { envId, key: 'ruled' }, body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: true }] } });
    await owner.session.putFlagRollout({ path: { envId, key: 'rolled' }, body: { percent: 50, newValue: true } });
    await owner.session.addFlagTargetIds({ path: { envId, key: 'rolled' }, body: { targetIds: ['vip'] } });

    expect(await post('/plain', { context: {} })).toMatchObject({
      status: 200,
      body: { key: 'plain', value: false, reason: 'STATIC', variant: 'default', metadata: {} },
    });
    expect((await post('/ruled', { context: { plan: 'pro' } })).body).toEqual({
      key: 'ruled',
      value: true,
      reason: 'TARGETING_MATCH',
      variant: 'rule-1',
      metadata: {},
    });
    expect((await post('/ruled', { context: { plan: 'free' } })).body).toMatchObject({ value: false, reason: 'DEFAULT', variant: 'default' });
    expect((await post('/limits', { context: {} })).body).toEqual({ key: 'limits', value: { max: 1 }, reason: 'STATIC', variant: 'default', metadata: { owner: 'ops', tier: 2 } });

    // targetingKey stands in for the rollout's bucket field (userId): a target ID, then a split.
    const vip = await post('/rolled', { context: { targetingKey: 'vip' } });
    expect(vip.body).toMatchObject({ key: 'rolled', value: true, reason: 'TARGETING_MATCH', variant: 'target-id', metadata: { rolloutPercent: 50 } });
    expect(typeof (vip.body.metadata as Record<string, unknown>).bucket).toBe('number');
    const evaluated = await owner.session.evaluate({ path: { envId }, body: { context: { userId: 'u-17' } } });
    const expected = evaluated.results.rolled!;
    const split = await post('/rolled', { context: { targetingKey: 'u-17' } });
    expect(split.body).toEqual({
      key: 'rolled',
      value: expected.value,
      reason: 'SPLIT',
      variant: expected.variant,
      metadata: { rolloutPercent: 50, bucket: expected.bucket },
    });
    // The context's own bucket field wins over targetingKey.
    expect((await post('/rolled', { context: { userId: 'vip', targetingKey: 'u-17' } })).body).toMatchObject({ variant: 'target-id' });
  });

  it('answers 404 FLAG_NOT_FOUND, 400 TARGETING_KEY_MISSING, INVALID_CONTEXT and PARSE_ERROR in OFREP’s shape', async () => {
    expect(await post('/nope', { context: {} })).toMatchObject({ status: 404, body: { key: 'nope', errorCode: 'FLAG_NOT_FOUND', errorDetails: expect.any(String) } });
    expect(await post('/rolled', { context: { plan: 'pro' } })).toMatchObject({
      status: 400,
      body: { key: 'rolled', errorCode: 'TARGETING_KEY_MISSING', errorDetails: expect.stringContaining('userId') },
    });
    const invalid = await post('/plain', { context: 'a string' });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ key: 'plain', errorCode: 'INVALID_CONTEXT', errorDetails: expect.stringContaining('context') });
    const invalidBulk = await post('', { context: 'a string' });
    expect(invalidBulk.status).toBe(400);
    expect(invalidBulk.body).toEqual({ errorCode: 'INVALID_CONTEXT', errorDetails: expect.any(String) });
    const targetingKey = await post('/plain', { context: { targetingKey: 42 } });
    expect(targetingKey.body).toMatchObject({ key: 'plain', errorCode: 'INVALID_CONTEXT' });
    const parse = await post('/plain', '{"context": {');
    expect(parse.status).toBe(400);
    expect(parse.body).toEqual({ key: 'plain', errorCode: 'PARSE_ERROR', errorDetails: expect.any(String) });
    expect((await post('', '{"context": {')).body).toEqual({ errorCode: 'PARSE_ERROR', errorDetails: expect.any(String) });
  });

  it('keeps the error envelope for 401, 403 and 429 (with Retry-After)', async () => {
    expect(await post('/plain', { context: {} }, {})).toMatchObject({ status: 401, body: { code: 'unauthorized', requestId: expect.any(String) } });
    expect(await post('/plain', { context: {} }, { authorization: `Bearer svc_${'x'.repeat(32)}` })).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    // A context that is not an object, without credentials: 401 first.
    expect(await post('/plain', { context: 'a string' }, {})).toMatchObject({ status: 401, body: { code: 'unauthorized' } });

    const session = await post('/plain', { context: {} }, { cookie: `svc_session=${owner.sessionToken}` });
    expect(session).toMatchObject({ status: 403, body: { code: 'scope_denied', message: expect.stringContaining('one environment') } });
    const several = await mintKey({ environments: [envId, env2Id] });
    expect(await post('', { context: {} }, { authorization: `Bearer ${several}` })).toMatchObject({ status: 403, body: { code: 'scope_denied' } });
    const unrestricted = await mintKey({});
    expect(await post('/plain', { context: {} }, { authorization: `Bearer ${unrestricted}` })).toMatchObject({ status: 403, body: { code: 'scope_denied' } });

    const slow = await mintKey({ environments: [envId], rateLimitPerMin: 1 });
    expect((await post('/plain', { context: {} }, { authorization: `Bearer ${slow}` })).status).toBe(200);
    const limited = await post('/plain', { context: {} }, { authorization: `Bearer ${slow}` });
    expect(limited).toMatchObject({ status: 429, body: { code: 'token_rate_limit' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('evaluates every flag in bulk, with a strong ETag per version, key and context, and 304 on If-None-Match', async () => {
    const v = await version();
    const bulk = await post('', { context: { plan: 'pro' } });
    expect(bulk.status).toBe(200);
    expect(bulk.body.metadata).toEqual({ rulesetVersion: v });
    const byKey: Record<string, Record<string, unknown>> = Object.fromEntries(bulk.body.flags!.map((f) => [String(f.key), f]));
    expect(Object.keys(byKey).sort()).toEqual(['limits', 'plain', 'rolled', 'ruled']);
    expect(byKey.ruled).toMatchObject({ value: true, reason: 'TARGETING_MATCH', variant: 'rule-1' });
    expect(byKey.rolled).toMatchObject({ errorCode: 'TARGETING_KEY_MISSING' });
    const etag = bulk.headers.get('etag')!;
    expect(etag).toMatch(new RegExp(`^"${v}-[A-Za-z0-9_-]+"$`));
    // Per key and context, with a ticket for the key: no shared cache keeps it, the client revalidates.
    expect(bulk.headers.get('cache-control')).toBe('private, no-cache');
    expect(bulk.body.eventStreams).toEqual([{ type: 'sse', url: expect.stringMatching(/\/api\/v1\/ofrep\/v1\/events\?ticket=t1\./), inactivityDelaySec: 120 }]);
    // Built from the request's host (PUBLIC_URL is not set here).
    expect([new URL(t.url).host, new URL(t.server.url).host]).toContain(new URL(bulk.body.eventStreams![0]!.url).host);

    // Repeated 304s are answered from memory (a replay of the route's answer), with the same headers.
    const fromMemory = async () => (await scrapeMetrics(t.server.url)).sample('gradual_evaluations_from_memory_total', 0);
    const before = await fromMemory();
    for (let i = 0; i < 3; i++) {
      const again = await post('', { context: { plan: 'pro' } }, { authorization: `Bearer ${token}`, 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('cache-control')).toBe('private, no-cache');
      expect(again.headers.get('x-ratelimit-limit')).not.toBeNull();
    }
    expect(await fromMemory()).toBeGreaterThan(before);
    // The same context with its members in another order is the same representation; another context is not.
    const a = await post('', { context: { targetingKey: 'u-1', plan: 'pro', tags: { b: 1, a: 2 } } });
    const b = await post('', { context: { tags: { a: 2, b: 1 }, plan: 'pro', targetingKey: 'u-1' } });
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
    expect(a.headers.get('etag')).not.toBe(etag);
    const other = await post('', { context: { plan: 'free' } }, { authorization: `Bearer ${token}`, 'if-none-match': etag });
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).not.toBe(etag);

    await owner.session.setConfigValue({ path: { envId, key: 'limits' }, body: { value: { max: 2 } } });
    const after = await post('', { context: { plan: 'pro' } }, { authorization: `Bearer ${token}`, 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).toMatch(new RegExp(`^"${v + 1}-`));
    expect(after.body.flags!.find((f) => f.key === 'limits')).toMatchObject({ value: { max: 2 } });
  });

  it('answers repeated single and bulk evaluations from memory exactly as the route does', async () => {
    const fromMemory = async () => (await scrapeMetrics(t.server.url)).sample('gradual_evaluations_from_memory_total', 0);
    const withoutTicket = (answer: Answer) => ({ ...answer.body, eventStreams: answer.body.eventStreams?.map((s) => ({ ...s, url: s.url.replace(/ticket=[^&]+/, 'ticket=…') })) });
    const first = await post('/ruled', { context: { plan: 'pro' } });
    const bulk = await post('', { context: { plan: 'enterprise', targetingKey: 'u-9' } });
    expect(first.status).toBe(200);
    expect(bulk.status).toBe(200);
    const before = await fromMemory();
    for (let i = 0; i < 3; i++) {
      const single = await post('/ruled', { context: { plan: 'pro' } });
      expect(single.status).toBe(200);
      expect(single.body).toEqual(first.body);
      expect(single.headers.get('content-type')).toBe(first.headers.get('content-type'));
      const again = await post('', { context: { plan: 'enterprise', targetingKey: 'u-9' } });
      expect(again.status).toBe(200);
      expect(again.headers.get('etag')).toBe(bulk.headers.get('etag'));
      expect(again.headers.get('cache-control')).toBe('private, no-cache');
      expect(withoutTicket(again)).toEqual(withoutTicket(bulk));
      // Each answer carries a ticket the event stream takes.
      const events = await fetch(again.body.eventStreams![0]!.url.replace(new URL(again.body.eventStreams![0]!.url).origin, t.url));
      expect(events.status).toBe(200);
      await events.body?.cancel();
    }
    expect(await fromMemory()).toBeGreaterThanOrEqual(before + 6);
    // A ticket's expiry is in whole seconds: answers within one second share it, the next second signs a new one.
    const ticketOf = (answer: Answer) => new URL(answer.body.eventStreams![0]!.url).searchParams.get('ticket');
    await t.setClock('2026-11-20T10:00:00.200Z');
    const [one, two] = [await post('', { context: { plan: 'enterprise', targetingKey: 'u-9' } }), await post('', { context: { plan: 'enterprise', targetingKey: 'u-9' } })];
    expect(ticketOf(one)).toBe(ticketOf(two));
    await t.advanceClock(1);
    expect(ticketOf(await post('', { context: { plan: 'enterprise', targetingKey: 'u-9' } }))).not.toBe(ticketOf(one));
    // A body the route refuses is still refused: the replay hands it to the route.
    const bad = await post('/ruled', { context: 'not an object' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ key: 'ruled', errorCode: 'INVALID_CONTEXT' });
  });

  it('builds the event stream URL on PUBLIC_URL when it is set, whatever Host the request names', async () => {
    const other = await startTestServer({ PUBLIC_URL: 'https://flags.example.com' });
    try {
      const o = await claim(other);
      const p = (await o.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
      const e = (await o.session.createEnvironment({ path: { id: p }, body: { key: 'prod', name: 'Prod' } })).id;
      const k = (await o.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ofrep', actions: ['read'], environments: [e] } })).token;
      const res = await fetch(`${other.url}/api/v1/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
        body: JSON.stringify({ context: {} }),
      });
      const body = (await res.json()) as Answer['body'];
      expect(body.eventStreams![0]!.url).toMatch(/^https:\/\/flags\.example\.com\/api\/v1\/ofrep\/v1\/events\?ticket=t1\./);
      // A forged Host (and X-Forwarded-Host) does not move it, answered by the route or from memory.
      const forged = () =>
        new Promise<string>((resolve, reject) => {
          const req = request(
            `${other.server.url}/api/v1/ofrep/v1/evaluate/flags`,
            { method: 'POST', headers: { host: 'evil.example.net', 'x-forwarded-host': 'evil.example.net', authorization: `Bearer ${k}`, 'content-type': 'application/json' } },
            (answer) => {
              let text = '';
              answer.setEncoding('utf8');
              answer.on('data', (chunk: string) => (text += chunk));
              answer.on('end', () => resolve(text));
            },
          );
          req.on('error', reject);
          req.end(JSON.stringify({ context: {} }));
        });
      for (let i = 0; i < 2; i++) {
        const answer = JSON.parse(await forged()) as Answer['body'];
        expect(new URL(answer.eventStreams![0]!.url).origin).toBe('https://flags.example.com');
      }
    } finally {
      await other.close();
    }
  });

  it('announces refetchEvaluation on the event stream on connect and after every write; refuses forged and expired tickets', async () => {
    const bulk = await post('', { context: { targetingKey: 'u-1' } });
    const url = bulk.body.eventStreams![0]!.url;
    const abort = new AbortController();
    const res = await fetch(url, { signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const next = dataReader(res);
    const v = await version();
    expect(await next()).toEqual({ event: undefined, data: { type: 'refetchEvaluation', etag: `"${v}"` } });
    await owner.session.putFlagRollout({ path: { envId, key: 'rolled' }, body: { percent: 60, newValue: true } });
    expect(await next()).toEqual({ event: undefined, data: { type: 'refetchEvaluation', etag: `"${v + 1}"` } });
    abort.abort();

    const ticket = new URL(url).searchParams.get('ticket')!;
    // The ticket opens the stream for an hour: request logs never show it.
    const { pathname, search } = new URL(url);
    expect(redactUrl(`${pathname}${search}`)).toBe('/api/v1/ofrep/v1/events?ticket=[redacted]');
    const events = (t: string) => fetch(`${new URL(url).origin}/api/v1/ofrep/v1/events?ticket=${encodeURIComponent(t)}`);
    const forged = `${ticket.slice(0, -2)}${ticket.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of [forged, 'not-a-ticket', `${ticket.split('.').slice(0, 2).join('.')}.${'A'.repeat(43)}`]) {
      const refused = await events(bad);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'unauthorized' });
    }
    // Revoking the key ends its open streams and refuses its tickets.
    const revocable = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'revocable', actions: ['read'], environments: [envId] } });
    const revocableBulk = await post('', { context: {} }, { authorization: `Bearer ${revocable.token}` });
    const revocableUrl = revocableBulk.body.eventStreams![0]!.url;
    const open = await fetch(revocableUrl);
    const read = dataReader(open);
    expect((await read()).data).toMatchObject({ type: 'refetchEvaluation' });
    await owner.session.revokeApiKey({ path: { slug: 'acme', id: revocable.id } });
    await expect(read()).rejects.toThrow('stream ended');
    expect((await fetch(revocableUrl)).status).toBe(401);

    await t.advanceClock(3601);
    const expired = await events(ticket);
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ code: 'unauthorized', message: expect.stringContaining('expired') });
  });
  it('answers an archived flag or config with the protocol\'s codeDefaultFlag: reason DISABLED, no value or variant, so the provider serves the caller\'s default', async () => {
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'retired', name: 'Retired', defaultValue: true, metadata: { owner: 'web' } } });
    await owner.session.archiveFlag({ path: { id: projectId, key: 'retired' } });
    expect(await post('/retired', { context: { targetingKey: 'u-1' } })).toMatchObject({ status: 200, body: { key: 'retired', reason: 'DISABLED', metadata: { owner: 'web' } } });
    expect(Object.keys((await post('/retired', { context: {} })).body).sort()).toEqual(['key', 'metadata', 'reason']);
    const bulk = await post('', { context: { plan: 'pro' } });
    expect(bulk.body.flags!.find((f) => f.key === 'retired')).toEqual({ key: 'retired', reason: 'DISABLED', metadata: { owner: 'web' } });
    // The native evaluation keeps serving the base value with reason DISABLED.
    const native = await owner.session.evaluate({ path: { envId }, body: { context: {}, keys: ['retired'] } });
    expect(native.results.retired).toMatchObject({ value: true, reason: 'DISABLED', variant: 'default' });
    // Usage counts them all under the branch the native evaluation names: two single, one bulk, one native.
    await t.advanceClock(60);
    const usage = (await owner.session.getFlagUsage({ path: { id: projectId, key: 'retired' } })).environments.find((e) => e.envId === envId)!;
    expect(usage.variants).toEqual([expect.objectContaining({ variant: 'default', count: 4 })]);
  });
});
