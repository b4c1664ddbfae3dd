import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { seedUser } from '../support/users.js';

describe('API keys and access control', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let orgId: string;
  let projectId: string;
  let prod: string;
  let staging: string;

  const mint = (body: Parameters<ClaimedInstance['session']['createApiKey']>[0]['body']) =>
    owner.session.createApiKey({ path: { slug: 'acme' }, body });

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    orgId = (await owner.session.getOrg({ path: { slug: 'acme' } })).id;
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    prod = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    staging = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    for (const key of ['checkout-v2', 'checkout-v3', 'search']) {
      await owner.session.createFlag({ path: { id: projectId }, body: { key, name: key, defaultValue: false } });
    }
  });
  afterAll(() => t?.close());

  it('spec "Code catalog" token_action_denied: a read-only key reads, and its writes answer 403 token_action_denied', async () => {
    const { token } = await mint({ name: 'reader', actions: ['read'] });
    const api = t.asToken(token);
    expect(await api.getFlagState({ path: { envId: prod, key: 'search' } })).toMatchObject({ value: false });
    await expectApiError(api.setFlagValue({ path: { envId: prod, key: 'search' }, body: { value: true } }), 403, 'token_action_denied');
    await expectApiError(api.createProject({ path: { slug: 'acme' }, body: { key: 'x', name: 'X' } }), 403, 'token_action_denied');
  });

  it('spec "Code catalog" token_env_out_of_scope: an environment-scoped key sees only its environments; others answer 403 token_env_out_of_scope', async () => {
    const { token, environments } = await mint({ name: 'prod-only', environments: [prod] });
    expect(environments).toEqual([prod]);
    const api = t.asToken(token);
    await api.setFlagValue({ path: { envId: prod, key: 'search' }, body: { value: true } });
    await expectApiError(api.setFlagValue({ path: { envId: staging, key: 'search' }, body: { value: true } }), 403, 'token_env_out_of_scope');
    await expectApiError(api.getEnvironment({ path: { envId: staging } }), 403, 'token_env_out_of_scope');
    expect((await api.listEnvironments({ path: { id: projectId } })).map((e) => e.id)).toEqual([prod]);
  });

  it('spec "Code catalog" token_resource_out_of_scope: a key\'s resources match primitive keys by glob; others answer 403 token_resource_out_of_scope', async () => {
    const { token } = await mint({ name: 'checkout', resources: ['checkout-*'] });
    const api = t.asToken(token);
    await api.setFlagValue({ path: { envId: prod, key: 'checkout-v2' }, body: { value: true } });
    await expectApiError(api.setFlagValue({ path: { envId: prod, key: 'search' }, body: { value: true } }), 403, 'token_resource_out_of_scope');
    await expectApiError(api.createFlag({ path: { id: projectId }, body: { key: 'other', name: 'O', defaultValue: true } }), 403, 'token_resource_out_of_scope');
    expect((await api.listFlagStates({ path: { envId: prod } })).map((s) => s.key)).toEqual(['checkout-v2', 'checkout-v3']);
    expect((await api.listFlags({ path: { id: projectId } })).map((f) => f.key)).toEqual(['checkout-v2', 'checkout-v3']);
  });

  it('a key restricted to environments changes nothing project-wide, and sees only projects it has an environment in', async () => {
    const { token } = await mint({ name: 'prod-writer', environments: [prod] });
    const api = t.asToken(token);
    const other = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'api', name: 'API' } });
    await owner.session.createEnvironment({ path: { id: other.id }, body: { key: 'api-prod', name: 'API prod' } });
    const before = await owner.session.getProject({ path: { id: projectId } });
    const envsBefore = await owner.session.listEnvironments({ path: { id: projectId } });
    // Each of these reaches every environment of the project (staging included), or the org.
    await expectApiError(api.updateProject({ path: { id: projectId }, body: { targetIdField: 'deviceId' } }), 403, 'token_env_out_of_scope');
    await expectApiError(api.createEnvironment({ path: { id: projectId }, body: { key: 'sneaky', name: 'S' } }), 403, 'token_env_out_of_scope');
    await expectApiError(api.createFlag({ path: { id: projectId }, body: { key: 'everywhere', name: 'E', defaultValue: true } }), 403, 'token_env_out_of_scope');
    await expectApiError(api.createConfig({ path: { id: projectId }, body: { key: 'everywhere', name: 'E', defaultValue: 1 } }), 403, 'token_env_out_of_scope');
    const plan = { key: 'fast', name: 'Fast', rampSteps: [{ percent: 100, holdForSeconds: 0 }] };
    await expectApiError(api.createRolloutPlan({ path: { id: projectId }, body: plan }), 403, 'token_env_out_of_scope');
    await expectApiError(api.createProject({ path: { slug: 'acme' }, body: { key: 'mine', name: 'Mine' } }), 403, 'token_env_out_of_scope');
    expect(await owner.session.getProject({ path: { id: projectId } })).toEqual(before);
    expect(await owner.session.listEnvironments({ path: { id: projectId } })).toEqual(envsBefore);
    expect((await owner.session.listFlags({ path: { id: projectId } })).map((f) => f.key)).not.toContain('everywhere');
    // Reads: the project it has an environment in, not the other one.
    expect((await api.listProjects({ path: { slug: 'acme' } })).map((p) => p.key)).toEqual(['web']);
    expect((await api.getProject({ path: { id: projectId } })).key).toBe('web');
    await expectApiError(api.getProject({ path: { id: other.id } }), 403, 'token_env_out_of_scope');
    await expectApiError(api.listEnvironments({ path: { id: other.id } }), 403, 'token_env_out_of_scope');
    await expectApiError(api.listFlags({ path: { id: other.id } }), 403, 'token_env_out_of_scope');
    await expectApiError(api.listRolloutPlans({ path: { id: other.id } }), 403, 'token_env_out_of_scope');
    const none = await mint({ name: 'no environment', environments: [] });
    expect(await t.asToken(none.token).listProjects({ path: { slug: 'acme' } })).toEqual([]);
    await expectApiError(t.asToken(none.token).getProject({ path: { id: projectId } }), 403, 'token_env_out_of_scope');
    // Within its environment it still writes.
    await api.setFlagValue({ path: { envId: prod, key: 'search' }, body: { value: false } });
  });

  it('a key restricted to resources creates only matching flags and makes no project-wide change', async () => {
    const { token } = await mint({ name: 'checkout-team', resources: ['checkout-*'] });
    const api = t.asToken(token);
    expect((await api.createFlag({ path: { id: projectId }, body: { key: 'checkout-v9', name: 'V9', defaultValue: false } })).key).toBe('checkout-v9');
    await expectApiError(api.createConfig({ path: { id: projectId }, body: { key: 'pricing', name: 'P', defaultValue: 1 } }), 403, 'token_resource_out_of_scope');
    await expectApiError(api.updateProject({ path: { id: projectId }, body: { name: 'Renamed' } }), 403, 'token_resource_out_of_scope');
    await expectApiError(api.createEnvironment({ path: { id: projectId }, body: { key: 'sneaky', name: 'S' } }), 403, 'token_resource_out_of_scope');
    await expectApiError(api.createProject({ path: { slug: 'acme' }, body: { key: 'mine', name: 'Mine' } }), 403, 'token_resource_out_of_scope');
    const plan = { key: 'checkout-ramp', name: 'Ramp', rampSteps: [{ percent: 100, holdForSeconds: 0 }] };
    await expectApiError(api.createRolloutPlan({ path: { id: projectId }, body: plan }), 403, 'token_resource_out_of_scope');
    expect((await owner.session.getProject({ path: { id: projectId } })).name).toBe('Web');
    // Plans are read by every key of the project.
    expect(Array.isArray(await api.listRolloutPlans({ path: { id: projectId } }))).toBe(true);
  });

  it('spec "Code catalog" token_ip_denied: a source IP off the key\'s allowlist answers 403 token_ip_denied, checked first', async () => {
    const denied = await mint({ name: 'office', ipAllowlist: ['10.0.0.0/8'], actions: ['read'] });
    // IP comes before the action check: a read-only key writing from the wrong address is ip-denied.
    await expectApiError(t.asToken(denied.token).setFlagValue({ path: { envId: prod, key: 'search' }, body: { value: true } }), 403, 'token_ip_denied');
    await expectApiError(t.asToken(denied.token).getOrg({ path: { slug: 'acme' } }), 403, 'token_ip_denied');
    const allowed = await mint({ name: 'local', ipAllowlist: ['127.0.0.1/32', '::1'] });
    expect((await t.asToken(allowed.token).getOrg({ path: { slug: 'acme' } })).slug).toBe('acme');
  });

  it('checks IP, then action, then environment, then resource', async () => {
    const { token } = await mint({ name: 'narrow', actions: ['read'], environments: [prod], resources: ['checkout-*'] });
    const api = t.asToken(token);
    await expectApiError(api.setFlagValue({ path: { envId: staging, key: 'search' }, body: { value: true } }), 403, 'token_action_denied');
    await expectApiError(api.getFlagState({ path: { envId: staging, key: 'search' } }), 403, 'token_env_out_of_scope');
    await expectApiError(api.getFlagState({ path: { envId: prod, key: 'search' } }), 403, 'token_resource_out_of_scope');
  });

  it('validates mint input: unknown environments and bad CIDRs', async () => {
    const envErr = await expectApiError(mint({ name: 'x', environments: [prod, '00000000-0000-4000-8000-000000000000'] }), 400, 'invalid_request');
    expect(envErr.fields).toEqual({ 'environments.1': 'no such environment in this organization' });
    const ipErr = await expectApiError(mint({ name: 'x', ipAllowlist: ['300.1.1.1/8'] }), 400, 'invalid_request');
    expect(ipErr.fields).toEqual({ 'ipAllowlist.0': 'not a valid IP address or CIDR block' });
    const ttlErr = await expectApiError(mint({ name: 'x', ttlSeconds: 60 }), 400, 'invalid_request');
    expect(ttlErr.fields).toHaveProperty('ttlSeconds');
  });

  it('expires a key after its TTL, measured on the server clock', async () => {
    const { token, expiresAt } = await mint({ name: 'short', ttlSeconds: 3600 });
    expect(expiresAt).not.toBeNull();
    const api = t.asToken(token);
    await api.getOrg({ path: { slug: 'acme' } });
    await t.advanceClock(3601);
    await expectApiError(api.getOrg({ path: { slug: 'acme' } }), 401, 'unauthorized');
  });

  it('revokes a key: 401 afterwards, revoke is idempotent, unknown ids 404', async () => {
    const { token, id } = await mint({ name: 'doomed' });
    // Used first, so this instance holds it in its API-key cache: revoking must evict it at once.
    await t.asToken(token).getOrg({ path: { slug: 'acme' } });
    await owner.session.revokeApiKey({ path: { slug: 'acme', id } });
    await owner.session.revokeApiKey({ path: { slug: 'acme', id } });
    await expectApiError(t.asToken(token).getOrg({ path: { slug: 'acme' } }), 401, 'unauthorized');
    const listed = (await owner.session.listApiKeys({ path: { slug: 'acme' } })).find((k) => k.id === id);
    expect(listed?.revokedAt).not.toBeNull();
    await expectApiError(owner.session.revokeApiKey({ path: { slug: 'acme', id: '00000000-0000-4000-8000-000000000000' } }), 404, 'not_found');
    const revokes = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'api_token' } });
    expect(revokes.events.filter((e) => e.resourceId === id).map((e) => e.action)).toEqual(['api_token.revoked', 'api_token.created']);
  });

  it('keys cannot manage keys or create orgs (scope_denied), and the bearer wins over a cookie', async () => {
    const { token } = await mint({ name: 'admin-ish' });
    const api = t.asToken(token);
    // These operations declare only the session scheme, so the SDK sends no bearer: call them raw.
    const asBearer = (path: string, body?: unknown) =>
      fetch(`${t.url}/api/v1${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    for (const res of [await asBearer('/orgs/acme/api-keys', { name: 'escalate' }), await asBearer('/orgs/acme/api-keys'), await asBearer('/orgs', { name: 'Mine' })]) {
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('scope_denied');
    }
    expect((await api.getOrg({ path: { slug: 'acme' } })).slug).toBe('acme');
    const both = await fetch(`${t.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}`, cookie: `svc_session=${owner.sessionToken}` } });
    expect(both.status).toBe(403); // the request is judged as the token, which has no session
  });

  it('spec "Authentication" 1: a request with both a bearer token and a session cookie is judged as the bearer token', async () => {
    const { token } = await mint({ name: 'reader-with-cookie', actions: ['read'] });
    const url = `${t.url}/api/v1/envs/${prod}/flags/search/value`;
    const put = (headers: Record<string, string>) =>
      fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ value: false }) });
    // The owner's cookie alone may write; with the read-only bearer beside it, the bearer decides.
    const both = await put({ authorization: `Bearer ${token}`, cookie: `svc_session=${owner.sessionToken}` });
    expect(both.status).toBe(403);
    expect(((await both.json()) as { code: string }).code).toBe('token_action_denied');
    expect((await put({ cookie: `svc_session=${owner.sessionToken}` })).status).toBe(200);
  });

  it('spec "AuditEventSummary": a token\'s rows carry delegatorUserId, the human who minted it (an agent key as actorType agent_token)', async () => {
    const { token, id } = await mint({ name: 'bot', kind: 'agent' });
    await t.asToken(token).setFlagValue({ path: { envId: prod, key: 'checkout-v3' }, body: { value: true } });
    const { events } = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { actorId: id } });
    expect(events).toEqual([expect.objectContaining({ actorType: 'agent_token', actorId: id, delegatorUserId: owner.userId, action: 'flag.update_value' })]);
    expect(events[0]).not.toHaveProperty('actorEmail');
  });

  it('spec "Authentication" 5: a member operates flags but gets 403 insufficient_role where admin or owner is needed (projects, environments, keys)', async () => {
    const member = await seedUser(t.server.deps.db, 'mia@example.com', { orgId, role: 'member' });
    const api = t.asSession(member.sessionToken);
    await api.setFlagValue({ path: { envId: prod, key: 'search' }, body: { value: false } });
    await api.createFlag({ path: { id: projectId }, body: { key: 'member-flag', name: 'M', defaultValue: true } });
    await expectApiError(api.createProject({ path: { slug: 'acme' }, body: { key: 'm', name: 'M' } }), 403, 'insufficient_role');
    await expectApiError(api.createEnvironment({ path: { id: projectId }, body: { key: 'm', name: 'M' } }), 403, 'insufficient_role');
    await expectApiError(api.updateProject({ path: { id: projectId }, body: { name: 'Renamed' } }), 403, 'insufficient_role');
    await expectApiError(api.createApiKey({ path: { slug: 'acme' }, body: { name: 'm' } }), 403, 'insufficient_role');
    const { events } = await api.listAuditEvents({ path: { slug: 'acme' }, query: { actorId: member.userId } });
    expect(events[0]).toMatchObject({ actorType: 'user', actorEmail: 'mia@example.com' });
  });

  it('spec "Authentication" 7: cross-tenant access answers 404 not_found, never 403 — for sessions and for keys', async () => {
    const outsider = await seedUser(t.server.deps.db, 'eve@example.com');
    const eve = t.asSession(outsider.sessionToken);
    const other = await eve.createOrg({ body: { name: 'Evil Corp', slug: 'evil' } });
    const evilProject = await eve.createProject({ path: { slug: 'evil' }, body: { key: 'p', name: 'P' } });
    const evilEnv = await eve.createEnvironment({ path: { id: evilProject.id }, body: { key: 'e', name: 'E' } });
    await eve.createFlag({ path: { id: evilProject.id }, body: { key: 'secret', name: 'S', defaultValue: true } });
    const evilAudit = (await eve.listAuditEvents({ path: { slug: other.slug } })).events[0]!;

    const { token } = await mint({ name: 'acme-key' });
    for (const api of [owner.session, t.asToken(token)]) {
      await expectApiError(api.getOrg({ path: { slug: 'evil' } }), 404, 'not_found');
      await expectApiError(api.listProjects({ path: { slug: 'evil' } }), 404, 'not_found');
      await expectApiError(api.getProject({ path: { id: evilProject.id } }), 404, 'not_found');
      await expectApiError(api.updateProject({ path: { id: evilProject.id }, body: { name: 'pwned' } }), 404, 'not_found');
      await expectApiError(api.listEnvironments({ path: { id: evilProject.id } }), 404, 'not_found');
      await expectApiError(api.getEnvironment({ path: { envId: evilEnv.id } }), 404, 'not_found');
      await expectApiError(api.createFlag({ path: { id: evilProject.id }, body: { key: 'x', name: 'X', defaultValue: true } }), 404, 'not_found');
      await expectApiError(api.getFlagState({ path: { envId: evilEnv.id, key: 'secret' } }), 404, 'not_found');
      await expectApiError(api.setFlagValue({ path: { envId: evilEnv.id, key: 'secret' }, body: { value: false } }), 404, 'not_found');
      await expectApiError(api.listAuditEvents({ path: { slug: 'evil' } }), 404, 'not_found');
      await expectApiError(api.getAuditEvent({ path: { id: evilAudit.id } }), 404, 'not_found');
    }
    await expectApiError(owner.session.listApiKeys({ path: { slug: 'evil' } }), 404, 'not_found');
    // Eve's flag is untouched.
    expect((await eve.getFlagState({ path: { envId: evilEnv.id, key: 'secret' } })).value).toBe(true);
  });

  it('slides the session: renewed when under 7 days remain, expired after 14 idle days', async () => {
    const user = await seedUser(t.server.deps.db, 'sam@example.com', { orgId, role: 'member' });
    await t.advanceClock(8 * 86400);
    const { response } = await t.asSession(user.sessionToken).withResponse.getSession();
    expect(response.headers.get('set-cookie')).toMatch(/svc_session=.*HttpOnly.*SameSite=Lax/i);
    await t.advanceClock(13 * 86400);
    await t.asSession(user.sessionToken).getSession(); // 13 days after renewal: still valid
    await t.advanceClock(15 * 86400);
    await expectApiError(t.asSession(user.sessionToken).getSession(), 401, 'unauthorized');
  });
});
