import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { scrapeMetrics } from '../support/metrics.js';

/**
 * The environment-bound key kinds: `sdk` keys (`sdk_…`) read one environment; `client` keys
 * (`pub_…`, shipped in web pages) only evaluate, and only client-visible flags and configs, with a
 * per-address rate limit besides the key's own. `X-API-Key` stands for `Authorization: Bearer`.
 */
describe('SDK and client API keys', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let prod: string;
  let staging: string;

  const mint = (body: Parameters<ClaimedInstance['session']['createApiKey']>[0]['body']) => owner.session.createApiKey({ path: { slug: 'acme' }, body });
  const evaluateRaw = (envId: string, headers: Record<string, string>) =>
    fetch(`${t.url}/api/v1/envs/${envId}/evaluate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ context: { userId: 'u1' } }),
    });

  beforeAll(async () => {
    t = await startTestServer({ CLIENT_KEY_RATE_LIMIT_PER_IP_PER_MIN: '40' });
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    prod = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    staging = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', defaultValue: true, clientVisible: true } });
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'internal', name: 'Internal', defaultValue: true } });
    await owner.session.createConfig({ path: { id: projectId }, body: { key: 'theme', name: 'Theme', defaultValue: { color: 'blue' }, clientVisible: true } });
  });
  afterAll(() => t?.close());

  it('mints sdk and client keys bound to one environment, read only, with their own token prefixes', async () => {
    const sdk = await mint({ name: 'backend', kind: 'sdk', environments: [prod] });
    expect(sdk).toMatchObject({ kind: 'sdk', actions: ['read'], environments: [prod], requiresApproval: false, allowedOrigins: null });
    expect(sdk.token).toMatch(/^sdk_[A-Za-z0-9]{32}$/);
    expect(sdk.tokenPrefix).toBe(sdk.token.slice(0, 8));
    const client = await mint({ name: 'web page', kind: 'client', environments: [prod], actions: ['read'], allowedOrigins: ['https://App.Example.com', 'http://localhost:5173', 'https://app.example.com'] });
    expect(client).toMatchObject({ kind: 'client', actions: ['read'], environments: [prod], allowedOrigins: ['https://app.example.com', 'http://localhost:5173'] });
    expect(client.token).toMatch(/^pub_[A-Za-z0-9]{32}$/);
    const api = await mint({ name: 'script' });
    expect(api.token).toMatch(/^svc_[A-Za-z0-9]{32}$/);
    expect(api.allowedOrigins).toBeNull();
    const listed = await owner.session.listApiKeys({ path: { slug: 'acme' } });
    expect(listed.find((k) => k.id === client.id)?.allowedOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    const audit = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'api_token' } });
    const created = audit.events.filter((e) => e.action === 'api_token.created').map((e) => e.resourceId);
    expect(created).toEqual(expect.arrayContaining([sdk.id, client.id]));
  });

  it('refuses sdk and client keys without exactly one environment of the org, with write, approval or misplaced origins', async () => {
    const refused = async (body: Parameters<typeof mint>[0], field: string) => {
      const err = await expectApiError(mint(body), 400, 'invalid_request');
      expect(Object.keys(err.fields ?? {})).toContain(field);
    };
    for (const kind of ['sdk', 'client'] as const) {
      await refused({ name: 'k', kind }, 'environments');
      await refused({ name: 'k', kind, environments: [] }, 'environments');
      await refused({ name: 'k', kind, environments: [prod, staging] }, 'environments');
      await refused({ name: 'k', kind, environments: [prod], actions: ['write'] }, 'actions');
      await refused({ name: 'k', kind, environments: [prod], actions: ['read', 'write'] }, 'actions');
      await refused({ name: 'k', kind, environments: [prod], requiresApproval: true }, 'requiresApproval');
      await refused({ name: 'k', kind, environments: ['00000000-0000-4000-8000-000000000000'] }, 'environments.0');
    }
    await refused({ name: 'k', kind: 'sdk', environments: [prod], allowedOrigins: ['https://a.example.com'] }, 'allowedOrigins');
    await refused({ name: 'k', kind: 'api', allowedOrigins: ['https://a.example.com'] }, 'allowedOrigins');
    await refused({ name: 'k', allowedOrigins: ['https://a.example.com'] }, 'allowedOrigins');
    // An environment of another organization is not one of this org's.
    const other = await owner.session.createOrg({ body: { slug: 'other', name: 'Other' } });
    const otherProject = await owner.session.createProject({ path: { slug: other.slug }, body: { key: 'p', name: 'P' } });
    const otherEnv = await owner.session.createEnvironment({ path: { id: otherProject.id }, body: { key: 'e', name: 'E' } });
    await refused({ name: 'k', kind: 'sdk', environments: [otherEnv.id] }, 'environments.0');
  });

  it('takes X-API-Key wherever it takes Authorization: Bearer', async () => {
    const sdk = await mint({ name: 'ofrep provider', kind: 'sdk', environments: [prod] });
    const res = await fetch(`${t.url}/api/v1/envs/${prod}/ruleset`, { headers: { 'x-api-key': sdk.token } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { envId: string }).envId).toBe(prod);
    const evaluated = await evaluateRaw(prod, { 'x-api-key': sdk.token });
    expect(evaluated.status).toBe(200);
    // A write with X-API-Key and no cookie is no cross-site form post: the key is refused by scope, not by the origin check.
    const write = await fetch(`${t.url}/api/v1/envs/${prod}/flags/banner/value`, {
      method: 'PUT',
      headers: { 'x-api-key': sdk.token, 'content-type': 'application/json', origin: 'https://evil.example.com' },
      body: JSON.stringify({ value: false }),
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { code: string }).code).toBe('token_action_denied');
    const bad = await fetch(`${t.url}/api/v1/envs/${prod}/ruleset`, { headers: { 'x-api-key': 'sdk_not-a-key' } });
    expect(bad.status).toBe(401);
    // The answer cache (in front of the app) reads X-API-Key too: warm polls are answered from memory.
    const fromMemory = async () => (await scrapeMetrics(t.server.url)).sample('gradual_ruleset_polls_from_memory_total');
    const tag = res.headers.get('etag')!;
    const before = await fromMemory();
    for (let i = 0; i < 5 && (await fromMemory()) === before; i++) {
      expect((await fetch(`${t.url}/api/v1/envs/${prod}/ruleset`, { headers: { 'x-api-key': sdk.token, 'if-none-match': tag } })).status).toBe(304);
    }
    expect(await fromMemory()).toBeGreaterThan(before);
    // Authorization wins when both are sent.
    const both = await fetch(`${t.url}/api/v1/envs/${prod}/ruleset`, { headers: { authorization: `Bearer ${sdk.token}`, 'x-api-key': 'garbage' } });
    expect(both.status).toBe(200);
  });

  it('an sdk key reads the ruleset of its environment, nothing of others, and writes nothing', async () => {
    const { token } = await mint({ name: 'sdk reader', kind: 'sdk', environments: [prod] });
    const api = t.asToken(token);
    const ruleset = await api.getRuleset({ path: { envId: prod } });
    expect(ruleset.primitives.map((p) => p.key).sort()).toEqual(['banner', 'internal', 'theme']);
    const evaluated = await api.evaluate({ path: { envId: prod }, body: { context: {} } });
    expect(Object.keys(evaluated.results).sort()).toEqual(['banner', 'internal', 'theme']);
    await expectApiError(api.getRuleset({ path: { envId: staging } }), 403, 'token_env_out_of_scope');
    await expectApiError(api.evaluate({ path: { envId: staging }, body: { context: {} } }), 403, 'token_env_out_of_scope');
    await expectApiError(api.setFlagValue({ path: { envId: prod, key: 'banner' }, body: { value: false } }), 403, 'token_action_denied');
    await expectApiError(api.updateFlag({ path: { id: projectId, key: 'banner' }, body: { name: 'x' } }), 403, 'token_action_denied');
    expect((await api.whoami()).type).toBe('api_key');
  });

  it('a client key evaluates only client-visible flags and configs, and may do nothing else', async () => {
    const { token } = await mint({ name: 'browser', kind: 'client', environments: [prod] });
    const api = t.asToken(token);
    const evaluated = await api.evaluate({ path: { envId: prod }, body: { context: { userId: 'u1' } } });
    expect(Object.keys(evaluated.results).sort()).toEqual(['banner', 'theme']);
    // Asking for a hidden flag by name answers nothing for it; the same again too, never replayed from memory.
    const fromMemory = async () => (await scrapeMetrics(t.server.url)).sample('gradual_evaluations_from_memory_total');
    const before = await fromMemory();
    for (let i = 0; i < 3; i++) {
      const named = await api.evaluate({ path: { envId: prod }, body: { context: {}, keys: ['internal', 'banner'] } });
      expect(Object.keys(named.results)).toEqual(['banner']);
    }
    expect(await fromMemory()).toBe(before);
    await expectApiError(api.evaluate({ path: { envId: staging }, body: { context: {} } }), 403, 'token_env_out_of_scope');
    const denied = (p: Promise<unknown>) => expectApiError(p, 403, 'scope_denied');
    await denied(api.getRuleset({ path: { envId: prod } }));
    const stream = await fetch(`${t.url}/api/v1/envs/${prod}/ruleset/stream`, { headers: { authorization: `Bearer ${token}` } });
    expect(stream.status).toBe(403);
    expect(((await stream.json()) as { code: string }).code).toBe('scope_denied');
    await denied(api.listFlags({ path: { id: projectId } }));
    await denied(api.listConfigs({ path: { id: projectId } }));
    await denied(api.getFlagState({ path: { envId: prod, key: 'banner' } }));
    await denied(api.listFlagStates({ path: { envId: prod } }));
    await denied(api.getEnvironment({ path: { envId: prod } }));
    await denied(api.listProjects({ path: { slug: 'acme' } }));
    await denied(api.listAuditEvents({ path: { slug: 'acme' }, query: {} }));
    await denied(api.whoami());
    const err = await denied(api.getOrg({ path: { slug: 'acme' } }));
    expect(err).toMatchObject({ code: 'scope_denied' });
  });

  it('changing clientVisible moves every environment to a new version and changes what client keys see', async () => {
    const { token } = await mint({ name: 'browser 2', kind: 'client', environments: [prod] });
    const api = t.asToken(token);
    const before = await Promise.all([prod, staging].map((envId) => owner.session.getEnvironment({ path: { envId } })));
    const etag = (await fetch(`${t.url}/api/v1/envs/${prod}/ruleset`, { headers: { cookie: `svc_session=${owner.sessionToken}` } })).headers.get('etag');

    const updated = await owner.session.updateFlag({ path: { id: projectId, key: 'internal' }, body: { clientVisible: true, description: 'Shown in the app' } });
    expect(updated).toMatchObject({ key: 'internal', clientVisible: true, description: 'Shown in the app', name: 'Internal' });
    const after = await Promise.all([prod, staging].map((envId) => owner.session.getEnvironment({ path: { envId } })));
    expect(after.map((e) => e.version)).toEqual(before.map((e) => e.version + 1));
    const etagAfter = (await fetch(`${t.url}/api/v1/envs/${prod}/ruleset`, { headers: { cookie: `svc_session=${owner.sessionToken}` } })).headers.get('etag');
    expect(etagAfter).not.toBe(etag);
    expect(Object.keys((await api.evaluate({ path: { envId: prod }, body: { context: {} } })).results).sort()).toEqual(['banner', 'internal', 'theme']);
    expect((await owner.session.listFlags({ path: { id: projectId } })).find((f) => f.key === 'internal')?.clientVisible).toBe(true);

    // Name and description alone change no environment.
    await owner.session.updateFlag({ path: { id: projectId, key: 'internal' }, body: { name: 'Internal banner' } });
    expect((await owner.session.getEnvironment({ path: { envId: prod } })).version).toBe(after[0]!.version);

    const audit = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'flag', resourceKey: 'internal' } });
    const updates = audit.events.filter((e) => e.action === 'flag.updated');
    expect(updates.length).toBe(2);
    const detail = await owner.session.getAuditEvent({ path: { id: updates[1]!.id } });
    expect(detail).toMatchObject({ previousValue: { clientVisible: false, description: null }, newValue: { clientVisible: true, description: 'Shown in the app' } });

    await owner.session.updateConfig({ path: { id: projectId, key: 'theme' }, body: { clientVisible: false } });
    expect((await owner.session.getEnvironment({ path: { envId: prod } })).version).toBe(after[0]!.version + 1);
    expect(Object.keys((await api.evaluate({ path: { envId: prod }, body: { context: {} } })).results).sort()).toEqual(['banner', 'internal']);
    expect((await owner.session.listConfigs({ path: { id: projectId } }))[0]).toMatchObject({ key: 'theme', clientVisible: false });
    await owner.session.updateFlag({ path: { id: projectId, key: 'internal' }, body: { clientVisible: false } });
  });

  it('PATCH: 404 for an unknown key, 400 for an empty body; keys that cannot reach every environment or need approval are refused', async () => {
    await expectApiError(owner.session.updateFlag({ path: { id: projectId, key: 'nope' }, body: { name: 'x' } }), 404, 'not_found');
    await expectApiError(owner.session.updateConfig({ path: { id: projectId, key: 'banner' }, body: { name: 'x' } }), 404, 'not_found');
    await expectApiError(owner.session.updateFlag({ path: { id: projectId, key: 'banner' }, body: {} }), 400, 'invalid_request');
    const approval = await mint({ name: 'needs approval', requiresApproval: true });
    await expectApiError(t.asToken(approval.token).updateFlag({ path: { id: projectId, key: 'banner' }, body: { clientVisible: false } }), 403, 'approval_not_supported');
    const prodOnly = await mint({ name: 'prod writer', environments: [prod] });
    await expectApiError(t.asToken(prodOnly.token).updateFlag({ path: { id: projectId, key: 'banner' }, body: { clientVisible: false } }), 403, 'token_env_out_of_scope');
    const writer = await mint({ name: 'writer' });
    const updated = await t.asToken(writer.token).updateFlag({ path: { id: projectId, key: 'banner' }, body: { description: 'Top banner' } });
    expect(updated).toMatchObject({ key: 'banner', description: 'Top banner', clientVisible: true });
  });

  it('limits each client address per client key (429 token_rate_limit, bucket address)', async () => {
    const { token } = await mint({ name: 'busy page', kind: 'client', environments: [prod] });
    await t.advanceClock(120); // every bucket full again
    let refused: Response | undefined;
    for (let i = 0; i < 45 && !refused; i++) {
      const res = await evaluateRaw(prod, { authorization: `Bearer ${token}` });
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(200);
    }
    expect(refused).toBeDefined();
    const body = (await refused!.json()) as { code: string; details: { bucket: string; retryAfterSeconds: number } };
    expect(body).toMatchObject({ code: 'token_rate_limit', details: { bucket: 'address' } });
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused!.headers.get('x-ratelimit-limit')).toBe('40');
    // Another client key has its own budget on the same address; the clock refills this one.
    const other = await mint({ name: 'other page', kind: 'client', environments: [prod] });
    expect((await evaluateRaw(prod, { authorization: `Bearer ${other.token}` })).status).toBe(200);
    await t.advanceClock(60);
    expect((await evaluateRaw(prod, { 'x-api-key': token })).status).toBe(200);
  });
});
