/**
 * The live client's timing and delivery rules, with fake timers and a scripted fetch: retry
 * spacing (full jitter, Retry-After, fatal answers), conditional GETs, exposures, hooks and
 * close(). The client against a real server is tests/sdk/flag-client.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GradualApiError } from '../errors.js';
import { fullJitter, isFatal, retryDelay } from '../retry.js';
import { rulesetBuilder } from '../testing/ruleset-builder.js';
import { RulesetCache } from './cache.js';
import type { Exposure } from './exposures.js';
import { createFlagClient } from './flag-client.js';
import type { FlagClientOptions, FlagEvaluation } from './types.js';

const ENV = 'env-test';
const v1 = rulesetBuilder({ envId: ENV, version: 1 })
  .flag('checkout', false, { rollout: { percent: 50, newValue: true, targetIds: ['vip'] } })
  .config('limits', { max: 1 }, { metadata: { owner: 'ops' } })
  .build();
const v2 = rulesetBuilder({ envId: ENV, version: 2 })
  .flag('checkout', false, { rollout: { percent: 50, newValue: true, targetIds: ['vip'] } })
  .config('limits', { max: 2 })
  .build();

interface Call {
  at: number;
  url: string;
  ifNoneMatch: string | null;
}

type Answer = Response | Error | ((req: Request) => Response);

/** A fetch that answers ruleset GETs from a script (the last answer repeats) and records when each came. */
function scripted(answers: Answer[]) {
  const calls: Call[] = [];
  const f: typeof fetch = (input, init) => {
    const req = input instanceof Request && !init ? input : new Request(input, init);
    calls.push({ at: Date.now(), url: req.url, ifNoneMatch: req.headers.get('if-none-match') });
    const next = answers.length > 1 ? answers.shift()! : answers[0]!;
    if (next instanceof Error) return Promise.reject(next);
    return Promise.resolve(typeof next === 'function' ? next(req) : next.clone());
  };
  return { fetch: f, calls, at: () => calls.map((c) => c.at) };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const ok = (ruleset: unknown, etag: string) => json(ruleset, 200, { etag });
const failure = (status: number, code: string, headers: Record<string, string> = {}) => json({ code, message: `${code} (scripted)`, requestId: `req-${status}` }, status, headers);
const refused = () => new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED (scripted)') });

describe('retry policy', () => {
  const policy = { initialMs: 1000, maxMs: 8000 };
  it('full jitter: uniformly in [0, min(max, initial · 2ⁿ)]', () => {
    expect([0, 1, 2, 3, 4, 10].map((n) => fullJitter(n, policy, () => 0.999_999))).toEqual([999, 1999, 3999, 7999, 7999, 7999]);
    expect(fullJitter(5, policy, () => 0)).toBe(0);
    expect(fullJitter(1, policy, () => 0.5)).toBe(1000);
  });
  it('honours Retry-After (capped at maxMs); fatal answers wait maxMs', () => {
    const e = (status: number, retryAfterSeconds?: number) => ({ status, retryAfterSeconds });
    expect(retryDelay(e(429, 5), 0, policy, () => 0)).toBe(5000);
    expect(retryDelay(e(503, 60), 0, policy, () => 0)).toBe(8000);
    expect(retryDelay(e(503, 1), 3, policy, () => 0.999_999)).toBe(7999);
    expect(retryDelay(e(401), 0, policy, () => 0)).toBe(8000);
    expect([0, 400, 401, 403, 404, 429, 500, 503].map((status) => isFatal({ status }))).toEqual([false, true, true, true, true, false, false, false]);
  });
});

describe('RulesetCache', () => {
  it('compiles once per version and names the changed keys', () => {
    const cache = new RulesetCache();
    const first = cache.replace(v1, 'bootstrap');
    expect(first.kind).toBe('first');
    const same = cache.replace(structuredClone(v1), 'server');
    expect(same).toMatchObject({ kind: 'same' });
    expect(same.held.compiled).toBe(first.held.compiled);
    expect(same.held.source).toBe('server');
    const changed = cache.replace(v2, 'server');
    expect(changed).toMatchObject({ kind: 'changed', previousVersion: 1, changedKeys: ['limits'] });
    expect(changed.held.compiled).not.toBe(first.held.compiled);
  });
});

describe('live client with fake timers', () => {
  const opened: { close(): Promise<void> }[] = [];
  const open = (options: Partial<FlagClientOptions> & { fetch: typeof fetch }) => {
    // The scripts answer ruleset requests only: acknowledgements have their own tests (acks.test.ts).
    const client = createFlagClient({ baseUrl: 'http://gradual.test', token: 'svc_t', envId: ENV, mode: 'poll', logger: null, ackIntervalMs: 0, ...options });
    opened.push(client);
    return client;
  };

  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.close()));
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('retries 5xx and network errors with full-jitter backoff, then polls at the interval', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    const net = scripted([failure(503, 'service_unavailable'), refused(), failure(500, 'internal'), ok(v1, '"a"')]);
    const client = open({ fetch: net.fetch, pollIntervalMs: 60_000, backoff: { initialMs: 1000, maxMs: 8000 } });
    const errors: GradualApiError[] = [];
    client.on('error', (e) => errors.push(e));
    await vi.advanceTimersByTimeAsync(7_000);
    // Ceilings 1000, 2000, 4000: the retries come at 999, 999 + 1999, 2998 + 3999.
    expect(net.at()).toEqual([0, 999, 2998, 6997]);
    expect(errors.map((e) => [e.status, e.code])).toEqual([
      [503, 'service_unavailable'],
      [0, 'service_unavailable'],
      [500, 'internal'],
    ]);
    expect(errors.every((e) => e instanceof GradualApiError)).toBe(true);
    expect(client.status).toBe('ready');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(net.at()).toEqual([0, 999, 2998, 6997, 66_997]);
  });

  it('waits for Retry-After (429), capped at backoff.maxMs', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const net = scripted([failure(429, 'token_rate_limit', { 'retry-after': '5' }), failure(503, 'service_unavailable', { 'retry-after': '3600' }), ok(v1, '"a"')]);
    const client = open({ fetch: net.fetch, backoff: { initialMs: 1000, maxMs: 20_000 } });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(net.at()).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(net.at()).toEqual([0, 5000]);
    expect(client.lastError).toMatchObject({ status: 503, retryAfterSeconds: 3600 });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(net.at()).toEqual([0, 5000, 25_000]);
    expect(client.status).toBe('ready');
  });

  it('401: waitForReady rejects with the GradualApiError; retried only every maxMs, even in poll mode', async () => {
    const net = scripted([failure(401, 'unauthorized')]);
    const client = open({ fetch: net.fetch, pollIntervalMs: 1000, backoff: { initialMs: 100, maxMs: 30_000 } });
    const rejection = client.waitForReady().catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    const err = await rejection;
    expect(err).toBeInstanceOf(GradualApiError);
    expect(err).toMatchObject({ status: 401, code: 'unauthorized', requestId: 'req-401' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(net.at()).toEqual([0, 30_000, 60_000]);
  });

  it('sends the held ETag as If-None-Match; a 304 keeps the held ruleset, a 200 replaces it', async () => {
    const net = scripted([ok(v1, '"a"'), new Response(null, { status: 304, headers: { etag: '"a"' } }), ok(v2, '"b"'), new Response(null, { status: 304 })]);
    const client = open({ fetch: net.fetch, pollIntervalMs: 1000 });
    const changes: unknown[] = [];
    client.on('change', (c) => changes.push(c));
    await vi.advanceTimersByTimeAsync(0);
    const held = client.ruleset();
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.ruleset()).toBe(held);
    expect(changes).toEqual([]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(net.calls.map((c) => c.ifNoneMatch)).toEqual([null, '"a"', '"a"', '"b"']);
    expect(net.calls[0]!.url).toBe(`http://gradual.test/api/v1/envs/${ENV}/ruleset`);
    expect(changes).toEqual([{ previousVersion: 1, version: 2, changedKeys: ['limits'], source: 'server' }]);
    expect(client.getJson('limits', {}, null)).toEqual({ max: 2 });
  });

  it('stream mode: reopens a failing stream with backoff, polling meanwhile; an announced version is fetched', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    const streams: number[] = [];
    let streamAnswers = 0;
    const encoder = new TextEncoder();
    const net = scripted([
      (req) => {
        if (!req.url.endsWith('/stream')) return req.headers.get('if-none-match') === '"b"' ? new Response(null, { status: 304 }) : ok(v2, '"b"');
        streams.push(Date.now());
        if (++streamAnswers < 3) return failure(503, 'service_unavailable');
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode('retry: 1000\nevent: ruleset\ndata: {"version":2}\n\n'));
            req.signal.addEventListener('abort', () => controller.error(req.signal.reason));
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      },
    ]);
    const client = open({ mode: 'stream', bootstrap: v1, fetch: net.fetch, pollIntervalMs: 10_000, backoff: { initialMs: 1000, maxMs: 8000 } });
    await vi.advanceTimersByTimeAsync(5000);
    expect(streams).toEqual([0, 999, 2998]);
    expect(client.version).toBe(2);
    // Connected: no more polling (only the first GET went out; the stream announced what it had).
    const gets = net.calls.filter((c) => !c.url.endsWith('/stream')).length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(net.calls.filter((c) => !c.url.endsWith('/stream')).length).toBe(gets);
    expect(client.status).toBe('ready');
  });

  it('onEvaluation sees every evaluation; a throwing hook never breaks evaluation', () => {
    const seen: [string, unknown, FlagEvaluation][] = [];
    const logged: unknown[] = [];
    const logger = { warn: () => {}, error: (...args: unknown[]) => void logged.push(args) };
    const client = open({
      fetch: scripted([new Response(null, { status: 304 })]).fetch,
      bootstrap: v1,
      logger,
      onEvaluation: (key, context, result) => {
        seen.push([key, context, result]);
        throw new Error('hook bug');
      },
    });
    expect(client.getBoolean('checkout', { userId: 'vip' }, false)).toBe(true);
    expect(client.getNumber('limits', {}, 7)).toBe(7);
    expect(client.evaluate('missing', {}, { fallback: 'x' }).value).toBe('x');
    expect(seen.map(([k, , r]) => [k, r.reason, r.variant, r.errorCode])).toEqual([
      ['checkout', 'TARGETING_MATCH', 'target-id', undefined],
      ['limits', 'ERROR', null, 'TYPE_MISMATCH'],
      ['missing', 'ERROR', null, 'FLAG_NOT_FOUND'],
    ]);
    expect(seen[0]![1]).toEqual({ userId: 'vip' });
    expect(logged).toHaveLength(1);
    // allFlags is a bulk read, not an exposure.
    expect(client.allFlags({ userId: 'vip' })).toEqual({ checkout: true, limits: { max: 1 } });
    expect(client.allFlagsDetail({}, { targetingKey: 'vip' })).toEqual({
      checkout: { key: 'checkout', value: true, reason: 'TARGETING_MATCH', variant: 'target-id', branch: 'target-id', kind: 'flag', bucket: expect.any(Number), rolloutPercent: 50, version: 1, metadata: {} },
      limits: { key: 'limits', value: { max: 1 }, reason: 'STATIC', variant: 'default', branch: 'default', kind: 'config', bucket: null, rolloutPercent: null, version: 1, metadata: { owner: 'ops' } },
    });
    expect(seen).toHaveLength(3);
  });

  it('exposures: de-duplicated, batched by size and interval, flushed by flush() and close()', async () => {
    const batches: Exposure[][] = [];
    let release: (() => void) | undefined;
    const client = open({
      fetch: scripted([new Response(null, { status: 304 })]).fetch,
      bootstrap: v1,
      exposures: {
        track: (batch) => {
          batches.push(batch);
          return new Promise<void>((resolve) => (release = resolve));
        },
        flushIntervalMs: 5000,
        batchSize: 3,
      },
    });
    for (let i = 0; i < 5; i++) client.getBoolean('checkout', { userId: 'vip' }, false); // one exposure
    client.getJson('limits', { plan: 'pro' }, null);
    client.getBoolean('missing', {}, false); // an error: not an exposure
    await vi.advanceTimersByTimeAsync(4999);
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((e) => [e.key, e.value, e.reason, e.variant, e.rolloutPercent, e.version])).toEqual([
      ['checkout', true, 'TARGETING_MATCH', 'target-id', 50, 1],
      ['limits', { max: 1 }, 'STATIC', 'default', null, 1],
    ]);
    expect(batches[0]![0]).toMatchObject({ context: { userId: 'vip' }, kind: 'flag', timestamp: 0 });
    release!();

    // A full batch goes out without waiting for the interval (but never inside the evaluation).
    for (const userId of ['a', 'b', 'c']) client.getBoolean('checkout', { userId }, false);
    expect(batches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(batches[1]!.map((e) => e.context)).toEqual([{ userId: 'a' }, { userId: 'b' }, { userId: 'c' }]);
    release!();

    client.getBoolean('checkout', { userId: 'd' }, false);
    let flushed = false;
    const flushing = client.flush().then(() => (flushed = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toHaveLength(3);
    expect(flushed).toBe(false); // waits for track
    release!();
    await flushing;

    client.getBoolean('checkout', { userId: 'e' }, false);
    let closed = false;
    const closing = client.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(batches[3]!.map((e) => e.context)).toEqual([{ userId: 'e' }]);
    expect(closed).toBe(false);
    release!();
    await closing;
    // After close: answers from the last ruleset, delivers nothing more.
    expect(client.status).toBe('closed');
    expect(client.getBoolean('checkout', { userId: 'vip' }, false)).toBe(true);
    client.getBoolean('checkout', { userId: 'f' }, false);
    await client.flush();
    expect(batches).toHaveLength(4);
  });

  it('exposures: a changed value is delivered again; the oldest identities are forgotten beyond dedupeCapacity', async () => {
    const delivered: string[] = [];
    const client = open({
      fetch: scripted([ok(v1, '"a"'), ok(v2, '"b"')]).fetch,
      exposures: { track: (batch) => void delivered.push(...batch.map((e) => `${e.key}:${JSON.stringify(e.context)}:${JSON.stringify(e.value)}`)), dedupeCapacity: 2 },
    });
    await vi.advanceTimersByTimeAsync(0);
    client.getJson('limits', { userId: 'a' }, null);
    client.getJson('limits', { userId: 'a' }, null); // same context JSON, same value: once
    client.getBoolean('checkout', { userId: 'vip' }, false);
    client.getBoolean('checkout', { userId: 'vip', plan: 'x' }, false); // same bucket-field identity: once
    await client.flush();
    expect(delivered).toEqual(['limits:{"userId":"a"}:{"max":1}', 'checkout:{"userId":"vip"}:true']);
    await client.refresh();
    expect(client.version).toBe(2);
    client.getJson('limits', { userId: 'a' }, null); // a new value for the same identity
    client.getBoolean('checkout', { userId: 'b' }, false); // a third identity: 'a' (the oldest) is forgotten
    client.getJson('limits', { userId: 'a' }, null);
    await client.flush();
    expect(delivered.slice(2)).toEqual(['limits:{"userId":"a"}:{"max":2}', expect.stringMatching(/^checkout:\{"userId":"b"\}:/), 'limits:{"userId":"a"}:{"max":2}']);
  });

  it('exposures: the same value served by another branch (variant) is delivered again', async () => {
    const delivered: Exposure[] = [];
    const byRule = rulesetBuilder({ envId: ENV, version: 2 })
      .flag('checkout', false, { rules: [{ conditions: [], value: true }] })
      .config('limits', { max: 1 })
      .build();
    const client = open({ fetch: scripted([ok(v1, '"a"'), ok(byRule, '"b"')]).fetch, exposures: { track: (batch) => void delivered.push(...batch) } });
    await vi.advanceTimersByTimeAsync(0);
    client.getBoolean('checkout', { userId: 'vip' }, false);
    await client.refresh();
    client.getBoolean('checkout', { userId: 'vip' }, false);
    client.getBoolean('checkout', { userId: 'vip' }, false);
    await client.flush();
    expect(delivered.map((e) => [e.value, e.reason, e.variant, e.rolloutPercent, e.version])).toEqual([
      [true, 'TARGETING_MATCH', 'target-id', 50, 1],
      [true, 'TARGETING_MATCH', 'rule-1', null, 2],
    ]);
  });

  it('close() ends a request whose fetch ignores its abort signal', async () => {
    const never: typeof fetch = () => new Promise<Response>(() => {});
    const client = open({ fetch: never, mode: 'stream' });
    const waiting = client.waitForReady().catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    await client.close();
    expect(await waiting).toMatchObject({ name: 'GradualApiError', message: 'the flag client is closed' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
