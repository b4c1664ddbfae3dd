import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/** Every error answers the spec's envelope with a precise code; no request shape produces a 500. */
describe('error envelope', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;

  const raw = (path: string, init: RequestInit = {}) =>
    fetch(`${t.url}${path}`, {
      ...init,
      headers: { cookie: `svc_session=${owner.sessionToken}`, ...(init.headers as Record<string, string>) },
    });

  const expectEnvelope = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    const body = (await res.json()) as { code: string; message: string; requestId: string; fields?: Record<string, string> };
    expect(body.code).toBe(code);
    expect(typeof body.message).toBe('string');
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    return body;
  };

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'f', name: 'F', valueType: 'number', defaultValue: 1 } });
  });
  afterAll(() => t?.close());

  it('spec "Versioning" 1: endpoints live under /api/v1; unknown routes (also under /api/v2) answer 404 not_found in the envelope', async () => {
    await expectEnvelope(await raw('/api/v1/nope'), 404, 'not_found');
    await expectEnvelope(await raw('/api/v2/orgs'), 404, 'not_found');
    await expectEnvelope(await raw('/api/v1/orgs/acme', { method: 'PATCH' }), 404, 'not_found');
  });

  it('spec "Error envelope": non-2xx answers carry code, message and requestId; fields only on validation errors', async () => {
    for (const [res, status, code] of [
      [await raw('/api/v1/envs/00000000-0000-4000-8000-000000000000'), 404, 'not_found'],
      [await fetch(`${t.url}/api/v1/auth/me`), 401, 'unauthorized'],
    ] as const) {
      const body = await expectEnvelope(res, status, code);
      expect(body.requestId).toMatch(/\S/);
      expect(body).not.toHaveProperty('fields');
    }
    const invalid = await expectEnvelope(await raw('/api/v1/orgs/acme/projects', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 400, 'invalid_request');
    expect(Object.keys(invalid.fields ?? {})).toEqual(expect.arrayContaining(['key', 'name']));
  });

  it('spec "Code catalog" invalid_request: malformed JSON answers 400 invalid_request with fields', async () => {
    const res = await raw('/api/v1/orgs/acme/projects', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"key": ' });
    const body = await expectEnvelope(res, 400, 'invalid_request');
    expect(body.fields).toEqual({ body: 'malformed JSON' });
  });

  it('answers a body over 1 MiB with 413 and the envelope', async () => {
    const big = JSON.stringify({ key: 'big', name: 'x'.repeat(1024 * 1024) });
    await expectEnvelope(await raw('/api/v1/orgs/acme/projects', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big }), 413, 'invalid_request');
  });

  it('answers a non-JSON body as a validation failure, not a crash', async () => {
    const res = await raw('/api/v1/orgs/acme/projects', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'key=web' });
    const body = await expectEnvelope(res, 400, 'invalid_request');
    expect(Object.keys(body.fields ?? {})).toEqual(expect.arrayContaining(['key', 'name']));
  });

  it('spec "Error envelope": validation errors map dotted field paths to per-field messages in fields', async () => {
    const err = await expectApiError(
      owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'bad key!', name: '' } }),
      400,
      'invalid_request',
    );
    expect(Object.keys(err.fields!).sort()).toEqual(['key', 'name']);

    const rulesErr = await expectApiError(
      owner.session.setFlagRules({
        path: { envId, key: 'f' },
        body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'between' as never, values: [] }], value: 2 }] },
      }),
      400,
      'invalid_request',
    );
    expect(Object.keys(rulesErr.fields!).sort()).toEqual(['rules.0.conditions.0.operator', 'rules.0.conditions.0.values']);

    const queryErr = await expectApiError(owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 201 } }), 400, 'invalid_request');
    expect(queryErr.fields).toHaveProperty('limit');
    const headerErr = await expectApiError(
      owner.session.setFlagValue({ path: { envId, key: 'f' }, body: { value: 3 }, headers: { 'x-audit-reason': 'r'.repeat(501) } }),
      400,
      'invalid_request',
    );
    expect(headerErr.fields).toHaveProperty(['headers.x-audit-reason']);
  });

  it('checks values against the flag type', async () => {
    const err = await expectApiError(owner.session.setFlagValue({ path: { envId, key: 'f' }, body: { value: 'three' } }), 400, 'invalid_request');
    expect(err.fields).toEqual({ value: 'must be a number' });
    const missing = await expectApiError(owner.session.setFlagValue({ path: { envId, key: 'f' }, body: {} }), 400, 'invalid_request');
    expect(missing.fields).toEqual({ value: 'Required' });
    const ruleErr = await expectApiError(
      owner.session.setFlagRules({ path: { envId, key: 'f' }, body: { rules: [{ conditions: [], value: 1 }, { conditions: [], value: true }] } }),
      400,
      'invalid_request',
    );
    expect(ruleErr.fields).toEqual({ 'rules.1.value': 'must be a number' });
    const created = await expectApiError(
      owner.session.createFlag({ path: { id: projectId }, body: { key: 'g', name: 'G', defaultValue: 'yes' } }),
      400,
      'invalid_request',
    );
    expect(created.fields).toEqual({ defaultValue: 'must be a boolean' });
  });

  it('spec "Code catalog" not_found: malformed and unknown ids answer 404 not_found', async () => {
    await expectApiError(owner.session.getProject({ path: { id: 'not-a-uuid' } }), 404, 'not_found');
    await expectApiError(owner.session.getEnvironment({ path: { envId: '00000000-0000-4000-8000-000000000000' } }), 404, 'not_found');
    await expectApiError(owner.session.getFlagState({ path: { envId, key: 'missing' } }), 404, 'not_found');
    await expectApiError(owner.session.getAuditEvent({ path: { id: "'; drop table users; --" } }), 404, 'not_found');
    await expectApiError(owner.session.getOrg({ path: { slug: 'x'.repeat(500) } }), 404, 'not_found');
  });

  it('refuses duplicate keys and slugs with 409', async () => {
    const dup = await expectApiError(owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Again' } }), 409, 'key_in_use');
    expect(dup.fields).toEqual({ key: 'already in use' });
    await expectApiError(owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Again' } }), 409, 'key_in_use');
    await expectApiError(owner.session.createFlag({ path: { id: projectId }, body: { key: 'f', name: 'Again', defaultValue: true } }), 409, 'key_in_use');
    await expectApiError(owner.session.createOrg({ body: { name: 'Acme again', slug: 'acme' } }), 409, 'slug_unavailable');
  });

  it('derives an org slug from the name and makes the caller its owner', async () => {
    const org = await owner.session.createOrg({ body: { name: 'Ünïcode Labs, Inc.' } });
    expect(org.slug).toBe('unicode-labs-inc');
    const me = await owner.session.getSession();
    expect(me.organizations.find((o) => o.slug === 'unicode-labs-inc')?.role).toBe('owner');
  });

  it('spec "Code catalog" unauthorized: no or invalid credentials answer 401 unauthorized', async () => {
    await expectApiError(t.anonymous.getOrg({ path: { slug: 'acme' } }), 401, 'unauthorized');
    await expectApiError(t.asToken('svc_short').getOrg({ path: { slug: 'acme' } }), 401, 'unauthorized');
    await expectApiError(t.asToken(`svc_${'A'.repeat(32)}`).getOrg({ path: { slug: 'acme' } }), 401, 'unauthorized');
    const basic = await fetch(`${t.url}/api/v1/orgs/acme`, { headers: { authorization: 'Basic Zm9vOmJhcg==' } });
    await expectEnvelope(basic, 401, 'unauthorized');
  });

  it('spec "Code catalog" forbidden: an authenticated cross-origin session mutation answers 403 forbidden; same-origin and Origin-less ones pass', async () => {
    const post = (origin?: string) =>
      raw('/api/v1/orgs/acme/projects', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        body: JSON.stringify({ key: `csrf-${origin ? origin.length : 0}`, name: 'CSRF' }),
      });
    await expectEnvelope(await post('https://evil.example'), 403, 'forbidden');
    expect((await post()).status).toBe(201);
    // Without PUBLIC_URL the server's own loopback origin is the site (the test server's port is the system's pick).
    expect((await post(new URL(t.server.url).origin)).status).toBe(201);
  });
});
