import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.js';
import {
  buildTenant,
  claimFor,
  contractRoutes,
  envelopeProblems,
  fillPath,
  send,
  startHostileServer,
  tenantParams,
  writeMarks,
  type Caller,
  type RouteEntry,
  type Tenant,
} from './support.js';

/**
 * The cross-tenant matrix: every route of the contract that names a tenant's
 * resource (slug, project, environment, flag, config, plan, member, invitation,
 * API key, rollback secret, audit event, proposal) is called by org B's
 * principals (API key and session; rollback secret for the webhooks) with org
 * A's identifiers: always 404, never 200 or 403 (which would leak existence),
 * never a write in A. A second pass mixes B's own parent with A's child id
 * (B's env + A's secret id, B's slug + A's API key id, …).
 *
 * Routes are enumerated from the contract: a new route must either name a
 * tenant resource this file knows how to fill (and, when it has a body, get a
 * valid body below) or be added to NO_TENANT_RESOURCE with a reason.
 */

/** Routes that take no tenant resource, and why. */
const NO_TENANT_RESOURCE: Record<string, string> = {
  requestMagicLink: 'public; takes an email',
  redeemMagicLink: 'public; takes a one-time token',
  signup: 'public; creates a new org',
  getInstallState: 'public; instance-wide',
  claimInstall: 'public; instance-wide, once',
  getClaimState: 'public; instance-wide (whether the instance is claimed)',
  getSession: "the caller's own session",
  whoami: "the caller's own key or session",
  logout: "the caller's own session",
  createOrg: 'creates a new org for the caller',
  getInvitation: 'public; the invitation token is the capability (tested in invitations.test.ts)',
  acceptInvitation: 'public; the invitation token is the capability (tested in invitations.test.ts)',
};

/** A valid body for every route with one, so the answer is about the tenant, not the shape. */
function validBody(entry: RouteEntry, a: Tenant): unknown {
  const bodies: Record<string, unknown> = {
    deleteOrg: { confirm: a.slug },
    updateMember: { role: 'admin' },
    createInvitation: { email: 'intruder@example.com', role: 'owner' },
    createProject: { key: 'pwned', name: 'Pwned' },
    updateProject: { name: 'Pwned' },
    createEnvironment: { key: 'pwned', name: 'Pwned' },
    createFlag: { key: 'pwned', name: 'Pwned', defaultValue: true },
    setFlagValue: { value: true },
    setFlagRules: { rules: [] },
    createConfig: { key: 'pwned', name: 'Pwned', defaultValue: 1 },
    setConfigValue: { value: { pwned: true } },
    setConfigRules: { rules: [] },
    putFlagRollout: { percent: 100, newValue: true },
    putConfigRollout: { percent: 100, newValue: { pwned: true } },
    addFlagTargetIds: { targetIds: ['intruder'] },
    removeFlagTargetIds: { targetIds: [`${a.slug}-user-1`] },
    replaceFlagTargetIds: { targetIds: ['intruder'] },
    addConfigTargetIds: { targetIds: ['intruder'] },
    removeConfigTargetIds: { targetIds: [`${a.slug}-user-1`] },
    replaceConfigTargetIds: { targetIds: ['intruder'] },
    createRolloutPlan: { key: 'pwned', name: 'Pwned', rampSteps: [{ percent: 100, holdForSeconds: 0 }] },
    updateRolloutPlan: { name: 'Pwned' },
    evaluate: { context: { userId: 'u' } },
    createRollbackSecret: { name: 'pwned' },
    fireFlagRollback: { status: 'firing' },
    fireConfigRollback: { status: 'firing' },
    createApiKey: { name: 'pwned' },
  };
  if (!(entry.key in bodies)) throw new Error(`no valid body for ${entry.name}: add one to the cross-tenant matrix`);
  return bodies[entry.key];
}

/** Path parameters that identify a parent (the rest are children within it). */
const PARENTS = new Set(['slug', 'envId']);

