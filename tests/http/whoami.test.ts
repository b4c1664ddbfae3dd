import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/** `GET /auth/whoami`: what a key (or a session) may do, asked before writing. */
describe('GET /auth/whoami', () => {
  let t: TestServer;
  let owner: ClaimedInstance;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
  });
  afterAll(() => t?.close());

  it('describes an API key without its token, with its organization', async () => {
    const minted = await owner.session.createApiKey({
      path: { slug: 'acme' },
      body: { name: 'deploy agent', kind: 'agent', actions: ['read', 'write'], requiresApproval: true, resources: ['team-a-*'] },
    });
    const me = await t.asToken(minted.token).whoami();
    expect(me.type).toBe('api_key');
    if (me.type !== 'api_key') return;
    expect(me.apiKey).toMatchObject({ id: minted.id, name: 'deploy agent', kind: 'agent', requiresApproval: true, resources: ['team-a-*'] });
    expect(me.organization).toMatchObject({ slug: 'acme', name: 'Acme' });
    expect(JSON.stringify(me)).not.toContain(minted.token);

    const plain = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ci' } });
    const other = await t.asToken(plain.token).whoami();
    expect(other.type === 'api_key' && other.apiKey.requiresApproval).toBe(false);
  });

  it('describes a session as GET /auth/me does', async () => {
    const me = await owner.session.whoami();
    expect(me).toEqual({ type: 'session', session: await owner.session.getSession() });
  });

  it('answers 401 without credentials, and for a revoked key', async () => {
    await expectApiError(t.anonymous.whoami(), 401, 'unauthorized');
    const minted = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'short-lived' } });
    await owner.session.revokeApiKey({ path: { slug: 'acme', id: minted.id } });
    await expectApiError(t.asToken(minted.token).whoami(), 401, 'unauthorized');
  });
});
