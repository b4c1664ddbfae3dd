/**
 * The SDK against its own msw testing aids (`@gradual/sdk/testing`): what an
 * application test sees when it mocks Gradual with them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { createClient, createFlagClient, GradualApiError } from '@gradual/sdk';
import { bucket, compileRuleset, type Ruleset } from '@gradual/sdk/evaluation';
import { gradualHandlers, rulesetBuilder, when } from '@gradual/sdk/testing';

const baseUrl = 'http://gradual.test';
const token = 'svc_test_token';

const prod = rulesetBuilder({ envId: 'env-prod', version: 7, envKey: 'prod' })
  .flag('new-checkout', false, {
    rules: [{ conditions: [when('email', 'ends_with', '@acme.test')], value: true }],
    rollout: { percent: 30, newValue: true, targetIds: ['vip-1'] },
  })
  .flag('dark-mode', false, {
    // Gated rules: the rule's value only for admitted contexts.
    rules: [{ conditions: [when('plan', 'in', 'pro')], value: true }],
    rollout: { percent: 50 },
  })
  .config('checkout.limits', { maxItems: 10 }, { rules: [{ conditions: [when('age', 'gte', 18)], value: { maxItems: 50 } }] })
  .flag('kill-switch', true);

const gradual = gradualHandlers({ baseUrl, token, environments: { 'env-prod': prod, 'env-new': null } });
const server = setupServer(...gradual.handlers);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => gradual.reset());
afterAll(() => server.close());

const client = createClient({ baseUrl, token });

/** Reads server-sent events from a streaming response, one `{event, id, data}` at a time. */
function events(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async (): Promise<{ event: string; id: string; data: string } | 'end'> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const fields = Object.fromEntries(
          buffer
            .slice(0, end)
            .split('\n')
            .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
        );
        buffer = buffer.slice(end + 2);
        if (fields.event) return { event: fields.event, id: fields.id ?? '', data: fields.data ?? '' };
        continue;
      }
      const chunk = await reader.read();
      if (chunk.done) return 'end';
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  return next;
}

describe('rulesetBuilder', () => {
  it('fills in the server defaults', () => {
    const r = prod.build();
    expect(r.envId).toBe('env-prod');
    expect(r.version).toBe(7);
    expect(r.primitives.map((p) => p.key)).toEqual(['new-checkout', 'dark-mode', 'checkout.limits', 'kill-switch']);
    expect(r.primitives[0]).toEqual({
      kind: 'flag',
      key: 'new-checkout',
      value: false,
      rules: [{ conditions: [{ attribute: 'email', operator: 'ends_with', values: ['@acme.test'] }], value: true }],
      rollout: { id: 'rollout-new-checkout', status: 'active', percent: 30, seed: 'new-checkout:prod', bucketField: 'userId', newValue: true, targetIds: ['vip-1'] },
    });
    // A gated rollout has no newValue at all (not even undefined).
    expect('newValue' in r.primitives[1]!.rollout!).toBe(false);
    expect(r.primitives[3]).toEqual({ kind: 'flag', key: 'kill-switch', value: true, rules: [], rollout: null });
    expect(prod.build()).not.toBe(r);
    expect(() => rulesetBuilder().flag('x', true, { rollout: { percent: 101 } })).toThrow(RangeError);
  });
});

