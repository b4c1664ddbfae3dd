import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { seedUser } from '../support/users.js';

/**
 * The newcomer's path from the README: claim the instance, mint an API key,
 * create a project, an environment, a flag and a config, change a value and
 * rules, and read the audit trail — all through the generated SDK.
 */
describe('a newcomer on a fresh self-hosted instance', () => {
  let t: TestServer;
  let owner: ClaimedInstance;

  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t?.close());

  it('spec "Authentication and onboarding" 7: install-claim answers the Session with its cookie once, then 409 already_claimed', async () => {
    expect(await t.anonymous.getClaimState()).toEqual({ claimed: false });
    owner = await claim(t);
    expect(await t.anonymous.getClaimState()).toEqual({ claimed: true });
    const me = await owner.session.getSession();
    expect(me.user.email).toBe('owner@example.com');
    expect(me.user.displayName).toBe('Olive Owner');
    expect(me.organizations).toEqual([{ id: expect.any(String), slug: 'acme', name: 'Acme', role: 'owner' }]);
    await expectApiError(
      t.anonymous.claimInstall({ body: { email: 'late@example.com', displayName: 'Late', orgName: 'Other', orgSlug: 'other' } }),
      409,
      'already_claimed',
    );
  });

  it('keeps install-state unmounted on self-hosted without SERVICE_PUBLIC_SIGNUP', async () => {
    await expectApiError(t.anonymous.getInstallState(), 404, 'not_found');
  });

  it('spec "Authentication" 3: an API key\'s raw token is shown once at minting; the list omits it', async () => {
    const minted = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ci' } });
    expect(minted.token).toMatch(/^svc_[A-Za-z0-9]{32}$/);
    expect(minted.tokenPrefix).toBe(minted.token.slice(0, 8));
    expect(minted.warning).toMatch(/only once/);
    expect(minted).toMatchObject({ kind: 'api', actions: ['read', 'write'], environments: null, resources: null, ipAllowlist: null, rateLimitPerMin: 600, expiresAt: null, requiresApproval: false, createdByUserId: owner.userId });
    const list = await owner.session.listApiKeys({ path: { slug: 'acme' } });
    expect(list).toHaveLength(1);
    expect(list[0]).not.toHaveProperty('token');
    expect(JSON.stringify(list)).not.toContain(minted.token);
  });

  it('builds a project, environment, flag and config with a token, then changes values and rules', async () => {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'script' } });
    const api = t.asToken(token);

    const project = await api.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web shop' } });
    expect(project).toMatchObject({ key: 'web', name: 'Web shop', targetIdField: 'userId' });

    const env = await api.createEnvironment({ path: { id: project.id }, body: { key: 'production', name: 'Production' } });
    expect(env).toMatchObject({ projectId: project.id, key: 'production', version: 0 });

    const flag = await api.createFlag({
      path: { id: project.id },
      body: { key: 'new-checkout', name: 'New checkout', defaultValue: false },
    });
    expect(flag).toMatchObject({ key: 'new-checkout', valueType: 'boolean', defaultValue: false, description: null });

    const config = await api.createConfig({
      path: { id: project.id },
      body: { key: 'checkout.limits', name: 'Checkout limits', defaultValue: { maxItems: 10 } },
    });
    expect(config).toMatchObject({ key: 'checkout.limits', defaultValue: { maxItems: 10 } });

    const afterCreate = await api.getEnvironment({ path: { envId: env.id } });
    expect(afterCreate.version).toBe(2);

    const state = await api.setFlagValue({
      path: { envId: env.id, key: 'new-checkout' },
      body: { value: true },
      headers: { 'x-audit-reason': 'launch day' },
    });
    expect(state).toMatchObject({ key: 'new-checkout', envId: env.id, valueType: 'boolean', value: true, rules: [], rollout: null });

    const rules = [{ description: 'staff', conditions: [{ attribute: 'email', operator: 'ends_with' as const, values: ['@acme.test'] }], value: true }];
    const withRules = await api.setFlagRules({ path: { envId: env.id, key: 'new-checkout' }, body: { rules } });
    expect(withRules.rules).toEqual(rules);

    const cfg = await api.setConfigValue({ path: { envId: env.id, key: 'checkout.limits' }, body: { value: { maxItems: 25 } } });
    expect(cfg.value).toEqual({ maxItems: 25 });
    expect(cfg).not.toHaveProperty('valueType');

    expect((await api.getEnvironment({ path: { envId: env.id } })).version).toBe(5);
    expect(await api.listFlagStates({ path: { envId: env.id } })).toHaveLength(1);
    expect(await api.listConfigStates({ path: { envId: env.id } })).toHaveLength(1);
    expect((await api.getConfigState({ path: { envId: env.id, key: 'checkout.limits' } })).value).toEqual({ maxItems: 25 });

    // The audit trail, newest first, with the reason and the token as actor.
    const audit = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'flag' } });
    expect(audit.events.map((e) => e.action)).toEqual(['flag.update_rules', 'flag.update_value', 'flag.created']);
    const valueEvent = audit.events[1]!;
    expect(valueEvent).toMatchObject({ actorType: 'api_token', delegatorUserId: owner.userId, envId: env.id, version: 3, reason: 'launch day', resourceKey: 'new-checkout' });
    const detail = await api.getAuditEvent({ path: { id: valueEvent.id } });
    expect(detail).toMatchObject({ previousValue: false, newValue: true, diff: [{ op: 'replace', path: '', value: true }] });

    const cfgEvents = await api.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'config', resourceKey: 'checkout.limits' } });
    const cfgDetail = await api.getAuditEvent({ path: { id: cfgEvents.events[0]!.id } });
    expect(cfgDetail).toMatchObject({ action: 'config.update_value', diff: [{ op: 'replace', path: '/maxItems', value: 25 }] });
  });

  it('creates the state of existing flags in a new environment, and bumps its version once', async () => {
    const [project] = await owner.session.listProjects({ path: { slug: 'acme' } });
    const staging = await owner.session.createEnvironment({ path: { id: project!.id }, body: { key: 'staging', name: 'Staging' } });
    expect(staging.version).toBe(1);
    const states = await owner.session.listFlagStates({ path: { envId: staging.id } });
    expect(states).toEqual([expect.objectContaining({ key: 'new-checkout', value: false, rules: [] })]);
  });

  it('spec "Authentication and onboarding" 4: logout answers 204, clears the cookie and deletes the session; a repeat answers 204', async () => {
    const user = await seedUser(t.server.deps.db, 'leaving@example.com');
    const logout = (headers: Record<string, string>) => fetch(`${t.url}/api/v1/auth/logout`, { method: 'POST', headers });
    const first = await logout({ cookie: `svc_session=${user.sessionToken}` });
    expect(first.status).toBe(204);
    expect(first.headers.get('set-cookie')).toMatch(/svc_session=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/i);
    await expectApiError(t.asSession(user.sessionToken).getSession(), 401, 'unauthorized');
    expect((await logout({ cookie: `svc_session=${user.sessionToken}` })).status).toBe(204);
    expect((await logout({})).status).toBe(204);
  });

  it('logs out: the session stops working and logout stays idempotent', async () => {
    const session = t.asSession(owner.sessionToken);
    await session.logout();
    await expectApiError(session.getSession(), 401, 'unauthorized');
    await t.anonymous.logout();
  });
});
