/**
 * The typed REST client against a real server: conditional GETs (304), writes an approval can
 * divert (applied or proposed), path parameters checked before anything is sent, and the rate
 * limit of a refused request.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createClient, GradualApiError, isGradualApiError, type GradualClient } from '@gradual/sdk';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

let t: TestServer;
let owner: ClaimedInstance;
let projectId: string;
let envId: string;

beforeAll(async () => {
  t = await startTestServer();
  owner = await claim(t);
  projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
  envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
  await owner.session.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
  await owner.session.createFlag({ path: { id: projectId }, body: { key: 'search', name: 'Search', defaultValue: false } });
});
afterAll(() => t?.close());

/** The error `promise` rejects with; fails when it resolves or rejects with something else. */
async function apiError(promise: Promise<unknown>): Promise<GradualApiError> {
  const err = await promise.then(
    (value: unknown) => new Error(`expected a GradualApiError, resolved ${JSON.stringify(value)}`),
    (e: unknown) => e,
  );
  if (!isGradualApiError(err)) throw err instanceof Error ? err : new Error(String(err));
  return err;
}

describe('conditional GETs', () => {
  it('resolves withResponse with notModified on a 304, and the body with notModified false otherwise', async () => {
    const first = await owner.session.withResponse.getFlagRollout({ path: { envId, key: 'checkout' } }).catch(() => undefined);
    // No rollout yet: 404. Start one so there is something to tag.
    expect(first).toBeUndefined();
    await owner.session.putFlagRollout({ path: { envId, key: 'checkout' }, body: { percent: 10, newValue: true } });
    const full = await owner.session.withResponse.getFlagRollout({ path: { envId, key: 'checkout' } });
    expect(full.notModified).toBe(false);
    expect(full.data).toMatchObject({ primitiveKey: 'checkout', percent: 10 });
    const etag = full.response.headers.get('etag');
    expect(etag).toMatch(/^"/);

    const same = await owner.session.withResponse.getFlagRollout({ path: { envId, key: 'checkout' }, headers: { 'if-none-match': etag! } });
    expect(same.response.status).toBe(304);
    expect(same.notModified).toBe(true);
    expect(same.data).toBeUndefined();
  });

  it('gives the ruleset 304 the same way, and a plain call refuses it with a pointer to withResponse', async () => {
    const first = await owner.session.withResponse.getRuleset({ path: { envId } });
    if (first.notModified) throw new Error('304 without If-None-Match');
    expect(first.data.envId).toBe(envId);
    const tag = first.response.headers.get('etag')!;
    const again = await owner.session.withResponse.getRuleset({ path: { envId }, headers: { 'if-none-match': tag } });
    expect(again).toMatchObject({ notModified: true, data: undefined });
    expect(again.response.status).toBe(304);

    const err = await apiError(owner.session.getRuleset({ path: { envId }, headers: { 'if-none-match': tag } }));
    expect(err.status).toBe(304);
    expect(err.code).toBe('invalid_request');
    expect(err.response?.status).toBe(304);
    expect(err.message).toContain('withResponse.getRuleset()');
  });
});

describe('the operations that resolve a MutationResult', () => {
  it('are exactly those whose responses in openapi.yaml include a 202 Proposal', async () => {
    type Operation = { operationId: string; requestBody?: object; responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> };
    const spec = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, Operation>> };
    const operations = Object.entries(spec.paths).flatMap(([path, methods]) => Object.values(methods).map((op) => ({ path, op })));
    const divertible = operations
      .filter(({ op }) => op.responses['202']?.content?.['application/json']?.schema?.$ref === '#/components/schemas/Proposal')
      .map(({ op }) => op.operationId);
    expect(divertible.length).toBeGreaterThan(10);

    // Every operation answered 200 with the same body: wrapped exactly when the spec says it can be diverted.
    const body = { answered: true };
    const client = createClient({ baseUrl: 'http://gradual.test', fetch: () => Promise.resolve(Response.json(body)) });
    const wrapped: string[] = [];
    for (const { path, op } of operations) {
      const params = Object.fromEntries([...path.matchAll(/\{([^{}]+)\}/g)].map(([, name]) => [name, 'x']));
      const call = Reflect.get(client, op.operationId) as ((options: object) => Promise<unknown>) | undefined;
      if (typeof call !== 'function') throw new Error(`no SDK method ${op.operationId}`);
      const result: unknown = await call({ path: params, ...(op.requestBody ? { body: {} } : {}) });
      if (JSON.stringify(result) === JSON.stringify({ kind: 'applied', data: body })) wrapped.push(op.operationId);
      else expect(result, op.operationId).toEqual(body);
    }
    expect(wrapped.sort()).toEqual(divertible.sort());
  });
});

