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

/**
 * OFREP routes: the environment comes from the API key, not the path, and the event stream's
 * signed ticket names the key and environment. Probed by their own test below.
 */
const OFREP_ROUTES: Record<string, string> = {
  ofrepEvaluateFlag: "evaluates the key's own environment; another org's flag key is FLAG_NOT_FOUND",
  ofrepEvaluateFlags: "evaluates the key's own environment",
  ofrepEventStream: "public; the signed ticket names the key and environment",
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
    updateFlag: { name: 'Pwned', clientVisible: true },
    updateConfig: { name: 'Pwned', clientVisible: true },
    // The right keys (tenant A's, built with prefix `a`): only the tenant check stands in the way.
    deleteFlag: { confirm: a.flagKey },
    deleteConfig: { confirm: a.configKey },
    deleteEnvironment: { confirm: 'a-prod' },
    deleteProject: { confirm: 'a-web' },
    setFlagValue: { value: true },
    setFlagRules: { rules: [] },
    createConfig: { key: 'pwned', name: 'Pwned', defaultValue: 1 },
    syncCreateFlag: { key: 'pwned', type: 'boolean', defaultValue: true },
    syncUpdateFlag: { key: a.flagKey, type: 'boolean', name: 'Pwned' },
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
    reportUsage: { windowStart: new Date(Date.now() - 120_000).toISOString(), windowEnd: new Date(Date.now() - 60_000).toISOString(), entries: [] },
    reportCodeReferences: { repository: 'pwned', checks: [{ kind: 'flag', key: a.flagKey, references: 0, locations: [] }] },
    createRollbackSecret: { name: 'pwned' },
    createWebhookSubscription: { name: 'pwned', url: 'https://hooks.example.com/pwned', events: ['rollout.created'] },
    updateWebhookSubscription: { name: 'Pwned' },
    fireFlagRollback: { status: 'firing' },
    fireConfigRollback: { status: 'firing' },
    createApiKey: { name: 'pwned' },
    createSegment: { key: 'pwned', name: 'Pwned' },
    createGuardMetric: { key: 'pwned', name: 'Pwned', kind: 'count', worse: 'higher' },
    reportGuardMetrics: { windowStart: new Date(Date.now() - 20_000).toISOString(), windowEnd: new Date(Date.now() - 10_000).toISOString(), exposures: [], events: [] },
    ackRuleset: { instanceId: 'intruder', sdk: { name: 'probe', version: '1' }, version: 1, mode: 'poll' },
    updateSegment: { name: 'Pwned' },
    deleteSegment: { confirm: 'pwned' },
    addSegmentIncluded: { targetIds: ['intruder'] },
    removeSegmentIncluded: { targetIds: [`${a.slug}-user-1`] },
    replaceSegmentIncluded: { targetIds: ['intruder'] },
    addSegmentExcluded: { targetIds: ['intruder'] },
    removeSegmentExcluded: { targetIds: [`${a.slug}-user-1`] },
    replaceSegmentExcluded: { targetIds: ['intruder'] },
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
      if (entry.key in OFREP_ROUTES) continue;
      if (entry.key in NO_TENANT_RESOURCE) {
        expect(entry.params.filter((p) => p !== 'token'), `${entry.name} is allow-listed but takes ${entry.params.join(', ')}`).toEqual([]);
        continue;
      }
      expect(entry.params.length, `${entry.name} takes no tenant resource: add it to NO_TENANT_RESOURCE with a reason`).toBeGreaterThan(0);
    }
    for (const key of [...Object.keys(NO_TENANT_RESOURCE), ...Object.keys(OFREP_ROUTES)]) expect(routes.map((r) => r.key), `stale allow-list entry ${key}`).toContain(key);
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
      if (entry.key in NO_TENANT_RESOURCE || entry.key in OFREP_ROUTES) continue;
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
      if (entry.key in NO_TENANT_RESOURCE || entry.key in OFREP_ROUTES) continue;
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

  it('gives B’s environment-bound key nothing of A over OFREP: A’s flag key is FLAG_NOT_FOUND, the bulk holds only B, a ticket bent to A’s environment is 401', async () => {
    const before = await writeMarks(a);
    const bKey = await b.session.createApiKey({ path: { slug: b.slug }, body: { name: 'b ofrep', actions: ['read'], environments: [b.envId], rateLimitPerMin: 100_000 } });
    const evaluate = (path: string) =>
      send(t.url, { method: 'POST', path: `/api/v1/ofrep/v1/evaluate/flags${path}`, body: JSON.stringify({ context: { userId: 'u', targetingKey: 'u' } }) }, { token: bKey.token });
    const nowhere = await evaluate('/zz-nowhere');
    for (const key of [a.flagKey, a.configKey]) {
      const res = await evaluate(`/${encodeURIComponent(key)}`);
      covered.push(`ofrepEvaluateFlag A-key B env key`);
      expect(res.status, res.text).toBe(404);
      // Exactly what a key that exists nowhere answers.
      expect(res.json).toEqual({ key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `Flag "${key}" was not found.` });
      expect(nowhere.json).toEqual({ key: 'zz-nowhere', errorCode: 'FLAG_NOT_FOUND', errorDetails: 'Flag "zz-nowhere" was not found.' });
    }
    const own = await evaluate(`/${encodeURIComponent(b.flagKey)}`);
    expect(own.status, own.text).toBe(200);

    const bulk = await evaluate('');
    covered.push(`ofrepEvaluateFlags B env key`);
    expect(bulk.status).toBe(200);
    const aIds = [a.orgId, a.projectId, a.envId, a.env2Id, a.flagKey, a.configKey];
    expect(aIds.filter((id) => bulk.text.includes(id))).toEqual([]);
    const url = new URL((bulk.json as { eventStreams: Array<{ url: string }> }).eventStreams[0]!.url);
    const [version, payload, signature] = url.searchParams.get('ticket')!.split('.');
    const [keyId, envId, expiry] = Buffer.from(payload!, 'base64url').toString('utf8').split('.');
    expect(envId).toBe(b.envId);
    const bent = `${version}.${Buffer.from(`${keyId}.${a.envId}.${expiry}`).toString('base64url')}.${signature}`;
    const stream = await send(t.url, { method: 'GET', path: `/api/v1/ofrep/v1/events?ticket=${encodeURIComponent(bent)}` }, {});
    covered.push(`ofrepEventStream bent ticket`);
    expect(stream.status).toBe(401);
    expect((stream.json as { code: string }).code).toBe('unauthorized');
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
