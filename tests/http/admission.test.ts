import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * Admission (server/src/http/admission.ts) charges an API key's request once, as the first step
 * of a route that acts for its caller: after the contract has validated the request, and never
 * on routes that take no caller.
 */
describe('admission', () => {
  let t: TestServer;
  let owner: ClaimedInstance;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    await t.setClock('2026-11-22T10:00:00Z');
  });
  afterAll(() => t?.close());

  it('charges an admitted request once, and neither a request the contract refuses nor a route without a caller', async () => {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'counted', rateLimitPerMin: 5 } });
    const get = (path: string) => fetch(`${t.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    const remaining = (res: Response) => res.headers.get('x-ratelimit-remaining');

    const first = await get('/orgs/acme/audit?limit=1');
    expect(first.status).toBe(200);
    expect(remaining(first)).toBe('4');

    const invalid = await get('/orgs/acme/audit?limit=0');
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { code: string }).code).toBe('invalid_request');

    const anonymous = await get('/invitations/not-a-token');
    expect(anonymous.status).toBe(404);

    const next = await get('/orgs/acme/audit?limit=1');
    expect(next.status).toBe(200);
    expect(remaining(next)).toBe('3');
  });
});