describe('cross-tenant matrix: org B with org A’s identifiers', () => {
  let t: TestServer;
  let a: Tenant;
  let b: Tenant;
  const routes = contractRoutes();
  const covered: string[] = [];

  beforeAll(async () => {
    t = await startHostileServer();
    const owner = await claimFor(t, 'alpha');
    a = await buildTenant(t, { slug: 'alpha', prefix: 'a', owner });
    b = await buildTenant(t, { slug: 'beta', prefix: 'b' });
  });
  afterAll(async () => {
    console.log(`cross-tenant matrix: ${covered.length} calls over ${new Set(covered.map((c) => c.split(' ')[0])).size} routes`);
    await t?.close();
  });

  it('every route either names a tenant resource or is allow-listed with a reason', () => {
    for (const entry of routes) {
      if (entry.key in NO_TENANT_RESOURCE) {
        expect(entry.params.filter((p) => p !== 'token'), `${entry.name} is allow-listed but takes ${entry.params.join(', ')}`).toEqual([]);
        continue;
      }
      expect(entry.params.length, `${entry.name} takes no tenant resource: add it to NO_TENANT_RESOURCE with a reason`).toBeGreaterThan(0);
    }
    for (const key of Object.keys(NO_TENANT_RESOURCE)) expect(routes.map((r) => r.key), `stale allow-list entry ${key}`).toContain(key);
  });

  /** B's callers for a route. */
  const callersOfB = (entry: RouteEntry): Array<[string, Caller]> => {
    switch (entry.auth) {
      case 'any':
        return [
          ['B api key', { token: b.apiKey.token }],
          ['B session', { session: b.sessionToken }],
        ];
      case 'session':
        return [['B session', { session: b.sessionToken }]];
      case 'rollback':
        return [['B rollback secret', { rollback: b.rollbackSecret.token }]];
      default:
        throw new Error(`${entry.name}: ${entry.auth} route in the matrix`);
    }
  };

  const call = async (entry: RouteEntry, params: Record<string, string>, caller: Caller) => {
    const body = entry.hasBody ? JSON.stringify(validBody(entry, a)) : undefined;
    return send(t.url, { method: entry.route.method, path: fillPath(entry.route.path, params), ...(body !== undefined ? { body } : {}) }, caller);
  };

  it('answers 404 to B for every route with A’s identifiers, and writes nothing in A', async () => {
    const before = await writeMarks(a);
    const failures: string[] = [];
    for (const entry of routes) {
      if (entry.key in NO_TENANT_RESOURCE) continue;
      const aParams = tenantParams(a, entry);
      // The rollback webhook authenticates the secret against the env in the path first: a wrong-env secret is its 401.
      const expected = entry.auth === 'rollback' ? { status: 401, code: 'rollback_unauthorized' } : { status: 404, code: 'not_found' };
      for (const [who, caller] of callersOfB(entry)) {
        const res = await call(entry, aParams, caller);
        covered.push(`${entry.key} all-A ${who}`);
        const got = { status: res.status, code: (res.json as { code?: string } | undefined)?.code };
        const problems = envelopeProblems(res, entry.route);
        if (problems.length > 0 || got.status !== expected.status || got.code !== expected.code) {
          failures.push(`${entry.name} as ${who} with A's ids → ${res.status} ${res.text.slice(0, 160)} ${problems.join('; ')}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(await writeMarks(a)).toEqual(before);
  });

  it('lets B observe nothing of A’s child ids under B’s own parent (env + secret, slug + key id, env + flag key, …), and writes nothing in A', async () => {
    // The oracle: the same call with a child that exists in no org. A's child must be indistinguishable from it
    // (404 for resources; fire history is keyed by name within B's env and answers B's own records either way).
    const nowhere = (p: string) => (['key', 'flagKey', 'configKey', 'planKey'].includes(p) ? 'zz-nowhere' : '00000000-0000-4000-8000-00000000abcd');
    const aIds = [a.orgId, a.projectId, a.envId, a.env2Id, a.flagRolloutId, a.apiKey.id, a.rollbackSecret.id, a.auditEventId, a.proposalId, a.invitationId, a.memberUserId];
    const before = await writeMarks(a);
    const failures: string[] = [];
    let mixed = 0;
    let notFound = 0;
    for (const entry of routes) {
      if (entry.key in NO_TENANT_RESOURCE) continue;
      const parent = entry.params.find((p) => PARENTS.has(p));
      const children = entry.params.filter((p) => !PARENTS.has(p) && p !== 'targetId');
      if (!parent || children.length === 0) continue;
      const bParent = tenantParams(b, entry)[parent]!;
      const params = { ...tenantParams(a, entry), [parent]: bParent };
      const control = { ...params, ...Object.fromEntries(children.map((c) => [c, nowhere(c)])) };
      for (const [who, caller] of callersOfB(entry)) {
        mixed++;
        const expected = await call(entry, control, caller);
        const res = await call(entry, params, caller);
        covered.push(`${entry.key} B-parent ${who}`);
        const code = (r: typeof res) => (r.json as { code?: string } | undefined)?.code;
        const problems = envelopeProblems(res, entry.route);
        const leaked = aIds.filter((id) => res.text.includes(id));
        if (res.status === 404) notFound++;
        if (problems.length > 0 || res.status !== expected.status || code(res) !== code(expected) || leaked.length > 0 || (res.status >= 200 && res.status < 300 && entry.route.method !== 'GET')) {
          failures.push(
            `${entry.name} as ${who} with B's ${parent} and A's ${children.join('+')} → ${res.status} ${code(res)} (a child that exists nowhere: ${expected.status} ${code(expected)}) ${leaked.length ? `leaks ${leaked.join(',')}` : ''} ${problems.join('; ')}`,
          );
        }
      }
    }
    expect(mixed).toBeGreaterThan(40);
    expect(notFound).toBeGreaterThan(mixed - 10);
    expect(failures).toEqual([]);
    expect(await writeMarks(a)).toEqual(before);
  });

  it('leaves A’s resources exactly as they were and B’s principals still work on B', async () => {
    const state = await a.session.getFlagState({ path: { envId: a.envId, key: a.flagKey } });
    expect(state.rollout).toMatchObject({ percent: 5, targetIdsCount: 2, status: 'active' });
    expect((await a.session.getProject({ path: { id: a.projectId } })).name).toBe('Web');
    expect((await a.session.listApiKeys({ path: { slug: a.slug } })).find((k) => k.id === a.apiKey.id)?.revokedAt).toBeNull();
    expect((await a.session.getSession()).organizations.map((o) => o.slug)).toEqual(['alpha']);
    // Sanity: the same calls with B's own ids succeed, so the 404s above are about the tenant.
    expect((await t.asToken(b.apiKey.token).getFlagState({ path: { envId: b.envId, key: b.flagKey } })).key).toBe(b.flagKey);
    expect((await t.asSession(b.sessionToken).listMembers({ path: { slug: b.slug } })).length).toBeGreaterThan(0);
  });
});
