/**
 * `GradualApiError` from the typed client: the HTTP response is kept when there is one, and a
 * request that never got an answer (network error) keeps fetch's own error as `cause`.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClient, GradualApiError } from '@gradual/sdk';

const envelope = { code: 'token_rate_limit', message: 'slow down', requestId: 'req-123', details: { retryAfterSeconds: 7 } };

describe('GradualApiError', () => {
  it('carries the response of a non-2xx answer', async () => {
    let sent: Response | undefined;
    const client = createClient({
      baseUrl: 'http://gradual.test',
      token: 'svc_x',
      fetch: () => {
        sent = new Response(JSON.stringify(envelope), { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '7', 'x-request-id': 'req-123' } });
        return Promise.resolve(sent);
      },
    });
    const err = await client.getSession().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GradualApiError);
    const api = err as GradualApiError;
    expect(api.status).toBe(429);
    expect(api.code).toBe('token_rate_limit');
    expect(api.retryAfterSeconds).toBe(7);
    expect(api.response).toBe(sent);
    expect(api.response?.status).toBe(429);
    expect(api.response?.headers.get('x-request-id')).toBe('req-123');
    expect(api.cause).toBeUndefined();
  });

  it('keeps the error a custom fetch threw as cause', async () => {
    const boom = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    const client = createClient({
      baseUrl: 'http://gradual.test',
      fetch: () => Promise.reject(boom),
    });
    const err = await client.getSession().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GradualApiError);
    const api = err as GradualApiError;
    expect(api.status).toBe(0);
    expect(api.code).toBe('service_unavailable');
    expect(api.response).toBeUndefined();
    expect(api.cause).toBe(boom);
    expect(api.message).toContain('fetch failed');
  });

  it('keeps a real network error (connection refused) as cause', async () => {
    // A port that was just free: nothing listens on it.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}` });
    const err = await client.getSession().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GradualApiError);
    const api = err as GradualApiError;
    expect(api.status).toBe(0);
    expect(api.response).toBeUndefined();
    expect(api.cause).toBeInstanceOf(TypeError);
    expect(String((api.cause as TypeError).cause)).toMatch(/ECONNREFUSED/);
  });
});