describe('gradualHandlers with the SDK client', () => {
  it('serves the ruleset the SDK types, with an ETag', async () => {
    const { data, response, notModified } = await client.withResponse.getRuleset({ path: { envId: 'env-prod' } });
    expect(notModified).toBe(false);
    if (data === undefined) throw new Error('no ruleset in a 200 answer');
    expect(data).toEqual(prod.build());
    expect(response.headers.get('etag')).toMatch(/^"7-[0-9a-f]+"$/);
    // The type the SDK gives is the evaluator's input.
    const ruleset: Ruleset = data;
    expect(compileRuleset(ruleset).keys).toHaveLength(4);
  });

  it('answers 304 to If-None-Match with the current ETag, 200 once a new version is published', async () => {
    const first = await fetch(`${baseUrl}/api/v1/envs/env-prod/ruleset`, { headers: { authorization: `Bearer ${token}` } });
    const etag = first.headers.get('etag')!;
    const again = await fetch(`${baseUrl}/api/v1/envs/env-prod/ruleset`, { headers: { authorization: `Bearer ${token}`, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    gradual.publish('env-prod', prod.build());
    const changed = await fetch(`${baseUrl}/api/v1/envs/env-prod/ruleset`, { headers: { authorization: `Bearer ${token}`, 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as Ruleset).version).toBe(8);
  });

  it('gives the SDK typed errors: 503 before the first ruleset, 404 for an unknown env, 401 without the token', async () => {
    const notCached = await client.getRuleset({ path: { envId: 'env-new' } }).catch((e: unknown) => e);
    expect(notCached).toBeInstanceOf(GradualApiError);
    expect(notCached).toMatchObject({ status: 503, code: 'ruleset_not_cached', retryAfterSeconds: 1 });
    expect((notCached as GradualApiError).requestId).toBeTruthy();

    await expect(client.getRuleset({ path: { envId: 'env-nope' } })).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(createClient({ baseUrl }).getRuleset({ path: { envId: 'env-prod' } })).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    await expect(createClient({ baseUrl, token: 'svc_other' }).evaluate({ path: { envId: 'env-prod' }, body: { context: {} } })).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    await expect(client.evaluate({ path: { envId: 'env-prod' }, body: { context: 'x' as never } })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
      fields: { context: expect.any(String) },
    });
  });

  it('evaluates with the real evaluator, so mocks agree with local evaluation', async () => {
    const compiled = compileRuleset(prod.build());
    const contexts = [
      {},
      { userId: 'vip-1' },
      { userId: 'u-1', email: 'ann@acme.test' },
      { userId: 'u-2', plan: 'pro', age: 30 },
      ...Array.from({ length: 40 }, (_, i) => ({ userId: `user-${i}`, plan: i % 2 ? 'pro' : 'free', age: i })),
    ];
    for (const context of contexts) {
      const answer = await client.evaluate({ path: { envId: 'env-prod' }, body: { context } });
      expect(answer.version).toBe(7);
      expect(answer.results).toEqual({ ...compiled.evaluateAll(context) });
    }
    const vip = await client.evaluate({ path: { envId: 'env-prod' }, body: { context: { userId: 'vip-1' }, keys: ['new-checkout', 'missing'] } });
    expect(vip.results).toEqual({
      'new-checkout': { kind: 'flag', value: true, reason: 'TARGETING_MATCH', variant: 'target-id', branch: 'target-id', bucket: bucket('new-checkout:prod', 'vip-1'), rolloutPercent: 30 },
    });
    expect(await client.evaluate({ path: { envId: 'env-new' }, body: { context: {} } })).toEqual({ version: 0, results: {} });
  });

  it('streams `ruleset` events: the current version on connect, each publish after', async () => {
    const res = await fetch(`${baseUrl}/api/v1/envs/env-prod/ruleset/stream`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const next = events(res);
    expect(await next()).toEqual({ event: 'ruleset', id: '7', data: '{"version":7}' });
    expect(gradual.openStreams('env-prod')).toBe(1);

    const published = gradual.publish('env-prod', rulesetBuilder({ version: 3 }).flag('new-checkout', true));
    expect(published).toMatchObject({ envId: 'env-prod', version: 8 });
    expect(await next()).toEqual({ event: 'ruleset', id: '8', data: '{"version":8}' });
    expect(await client.getRuleset({ path: { envId: 'env-prod' } })).toEqual(published);
    expect((await client.evaluate({ path: { envId: 'env-prod' }, body: { context: {} } })).results).toEqual({
      'new-checkout': { kind: 'flag', value: true, reason: 'STATIC', variant: 'default', branch: 'default', bucket: null, rolloutPercent: null },
    });

    gradual.publish('env-prod', { ...published, version: 20 });
    expect(await next()).toMatchObject({ id: '20' });
    gradual.disconnectStreams();
    expect(await next()).toBe('end');
    expect(gradual.openStreams()).toBe(0);
  });

  it('publishes the first ruleset of a new environment (stream starts at version 0)', async () => {
    const abort = new AbortController();
    const res = await fetch(`${baseUrl}/api/v1/envs/env-new/ruleset/stream`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
    const next = events(res);
    expect(await next()).toMatchObject({ data: '{"version":0}' });
    gradual.publish('env-new', rulesetBuilder().flag('a', 1));
    expect(await next()).toMatchObject({ data: '{"version":1}' });
    expect(await client.getRuleset({ path: { envId: 'env-new' } })).toMatchObject({ envId: 'env-new', version: 1 });
    // A client that goes away (abort) closes its stream in the mock.
    abort.abort();
    await expect.poll(() => gradual.openStreams('env-new')).toBe(0);
  });

  it('reset() restores the initial environments', async () => {
    gradual.publish('env-prod', rulesetBuilder({ version: 100 }));
    gradual.publish('env-brand-new', rulesetBuilder());
    gradual.reset();
    expect(gradual.ruleset('env-prod')).toEqual(prod.build());
    expect(gradual.ruleset('env-brand-new')).toBeUndefined();
    await expect(client.getRuleset({ path: { envId: 'env-brand-new' } })).rejects.toMatchObject({ status: 404 });
  });

  it('answers usage reports as the server does: unknown keys skipped, variants the flag cannot serve dropped', async () => {
    const entries = [
      { kind: 'flag' as const, key: 'new-checkout', variant: 'rule-1', count: 3 },
      { kind: 'flag' as const, key: 'new-checkout', variant: 'rule-2', count: 1 }, // one rule only
      { kind: 'flag' as const, key: 'kill-switch', variant: 'variant-a', count: 1 },
      { kind: 'config' as const, key: 'checkout.limits', variant: 'default', count: 2 },
      { kind: 'flag' as const, key: 'no-such-flag', variant: 'default', count: 1 },
    ];
    const body = { windowStart: '2026-11-22T12:00:00.000Z', windowEnd: '2026-11-22T12:01:00.000Z', entries };
    expect(await client.reportUsage({ path: { envId: 'env-prod' }, body })).toEqual({ accepted: 2, skipped: 1, dropped: 2, overLimit: 0 });
    expect(gradual.usageReports('env-prod')).toEqual([body]);
  });
});

describe('gradualHandlers with the live flags client', () => {
  it('serves createFlagClient in stream mode: ready, publish → change, reconnect after a dropped stream', async () => {
    const flags = createFlagClient({ baseUrl, token, envId: 'env-prod', logger: null });
    try {
      await flags.waitForReady({ timeoutMs: 5000 });
      expect(flags.version).toBe(7);
      expect(flags.getBoolean('new-checkout', { userId: 'vip-1' }, false)).toBe(true);
      expect(flags.getBoolean('new-checkout', { userId: 'x', email: 'ann@acme.test' }, false)).toBe(true);
      expect(flags.getJson('checkout.limits', { age: 20 }, {})).toEqual({ maxItems: 50 });
      expect(flags.evaluate('new-checkout', { userId: 'vip-1' })).toMatchObject({ reason: 'TARGETING_MATCH', variant: 'target-id', rolloutPercent: 30, version: 7 });
      await expect.poll(() => gradual.openStreams('env-prod')).toBe(1);

      const changed = new Promise<{ version: number; changedKeys: string[] }>((resolve) => flags.on('change', resolve));
      gradual.publish('env-prod', rulesetBuilder().flag('new-checkout', true).flag('kill-switch', true));
      expect(await changed).toMatchObject({ version: 8, changedKeys: expect.arrayContaining(['new-checkout', 'dark-mode', 'checkout.limits']) });
      expect(flags.getBoolean('new-checkout', { userId: 'anyone' }, false)).toBe(true);

      // A dropped stream is reopened, and later versions still arrive.
      gradual.disconnectStreams('env-prod');
      await expect.poll(() => gradual.openStreams('env-prod'), { timeout: 10_000 }).toBe(1);
      const again = new Promise<{ version: number }>((resolve) => flags.on('change', resolve));
      gradual.publish('env-prod', rulesetBuilder().flag('new-checkout', false));
      expect((await again).version).toBe(9);
      expect(flags.getBoolean('new-checkout', { userId: 'anyone' }, true)).toBe(false);
    } finally {
      await flags.close();
    }
    await expect.poll(() => gradual.openStreams()).toBe(0);
  });

  it('serves createFlagClient in poll mode, from 503 until the first ruleset', async () => {
    const flags = createFlagClient({ baseUrl, token, envId: 'env-new', mode: 'poll', pollIntervalMs: 50, backoff: { initialMs: 20, maxMs: 50 }, logger: null });
    try {
      const errors: string[] = [];
      flags.on('error', (e) => errors.push(e.code));
      await expect.poll(() => errors.length).toBeGreaterThan(0);
      expect(errors[0]).toBe('ruleset_not_cached');
      expect(flags.getString('greeting', {}, 'fallback')).toBe('fallback');
      gradual.publish('env-new', rulesetBuilder().flag('greeting', 'hello'));
      await flags.waitForReady({ timeoutMs: 5000 });
      expect(flags.getString('greeting', {}, 'fallback')).toBe('hello');
      expect(gradual.openStreams()).toBe(0);
    } finally {
      await flags.close();
    }
  });

  it('refuses a wrong token as the service does (fatal unauthorized)', async () => {
    const flags = createFlagClient({ baseUrl, token: 'svc_wrong', envId: 'env-prod', mode: 'poll', logger: null });
    try {
      await expect(flags.waitForReady({ timeoutMs: 5000 })).rejects.toMatchObject({ name: 'GradualApiError', status: 401, code: 'unauthorized', requestId: expect.stringMatching(/^mock-/) });
    } finally {
      await flags.close();
    }
  });
});