describe('writes an approval can divert', () => {
  let approval: GradualClient;
  beforeAll(async () => {
    const minted = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'needs approval', requiresApproval: true } });
    approval = t.asToken(minted.token);
  });

  it('resolves applied with the body for a direct write', async () => {
    const result = await owner.session.putFlagRollout({ path: { envId, key: 'search' }, body: { percent: 5, newValue: true } });
    expect(result.kind).toBe('applied');
    if (result.kind !== 'applied') return;
    expect(result.data).toMatchObject({ primitiveKey: 'search', percent: 5, status: 'active' });

    const added = await owner.session.addFlagTargetIds({ path: { envId, key: 'search' }, body: { targetIds: ['u1', 'u2'] } });
    expect(added).toEqual({ kind: 'applied', data: { added: 2, count: 2 } });
  });

  it('resolves proposed with the stored proposal for an approval-required key, from the 202', async () => {
    const { data, response } = await approval.withResponse.putFlagRollout({ path: { envId, key: 'search' }, body: { percent: 20 } });
    expect(response.status).toBe(202);
    expect(data.kind).toBe('proposed');
    if (data.kind !== 'proposed') return;
    // The proposal's own `kind` names the mutation; the result's `kind` says what happened.
    expect(data.proposal).toMatchObject({ kind: 'rollout.put', status: 'pending', envId });
    expect(response.headers.get('location')).toBe(`/api/v1/proposals/${data.proposal.id}`);
    // Nothing changed until an admin applies it.
    expect(await owner.session.getFlagRollout({ path: { envId, key: 'search' } })).toMatchObject({ percent: 5 });

    const removal = await approval.removeFlagTargetIds({ path: { envId, key: 'search' }, body: { targetIds: ['u1'] } });
    expect(removal).toMatchObject({ kind: 'proposed', proposal: { kind: 'target_ids.remove' } });
  });

  it('resolves applied with undefined data for a 204', async () => {
    const deleted = await owner.session.withResponse.deleteFlagRollout({ path: { envId, key: 'search' } });
    expect(deleted.response.status).toBe(204);
    expect(deleted.data).toEqual({ kind: 'applied', data: undefined });
  });
});

describe('path parameters', () => {
  /** A client on the test server that counts what it sends. */
  const counting = () => {
    const sent: string[] = [];
    const client = createClient({
      baseUrl: t.url,
      sessionToken: owner.sessionToken,
      fetch: (input, init) => {
        sent.push(input instanceof Request ? input.url : String(input));
        return fetch(input, init);
      },
    });
    return { client, sent };
  };

  it('refuses a missing, misspelled or empty path parameter without sending anything', async () => {
    const { client, sent } = counting();
    // The misspelling a type check would catch, as an untyped caller (JavaScript, JSON input) sends it.
    const misspelled: { envId: string; key: string; targetId: string } = JSON.parse(JSON.stringify({ envId, key: 'checkout', targetID: 'u1' }));
    const err = await apiError(client.checkFlagTargetId({ path: misspelled }));
    expect(err).toBeInstanceOf(GradualApiError);
    expect(err.status).toBe(0);
    expect(err.code).toBe('invalid_request');
    expect(err.response).toBeUndefined();
    expect(err.fields).toEqual({ targetId: 'missing path parameter' });
    expect(err.message).toContain('targetId');

    const empty = await apiError(client.getFlagRollout({ path: { envId: '', key: '' } }));
    expect(empty.fields).toEqual({ envId: 'must be a non-empty string or a number', key: 'must be a non-empty string or a number' });
    expect(empty.code).toBe('invalid_request');

    const none = await apiError(client.withResponse.getEnvironment({ path: JSON.parse('{}') }));
    expect(none.fields).toEqual({ envId: 'missing path parameter' });

    expect(sent).toEqual([]);
    // Given properly, the same calls go out.
    expect(await client.checkFlagTargetId({ path: { envId, key: 'checkout', targetId: 'u1' } })).toEqual({ contains: false });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('/target-ids/contains/u1');
  });
});

