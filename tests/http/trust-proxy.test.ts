import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * TRUST_PROXY decides the client address (`req.ip`) that IP allow-lists check: with one trusted
 * hop (TRUST_PROXY=1) the address a proxy adds to X-Forwarded-For is the client's; without it the
 * header is ignored and the connection's address counts.
 */
describe('TRUST_PROXY and the client address', () => {
  let behindProxy: TestServer;
  let direct: TestServer;
  let owners: ClaimedInstance[];

  beforeAll(async () => {
    [behindProxy, direct] = await Promise.all([startTestServer({ TRUST_PROXY: '1' }), startTestServer()]);
    owners = await Promise.all([claim(behindProxy), claim(direct)]);
  }, 180_000); // two servers (and, with GRADUAL_TEST_VIA_PRISM, two proxies)
  afterAll(async () => {
    await behindProxy?.close();
    await direct?.close();
  });

  /**
   * An API key allowed only from 203.0.113.0/24, and a GET /orgs/acme with it and an X-Forwarded-For,
   * straight to the server (never through the Prism proxy, which would be one more hop).
   */
  async function getOrgVia(t: TestServer, owner: ClaimedInstance, forwardedFor: string): Promise<Response> {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `office-${forwardedFor}`, actions: ['read'], ipAllowlist: ['203.0.113.0/24'] } });
    return fetch(`${t.server.url}/api/v1/orgs/acme`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': forwardedFor } });
  }

  it('with TRUST_PROXY=1, the last X-Forwarded-For address is the client', async () => {
    const allowed = await getOrgVia(behindProxy, owners[0]!, '203.0.113.7');
    expect(allowed.status).toBe(200);
    // Only the hop the proxy added counts: an address the client put in front of it does not.
    const spoofed = await getOrgVia(behindProxy, owners[0]!, '203.0.113.7, 198.51.100.1');
    expect(spoofed.status).toBe(403);
    expect(((await spoofed.json()) as { code: string }).code).toBe('token_ip_denied');
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored', async () => {
    const res = await getOrgVia(direct, owners[1]!, '203.0.113.7');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('token_ip_denied');
  });
});
