/**
 * The SDK against `prism mock openapi.yaml`: Prism answers every operation
 * from the spec alone (its static examples), and validates each request the
 * SDK sends against the spec (an invalid one is a 422). So this checks that
 *  - the SDK's requests (paths, bodies, security) are what the spec declares;
 *  - the SDK parses what the spec promises, and the spec's examples are valid
 *    resources: every mocked body is also parsed with the contract's own zod
 *    schema (the source of truth the server is held to);
 *  - error answers come out as `GradualApiError` with a code of their status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRoute, AppRouter } from '@ts-rest/core';
import type { ZodTypeAny } from 'zod';
import { contract, errorCatalog } from '@gradual/contract';
import { createClient, GradualApiError, type Config, type Flag, type GradualClient, type MutationResult } from '@gradual/sdk';
import { compileRuleset, type Ruleset } from '@gradual/sdk/evaluation';
import { openapiPath, startPrism, type PrismProcess } from '../support/prism.js';

const envId = '3f1c1f0e-8a43-4f6e-9b1a-2c8a5d8f4b10';
const projectId = envId;

/** operationId (the contract's route key) → route. */
const routes = new Map<string, AppRoute>();
(function walk(router: AppRouter) {
  for (const [key, value] of Object.entries(router)) {
    if ('method' in value && typeof value.method === 'string') routes.set(key, value);
    else walk(value);
  }
})(contract);

function isZod(schema: unknown): schema is ZodTypeAny {
  return typeof schema === 'object' && schema !== null && typeof (schema as ZodTypeAny).safeParse === 'function';
}

/** Parses `body` with the contract's schema for this operation and status; throws with zod's issues. */
function conforms(operationId: string, status: number, body: unknown): void {
  const route = routes.get(operationId);
  if (!route) throw new Error(`no route ${operationId} in the contract`);
  const schema = (route.responses as Record<number, unknown>)[status];
  if (!isZod(schema)) throw new Error(`${operationId} ${status}: no zod schema in the contract`);
  const result = schema.safeParse(body);
  if (!result.success) throw new Error(`${operationId} ${status}: the mock's body breaks the contract: ${JSON.stringify(result.error.issues)}`);
}

const credentials = { token: 'svc_prismmocktoken0000000000000000000', sessionToken: 'prism-mock-session' };
let prism: PrismProcess;
let api: GradualClient;
/** `sl-violations` of the responses since the last `takeViolations()`: what Prism found wrong in the SDK's requests. */
const violations: string[] = [];
const takeViolations = () => violations.splice(0);

beforeAll(async () => {
  prism = await startPrism(['mock', openapiPath]);
  // Both credentials: operations for API keys get the bearer token, sign-in-only ones the session cookie.
  api = createClient({
    baseUrl: prism.url,
    ...credentials,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      const found = res.headers.get('sl-violations');
      if (found) violations.push(found);
      return res;
    },
  });
});
afterAll(() => prism?.close());

/** Calls one SDK operation; checks that Prism accepted the request and that the body conforms to the contract. */
type Answer<T> = { data: T; response: Response; notModified: false } | { data: undefined; response: Response; notModified: true };

async function answer<T>(operationId: string, run: (c: GradualClient['withResponse']) => Promise<Answer<T>>): Promise<{ data: T; response: Response }> {
  takeViolations();
  const result = await run(api.withResponse);
  expect(takeViolations(), `${operationId}: Prism's verdict on the request`).toEqual([]);
  if (result.notModified) throw new Error(`${operationId}: 304 to a request without If-None-Match`);
  return result;
}

async function call<T>(operationId: string, run: (c: GradualClient['withResponse']) => Promise<Answer<T>>): Promise<T> {
  const { data, response } = await answer(operationId, run);
  if (response.status !== 204) conforms(operationId, response.status, data);
  return data;
}

/** The same for a write an approval can divert, answered directly (Prism's first 2xx). */
async function mutate<T>(operationId: string, run: (c: GradualClient['withResponse']) => Promise<Answer<MutationResult<T>>>): Promise<T> {
  const { data, response } = await answer(operationId, run);
  if (data.kind !== 'applied') throw new Error(`${operationId}: answered ${response.status} with a proposal`);
  if (response.status !== 204) conforms(operationId, response.status, data.data);
  return data.data;
}