describe('rate limits', () => {
  it('puts the refusing bucket on the 429 as rateLimit, beside retryAfterSeconds', async () => {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'slow', rateLimitPerMin: 2 } });
    const api = t.asToken(token);
    const ok = await api.withResponse.getEnvironment({ path: { envId } });
    expect(ok.response.headers.get('x-ratelimit-limit')).toBe('2');
    await api.getEnvironment({ path: { envId } });
    const err = await apiError(api.getEnvironment({ path: { envId } }));
    expect(err.status).toBe(429);
    expect(err.code).toBe('token_rate_limit');
    expect(err.rateLimit).toEqual({ limit: 2, remaining: 0, resetSeconds: expect.any(Number) });
    expect(err.rateLimit!.resetSeconds).toBeGreaterThan(0);
    expect(err.rateLimit!.resetSeconds).toBeLessThanOrEqual(60);
    expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(err.retryAfterSeconds).toBeLessThanOrEqual(30);
  });

  it('retries a refused request with retry on, reads and writes alike, once the bucket has refilled', async () => {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'patient', rateLimitPerMin: 1 } });
    const seen: string[] = [];
    // Sees every attempt; a 429 moves the server's clock a minute on, so the bucket is full for the retry.
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const response = await globalThis.fetch(request);
      seen.push(`${request.method} ${response.status}`);
      if (response.status === 429) await t.advanceClock(60);
      return response;
    };
    const api = createClient({ baseUrl: t.url, token, fetch, retry: { maxMs: 20 } });
    expect((await api.getEnvironment({ path: { envId } })).id).toBe(envId);
    expect((await api.getEnvironment({ path: { envId } })).id).toBe(envId);
    expect(seen).toEqual(['GET 200', 'GET 429', 'GET 200']);

    seen.length = 0;
    const result = await api.putFlagRollout({ path: { envId, key: 'search' }, body: { percent: 5, newValue: true } });
    expect(result.kind).toBe('applied');
    expect(seen).toEqual(['PUT 429', 'PUT 200']);
  });

  it('gives up after the retries it was given, with the last answer as the error', async () => {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'hurried', rateLimitPerMin: 1 } });
    let attempts = 0;
    const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      attempts++;
      return globalThis.fetch(input, init);
    };
    const api = createClient({ baseUrl: t.url, token, fetch, retry: { retries: 2, initialMs: 1, maxMs: 5 } });
    await api.getEnvironment({ path: { envId } });
    attempts = 0;
    const err = await apiError(api.getEnvironment({ path: { envId } }));
    expect(err.status).toBe(429);
    expect(attempts).toBe(3);
    // Without retry, the first 429 is the answer.
    attempts = 0;
    const once = createClient({ baseUrl: t.url, token, fetch });
    expect((await apiError(once.getEnvironment({ path: { envId } }))).status).toBe(429);
    expect(attempts).toBe(1);
  });

  it('leaves rateLimit undefined on an answer without the headers', async () => {
    const err = await apiError(t.anonymous.getEnvironment({ path: { envId } }));
    expect(err.status).toBe(401);
    expect(err.rateLimit).toBeUndefined();
  });
});
