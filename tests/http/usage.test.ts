import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { rolloutOps } from '../support/rollout-ops.js';

const DAY = 24 * 3600;
/** The test clock is pinned here first (a half hour, so that hours are easy to reason about). */
const T0 = new Date('2026-11-02T10:30:00.000Z');
const at = (offsetSeconds: number) => new Date(T0.getTime() + offsetSeconds * 1000).toISOString();

/**
 * Usage insights: SDK reports (`POST /envs/{envId}/usage`) and the server's own evaluations
 * (`/evaluate`, OFREP) summed per hour; per-flag usage; and the insights statuses, moving with the
 * test clock.
 */
describe('usage', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let prod: string;
  let staging: string;
  /** An admin API key: sessions expire when the clock jumps weeks ahead, keys without an expiry do not. */
  let admin: ClaimedInstance['session'];
  /** An sdk key of staging for the last test, minted before the session expires. */
  let lateSdk: ClaimedInstance['session'];

  const mint = (body: Parameters<ClaimedInstance['session']['createApiKey']>[0]['body']) => owner.session.createApiKey({ path: { slug: 'acme' }, body });
  const flagUsage = (key: string, days?: number) => admin.getFlagUsage({ path: { id: projectId, key }, query: days ? { days } : {} });
  const envUsage = async (key: string, envId: string) => (await flagUsage(key)).environments.find((e) => e.envId === envId)!;

  beforeAll(async () => {
    t = await startTestServer();
    await t.setClock(T0);
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    prod = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    staging = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', defaultValue: true, clientVisible: true } });
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'internal', name: 'Internal', defaultValue: false } });
    await owner.session.createConfig({ path: { id: projectId }, body: { key: 'theme', name: 'Theme', defaultValue: { color: 'blue' } } });
    admin = t.asToken((await mint({ name: 'admin' })).token);
    lateSdk = t.asToken((await mint({ name: 'backend late', kind: 'sdk', environments: [staging] })).token);
  });
  afterAll(() => t?.close());

  it('refuses bad windows and entries with 400 naming the field, and counts nothing from a refused report', async () => {
    const sdk = t.asToken((await mint({ name: 'backend', kind: 'sdk', environments: [prod] })).token);
    const entries = [{ kind: 'flag' as const, key: 'banner', variant: 'default', count: 5 }];
    const refused = async (body: Parameters<typeof sdk.reportUsage>[0]['body'], field: string) => {
      const err = await expectApiError(sdk.reportUsage({ path: { envId: prod }, body }), 400, 'invalid_request');
      expect(Object.keys(err.fields ?? {})).toContain(field);
    };
    await refused({ windowStart: at(0), windowEnd: at(6 * 60), entries }, 'windowEnd'); // beyond the 5-minute skew
    await refused({ windowStart: at(-60), windowEnd: at(-120), entries }, 'windowStart');
    await refused({ windowStart: at(-3601 - 60), windowEnd: at(-60), entries }, 'windowStart');
    await refused({ windowStart: at(-91 * DAY - 60), windowEnd: at(-91 * DAY), entries }, 'windowEnd');
    // Only the current hour (10:00) and the previous one (09:00) of the server's clock take reports.
    await refused({ windowStart: at(-3 * DAY - 60), windowEnd: at(-3 * DAY), entries }, 'windowEnd');
    await refused({ windowStart: at(-91 * 60), windowEnd: at(-90 * 60 - 1), entries }, 'windowEnd'); // 08:59:59
    await refused({ windowStart: 'yesterday', windowEnd: at(0), entries }, 'windowStart');
    await refused({ windowStart: at(-60), windowEnd: at(0), entries: [{ ...entries[0]!, count: 0 }] }, 'entries.0.count');
    await refused({ windowStart: at(-60), windowEnd: at(0), entries: [{ ...entries[0]!, variant: '' }] }, 'entries.0.variant');
    expect((await envUsage('banner', prod)).total).toBe(0);
    // A little ahead of the clock is within the skew: counted as now.
    expect(await sdk.reportUsage({ path: { envId: prod }, body: { windowStart: at(0), windowEnd: at(4 * 60), entries } })).toEqual({ accepted: 1, skipped: 0, dropped: 0, overLimit: 0 });
    const usage = await envUsage('banner', prod);
    expect(usage).toMatchObject({ total: 5, lastEvaluatedAt: at(0), hourly: [{ hour: '2026-11-02T10:00:00.000Z', count: 5 }] });
  });

  it('skips keys the environment does not have (and a key under the wrong kind), counting the rest', async () => {
    const sdk = t.asToken((await mint({ name: 'backend 2', kind: 'sdk', environments: [staging] })).token);
    await owner.session.setConfigRules({ path: { envId: staging, key: 'theme' }, body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: { color: 'gold' } }] } });
    const answer = await sdk.reportUsage({
      path: { envId: staging },
      body: {
        windowStart: at(-60),
        windowEnd: at(0),
        entries: [
          { kind: 'flag', key: 'internal', variant: 'default', count: 3 },
          { kind: 'flag', key: 'no-such-flag', variant: 'default', count: 3 },
          { kind: 'config', key: 'internal', variant: 'default', count: 3 },
          { kind: 'config', key: 'theme', variant: 'rule-1', count: 2 },
        ],
      },
    });
    expect(answer).toEqual({ accepted: 2, skipped: 2, dropped: 0, overLimit: 0 });
    expect((await envUsage('internal', staging)).total).toBe(3);
    const theme = await owner.session.getConfigUsage({ path: { id: projectId, key: 'theme' } });
    expect(theme.environments.find((e) => e.envId === staging)).toMatchObject({ total: 2, variants: [{ variant: 'rule-1', count: 2 }] });
    // Another environment's key cannot report here.
    await expectApiError(sdk.reportUsage({ path: { envId: prod }, body: { windowStart: at(-60), windowEnd: at(0), entries: [] } }), 403, 'token_env_out_of_scope');
    await expectApiError(t.anonymous.reportUsage({ path: { envId: staging }, body: { windowStart: at(-60), windowEnd: at(0), entries: [] } }), 401, 'unauthorized');
    await expectApiError(owner.session.getFlagUsage({ path: { id: projectId, key: 'no-such-flag' } }), 404, 'not_found');
  });

  it('lets a client key report its client-visible flags only', async () => {
    const client = t.asToken((await mint({ name: 'web page', kind: 'client', environments: [prod], actions: ['read'] })).token);
    const before = (await envUsage('internal', prod)).total;
    const answer = await client.reportUsage({
      path: { envId: prod },
      body: {
        windowStart: at(-60),
        windowEnd: at(0),
        entries: [
          { kind: 'flag', key: 'banner', variant: 'default', count: 7 },
          { kind: 'flag', key: 'internal', variant: 'default', count: 7 },
        ],
      },
    });
    expect(answer).toEqual({ accepted: 1, skipped: 1, dropped: 0, overLimit: 0 });
    expect((await envUsage('internal', prod)).total).toBe(before);
    expect((await envUsage('banner', prod)).total).toBe(12);
    // A client key reads no usage.
    await expectApiError(client.getFlagUsage({ path: { id: projectId, key: 'banner' } }), 403, 'scope_denied');
  });

  it('sums reports into the hour their window ends in, per variant, with the latest window end as the last evaluation', async () => {
    const sdk = t.asToken((await mint({ name: 'backend 3', kind: 'sdk', environments: [staging] })).token);
    const report = (windowEnd: string, entries: Array<{ variant: string; count: number }>) =>
      sdk.reportUsage({
        path: { envId: staging },
        body: { windowStart: new Date(Date.parse(windowEnd) - 60_000).toISOString(), windowEnd, entries: entries.map((e) => ({ kind: 'flag', key: 'banner', ...e })) },
      });
    await report(at(-40 * 60), [{ variant: 'default', count: 10 }]); // 09:50, the previous hour
    await owner.session.setFlagRules({ path: { envId: staging, key: 'banner' }, body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: false }] } });
    await report(at(-20 * 60), [
      { variant: 'default', count: 1 },
      { variant: 'rule-1', count: 4 },
      { variant: 'default', count: 2 }, // the same variant twice in one report is summed
    ]); // 10:10
    await report(at(-25 * 60), [{ variant: 'rule-1', count: 6 }]); // 10:05, an older window arriving later
    const usage = await envUsage('banner', staging);
    expect(usage).toEqual({
      envId: staging,
      envKey: 'staging',
      lastEvaluatedAt: at(-20 * 60),
      total: 23,
      variants: [
        { variant: 'default', count: 13 },
        { variant: 'rule-1', count: 10 },
      ],
      hourly: [
        { hour: '2026-11-02T09:00:00.000Z', count: 10 },
        { hour: '2026-11-02T10:00:00.000Z', count: 13 },
      ],
    });
  });

  it('counts the evaluations the server answers (/evaluate, also from memory, and OFREP) once they are flushed', async () => {
    const token = (await mint({ name: 'server side', kind: 'sdk', environments: [prod] })).token;
    const sdk = t.asToken(token);
    const before = (await envUsage('internal', prod)).total;
    const beforeTheme = (await owner.session.getConfigUsage({ path: { id: projectId, key: 'theme' } })).environments.find((e) => e.envId === prod)!.total;
    for (let i = 0; i < 3; i++) await sdk.evaluate({ path: { envId: prod }, body: { context: { userId: 'u1' }, keys: ['internal', 'theme'] } });
    const ofrep = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${t.url}/api/v1/ofrep/v1/evaluate/flags${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
        body: JSON.stringify({ context: { targetingKey: 'u1' } }),
      });
    for (let i = 0; i < 2; i++) expect((await ofrep('/internal')).status).toBe(200);
    const bulk = await ofrep('');
    expect(bulk.status).toBe(200);
    // A 304 serves the same evaluations again: they count.
    expect((await ofrep('', { 'if-none-match': bulk.headers.get('etag')! })).status).toBe(304);
    expect((await ofrep('', { 'if-none-match': bulk.headers.get('etag')! })).status).toBe(304);
    expect((await envUsage('internal', prod)).total).toBe(before); // not yet written
    await t.advanceClock(60);
    const internal = await envUsage('internal', prod);
    expect(internal.total).toBe(before + 3 + 2 + 3);
    expect(internal.variants.find((v) => v.variant === 'default')!.count).toBeGreaterThanOrEqual(8);
    expect(internal.lastEvaluatedAt).toBe(at(60));
    const theme = (await owner.session.getConfigUsage({ path: { id: projectId, key: 'theme' } })).environments.find((e) => e.envId === prod)!;
    expect(theme.total).toBe(beforeTheme + 3 + 3);
    // Nothing is counted twice: a second flush writes nothing new.
    await t.advanceClock(60);
    expect((await envUsage('internal', prod)).total).toBe(before + 8);
  });

  it('tells new, in-use, not-evaluated and ready-to-remove flags apart as time passes', async () => {
    const project = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'insights', name: 'Insights' } })).id;
    const a = (await owner.session.createEnvironment({ path: { id: project }, body: { key: 'a', name: 'A' } })).id;
    const b = (await owner.session.createEnvironment({ path: { id: project }, body: { key: 'b', name: 'B' } })).id;
    const created = await t.advanceClock(0);
    for (const key of ['fresh', 'used', 'done', 'rolling']) await owner.session.createFlag({ path: { id: project }, body: { key, name: key, defaultValue: false } });
    // used: another value in b (never uniform); done: a rollout completed in both environments; rolling: a live rollout.
    await admin.setFlagValue({ path: { envId: b, key: 'used' }, body: { value: true } });
    const ops = rolloutOps(admin, 'flag');
    await t.advanceClock(60);
    for (const envId of [a, b]) expect(await ops.put({ envId, key: 'done' }, { percent: 100, newValue: true })).toMatchObject({ status: 'completed' });
    await ops.put({ envId: a, key: 'rolling' }, { percent: 50, newValue: true });
    const doneAt = (await t.advanceClock(0)).toISOString();
    const sdkA = t.asToken((await mint({ name: 'insights a', kind: 'sdk', environments: [a] })).token);
    const reportUsed = async () => {
      const now = (await t.advanceClock(0)).getTime();
      await sdkA.reportUsage({
        path: { envId: a },
        body: { windowStart: new Date(now - 60_000).toISOString(), windowEnd: new Date(now).toISOString(), entries: [{ kind: 'flag', key: 'used', variant: 'default', count: 1 }] },
      });
    };
    const statuses = async (query: { readyAfterDays?: number; staleAfterDays?: number } = {}) =>
      Object.fromEntries((await admin.listInsights({ path: { id: project }, query })).map((i) => [i.key, i.status]));

    await reportUsed();
    await sdkA.evaluate({ path: { envId: a }, body: { context: { userId: 'u1' }, keys: ['done'] } });
    await t.advanceClock(60); // flushes the server-side count
    expect(await statuses()).toEqual({ fresh: 'new', used: 'in_use', done: 'in_use', rolling: 'new' });
    const insights = await admin.listInsights({ path: { id: project } });
    const done = insights.find((i) => i.key === 'done')!;
    expect(done).toMatchObject({ kind: 'flag', name: 'done', createdAt: created.toISOString(), evaluations: 1 });
    expect(Date.parse(done.lastChangedAt)).toBeGreaterThanOrEqual(Date.parse(created.toISOString()) + 60_000);
    expect(Date.parse(done.lastChangedAt)).toBeLessThanOrEqual(Date.parse(doneAt));
    expect(done.environments).toEqual([
      { envId: a, envKey: 'a', lastEvaluatedAt: expect.any(String), evaluations: 1 },
      { envId: b, envKey: 'b', lastEvaluatedAt: null, evaluations: 0 },
    ]);
    expect(insights.find((i) => i.key === 'fresh')).toMatchObject({ lastEvaluatedAt: null, evaluations: 0, lastChangedAt: created.toISOString() });

    // Eight days on: nothing evaluated fresh, done or rolling in the last seven.
    await t.advanceClock(8 * DAY);
    await reportUsed();
    expect(await statuses()).toEqual({ fresh: 'not_evaluated', used: 'in_use', done: 'not_evaluated', rolling: 'not_evaluated' });
    // readyAfterDays and staleAfterDays move the lines.
    expect(await statuses({ readyAfterDays: 5 })).toEqual({ fresh: 'ready_to_remove', used: 'in_use', done: 'ready_to_remove', rolling: 'not_evaluated' });
    expect((await statuses({ staleAfterDays: 10 })).fresh).toBe('new');

    // A month after the last change: one value everywhere, no rules, no live rollout.
    await t.advanceClock(23 * DAY);
    await reportUsed();
    expect(await statuses()).toEqual({ fresh: 'ready_to_remove', used: 'in_use', done: 'ready_to_remove', rolling: 'not_evaluated' });
    const ready = await admin.listInsights({ path: { id: project }, query: { status: 'ready_to_remove' } });
    expect(ready.map((i) => i.key)).toEqual(['done', 'fresh']);
    // A change starts the count again.
    await admin.setFlagValue({ path: { envId: a, key: 'fresh' }, body: { value: true } });
    await admin.setFlagValue({ path: { envId: b, key: 'fresh' }, body: { value: true } });
    expect((await statuses()).fresh).toBe('not_evaluated');
  });

  it('bounds the series by `days`, and deletes hours past the 90-day retention on the periodic flush', async () => {
    // The clock is a month past the reports of 'sums reports…' (23 evaluations): `days` decides what is in view.
    const sdk = lateSdk;
    const now = (await t.advanceClock(0)).getTime();
    const body = { windowStart: new Date(now - 60_000).toISOString(), windowEnd: new Date(now).toISOString(), entries: [{ kind: 'flag' as const, key: 'banner', variant: 'default', count: 100 }] };
    expect(await sdk.reportUsage({ path: { envId: staging }, body })).toEqual({ accepted: 1, skipped: 0, dropped: 0, overLimit: 0 });
    const staged = async (days: number) => (await flagUsage('banner', days)).environments.find((e) => e.envId === staging)!.total;
    expect(await staged(1)).toBe(100);
    expect(await staged(7)).toBe(100);
    expect(await staged(90)).toBe(123);
    expect((await envUsage('banner', staging)).lastEvaluatedAt).not.toBeNull();
    await t.advanceClock(95 * DAY);
    const usage = await envUsage('banner', staging);
    expect(usage).toMatchObject({ lastEvaluatedAt: null, total: 0, hourly: [] });
  });
});