describe('the SDK against prism mock', () => {
  it('reads organizations, projects, environments and flag states', async () => {
    const org = await call('getOrg', (c) => c.getOrg({ path: { slug: 'acme' } }));
    expect(org.slug).toMatch(/^[a-z0-9-]+$/);
    const projects = await call('listProjects', (c) => c.listProjects({ path: { slug: 'acme' } }));
    expect(projects.length).toBeGreaterThan(0);
    expect(projects[0]!.targetIdField).toBeTruthy();
    await call('getProject', (c) => c.getProject({ path: { id: projectId } }));
    const envs = await call('listEnvironments', (c) => c.listEnvironments({ path: { id: projectId } }));
    expect(typeof envs[0]!.version).toBe('number');
    await call('getEnvironment', (c) => c.getEnvironment({ path: { envId } }));
    await call('listFlags', (c) => c.listFlags({ path: { id: projectId } }));
    const state = await call('getFlagState', (c) => c.getFlagState({ path: { envId, key: 'new-checkout' } }));
    expect(state.key).toBeTruthy();
    await call('listConfigStates', (c) => c.listConfigStates({ path: { envId } }));
  });

  it('creates and changes resources with bodies the spec accepts', async () => {
    await call('createProject', (c) => c.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web shop' } }));
    await call('createEnvironment', (c) => c.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } }));
    await call('createFlag', (c) => c.createFlag({ path: { id: projectId }, body: { key: 'new-checkout', name: 'New checkout', defaultValue: false } }));
    await call('createConfig', (c) => c.createConfig({ path: { id: projectId }, body: { key: 'checkout.limits', name: 'Limits', defaultValue: { maxItems: 10 } } }));
    const visible = await call('updateFlag', (c) => c.updateFlag({ path: { id: projectId, key: 'new-checkout' }, body: { clientVisible: true, description: null } }));
    expect(typeof visible.clientVisible).toBe('boolean');
    await call('updateConfig', (c) => c.updateConfig({ path: { id: projectId, key: 'checkout.limits' }, body: { name: 'Checkout limits' } }));
    await call('setFlagValue', (c) => c.setFlagValue({ path: { envId, key: 'new-checkout' }, body: { value: true }, headers: { 'x-audit-reason': 'launch' } }));
    await call('setFlagRules', (c) =>
      c.setFlagRules({
        path: { envId, key: 'new-checkout' },
        body: { rules: [{ conditions: [{ attribute: 'email', operator: 'ends_with', values: ['@acme.test'] }], value: true }] },
      }),
    );
    const rollout = await mutate('putFlagRollout', (c) => c.putFlagRollout({ path: { envId, key: 'new-checkout' }, body: { percent: 12.5, newValue: true } }));
    expect(rollout.id).toBeTruthy();
    await call('getFlagRollout', (c) => c.getFlagRollout({ path: { envId, key: 'new-checkout' } }));
    const ramp = await call('getFlagRolloutRamp', (c) => c.getFlagRolloutRamp({ path: { envId, key: 'new-checkout' } }));
    expect(Array.isArray(ramp.marks)).toBe(true);
    await call('getConfigRolloutRamp', (c) => c.getConfigRolloutRamp({ path: { envId, key: 'checkout.limits' } }));
    await mutate('pauseFlagRollout', (c) => c.pauseFlagRollout({ path: { envId, key: 'new-checkout' } }));
    await mutate('addFlagTargetIds', (c) => c.addFlagTargetIds({ path: { envId, key: 'new-checkout' }, body: { targetIds: ['user-1', 'user-2'] } }));
    const page = await call('listFlagTargetIds', (c) => c.listFlagTargetIds({ path: { envId, key: 'new-checkout' }, query: { limit: 10 } }));
    expect(Array.isArray(page.items)).toBe(true);
    await call('createRolloutPlan', (c) =>
      c.createRolloutPlan({
        path: { id: projectId },
        body: {
          key: 'standard',
          name: 'Standard ramp',
          cadence: 'auto',
          rampSteps: [
            { percent: 10, holdForSeconds: 3600 },
            { percent: 100, holdForSeconds: 0 },
          ],
        },
      }),
    );
    const key = await call('createApiKey', (c) => c.createApiKey({ path: { slug: 'acme' }, body: { name: 'ci', actions: ['read'] } }));
    await call('createApiKey', (c) => c.createApiKey({ path: { slug: 'acme' }, body: { name: 'web page', kind: 'client', environments: [envId], allowedOrigins: ['https://app.example.com'] } }));
    expect(key.token).toBeTruthy();
    await call('revokeApiKey', (c) => c.revokeApiKey({ path: { slug: 'acme', id: key.id } }));
    await call('listAuditEvents', (c) => c.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'flag', limit: 20 } }));
  });

  it('gives a ruleset the local evaluator runs, and evaluate results', async () => {
    const ruleset = await call('getRuleset', (c) => c.getRuleset({ path: { envId } }));
    const typed: Ruleset = ruleset;
    const compiled = compileRuleset(typed);
    expect(compiled.keys.length).toBeGreaterThan(0);
    for (const key of compiled.keys) expect(compiled.evaluate(key, { userId: 'user-1' })).toBeDefined();

    const answer = await call('evaluate', (c) => c.evaluate({ path: { envId }, body: { context: { userId: 'user-1', plan: 'pro' }, keys: ['new-checkout'] } }));
    expect(typeof answer.version).toBe('number');
    for (const result of Object.values(answer.results)) {
      expect(['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DISABLED', 'DEFAULT']).toContain(result.reason);
      expect(result.variant).toMatch(/^(default|rule-[1-9][0-9]*|target-id|rollout-new|rollout-base)$/);
    }
  });

  it('reports usage and reads per-flag usage and insights', async () => {
    const accepted = await call('reportUsage', (c) =>
      c.reportUsage({
        path: { envId },
        body: { windowStart: '2026-11-22T12:00:00.000Z', windowEnd: '2026-11-22T12:01:00.000Z', entries: [{ kind: 'flag', key: 'new-checkout', variant: 'rollout-new', count: 3 }] },
      }),
    );
    expect(typeof accepted.accepted).toBe('number');
    const usage = await call('getFlagUsage', (c) => c.getFlagUsage({ path: { id: projectId, key: 'new-checkout' }, query: { days: 7 } }));
    expect(Array.isArray(usage.environments)).toBe(true);
    await call('getConfigUsage', (c) => c.getConfigUsage({ path: { id: projectId, key: 'checkout.limits' } }));
    const insights = await call('listInsights', (c) => c.listInsights({ path: { id: projectId }, query: { staleAfterDays: 7, status: 'ready_to_remove' } }));
    expect(Array.isArray(insights)).toBe(true);
  });

  it('manages webhook subscriptions, queues a test event and reads the delivery log', async () => {
    const created = await call('createWebhookSubscription', (c) =>
      c.createWebhookSubscription({ path: { id: projectId }, body: { name: 'Deploys', url: 'https://hooks.example.com/gradual', events: ['rollout.advanced'], format: 'slack' } }),
    );
    expect(created.secret).toEqual(expect.any(String));
    const subscriptionId = created.id;
    await call('listWebhookSubscriptions', (c) => c.listWebhookSubscriptions({ path: { id: projectId } }));
    await call('getWebhookSubscription', (c) => c.getWebhookSubscription({ path: { id: projectId, subscriptionId } }));
    await call('updateWebhookSubscription', (c) => c.updateWebhookSubscription({ path: { id: projectId, subscriptionId }, body: { enabled: false } }));
    const queued = await call('testWebhookSubscription', (c) => c.testWebhookSubscription({ path: { id: projectId, subscriptionId } }));
    expect(typeof queued.id).toBe('string');
    const page = await call('listWebhookDeliveries', (c) => c.listWebhookDeliveries({ path: { id: projectId, subscriptionId }, query: { status: 'failed', limit: 10 } }));
    expect(Array.isArray(page.items)).toBe(true);
    await call('deleteWebhookSubscription', (c) => c.deleteWebhookSubscription({ path: { id: projectId, subscriptionId } }));
  });

  it('manages segments, their references and their target-ID lists', async () => {
    const rules = [{ conditions: [{ attribute: 'plan', operator: 'in' as const, values: ['pro'] }] }];
    const segment = await call('createSegment', (c) => c.createSegment({ path: { id: projectId }, body: { key: 'beta', name: 'Beta testers', rules } }));
    expect(typeof segment.includedCount).toBe('number');
    const path = { id: projectId, key: 'beta' };
    await call('listSegments', (c) => c.listSegments({ path: { id: projectId } }));
    await call('getSegment', (c) => c.getSegment({ path }));
    await call('updateSegment', (c) => c.updateSegment({ path, body: { rules: [{ conditions: [{ attribute: 'userId', operator: 'in_segment', values: ['staff'] }] }] } }));
    const referrers = await call('getSegmentReferrers', (c) => c.getSegmentReferrers({ path }));
    expect(Array.isArray(referrers.referrers)).toBe(true);
    for (const list of ['Included', 'Excluded'] as const) {
      await call(`addSegment${list}`, (c) => c[`addSegment${list}`]({ path, body: { targetIds: ['user-1', 'user-2'] } }));
      await call(`removeSegment${list}`, (c) => c[`removeSegment${list}`]({ path, body: { targetIds: ['user-2'] } }));
      await call(`replaceSegment${list}`, (c) => c[`replaceSegment${list}`]({ path, body: { targetIds: ['user-3'] } }));
      await call(`listSegment${list}`, (c) => c[`listSegment${list}`]({ path, query: { limit: 10 } }));
      await call(`checkSegment${list}`, (c) => c[`checkSegment${list}`]({ path: { ...path, targetId: 'user-3' } }));
    }
    await call('deleteSegment', (c) => c.deleteSegment({ path, body: { confirm: 'beta' } }));
  });

  it('reads, archives, restores and deletes flag and config definitions; deletes environments and projects', async () => {
    for (const [noun, key] of [['Flag', 'new-checkout'], ['Config', 'checkout.limits']] as const) {
      const path = { id: projectId, key };
      const definition = await call<Flag | Config>(`get${noun}`, (c) => (noun === 'Flag' ? c.getFlag({ path }) : c.getConfig({ path })));
      expect(Array.isArray(definition.tags)).toBe(true);
      await call<Flag[] | Config[]>(`list${noun}s`, (c) => (noun === 'Flag' ? c.listFlags({ path: { id: projectId }, query: { archived: 'include', tag: 'team:checkout' } }) : c.listConfigs({ path: { id: projectId }, query: { archived: 'only' } })));
      const body = { tags: ['team:checkout'], maintainer: 'ann@acme.test' };
      await call<Flag | Config>(`update${noun}`, (c) => (noun === 'Flag' ? c.updateFlag({ path, body, headers: { 'if-match': '"abc"' } }) : c.updateConfig({ path, body })));
      const archived = await call<Flag | Config>(`archive${noun}`, (c) => (noun === 'Flag' ? c.archiveFlag({ path }) : c.archiveConfig({ path, headers: { 'x-audit-reason': 'done' } })));
      expect('archivedAt' in archived).toBe(true);
      await call<Flag | Config>(`restore${noun}`, (c) => (noun === 'Flag' ? c.restoreFlag({ path }) : c.restoreConfig({ path })));
      await call(`delete${noun}`, (c) => (noun === 'Flag' ? c.deleteFlag({ path, body: { confirm: key } }) : c.deleteConfig({ path, body: { confirm: key } })));
    }
    await call('deleteEnvironment', (c) => c.deleteEnvironment({ path: { envId }, body: { confirm: 'production' } }));
    await call('deleteProject', (c) => c.deleteProject({ path: { id: projectId }, body: { confirm: 'web' } }));
  });

  it('turns mocked error answers into GradualApiError with a code of that status', async () => {
    // No credentials: Prism enforces the declared security.
    const err = await createClient({ baseUrl: prism.url })
      .getOrg({ path: { slug: 'acme' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GradualApiError);
    expect((err as GradualApiError).status).toBe(401);

    for (const [status, run] of [
      [404, () => api.getFlagState({ path: { envId, key: 'new-checkout' }, headers: { prefer: 'code=404' } })],
      [503, () => api.getRuleset({ path: { envId }, headers: { prefer: 'code=503' } })],
      [409, () => api.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' }, headers: { prefer: 'code=409' } })],
      [400, () => api.evaluate({ path: { envId }, body: { context: {} }, headers: { prefer: 'code=400' } })],
    ] as const) {
      const e = (await run().catch((x: unknown) => x)) as GradualApiError;
      expect(e, `status ${status}`).toBeInstanceOf(GradualApiError);
      expect(e.status).toBe(status);
      expect(errorCatalog[e.code], `${e.code} is a code of ${status}`).toBe(status);
      expect(e.requestId).toBeTruthy();
    }
  });

  it("would notice a request the spec refuses: Prism answers the operation's 400 and says why", async () => {
    takeViolations();
    const e = (await api.createProject({ path: { slug: 'acme' }, body: { key: 'has space', name: '' } }).catch((x: unknown) => x)) as GradualApiError;
    expect(e).toBeInstanceOf(GradualApiError);
    expect(e).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(takeViolations().join()).toMatch(/"location":\["request","body","key"\]/);
  });
});

describe("the spec's examples (every JSON GET mocked by Prism)", () => {
  const pathValues: Record<string, string> = { envId, id: projectId, slug: 'acme', targetId: 'user-1', subscriptionId: envId };
  const gets = [...routes.entries()].filter(([, r]) => r.method === 'GET');

  it.each(gets.map(([operationId, route]) => [operationId, route] as const))('%s: the mocked 200 parses with the contract', async (operationId, route) => {
    const responses = route.responses as Record<number, unknown>;
    if (!isZod(responses[200]) || route.path.endsWith('/stream')) return;
    const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => pathValues[name] ?? 'new-checkout');
    const res = await fetch(`${prism.url}${path}`, {
      headers: { authorization: `Bearer ${credentials.token}`, cookie: `svc_session=${credentials.sessionToken}` },
    });
    if (res.status === 404 && (await res.clone().json().catch(() => ({})) as { type?: string }).type?.includes('NO_PATH_MATCHED')) {
      throw new Error(`${operationId}: Prism has no path ${path}`);
    }
    expect(res.status, `${operationId} ${path}: ${await res.clone().text()}`).toBe(200);
    conforms(operationId, 200, await res.json());
  });
});
