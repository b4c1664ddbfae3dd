import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { GradualClient } from '@gradual/sdk';
import { loadConfig } from '../../server/src/config.js';
import { openDatabase, type Database } from '../../server/src/db/database.js';
import { rawQuery } from '../../server/src/features/common/sql.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/** The test clock is pinned here first. */
const T0 = new Date('2026-11-02T10:30:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Evaluations a client key's reports may add per client address and hour, and an sdk key's per hour (small, for the test). */
const CLIENT_CAP = 1_000;
const KEY_CAP = 50_000;
const ENV = {
  TRUST_PROXY: '1', // the client address is the X-Forwarded-For the test sends
  USAGE_REPORT_MAX_PER_CLIENT_IP_PER_HOUR: String(CLIENT_CAP),
  USAGE_REPORT_MAX_PER_KEY_PER_HOUR: String(KEY_CAP),
  // The request rate limits are not what this file tests: 1,000 reports from one address pass them.
  CLIENT_KEY_RATE_LIMIT_PER_IP_PER_MIN: '1000000',
  ORG_RATE_LIMIT_PER_MIN: '1000000',
};

interface Entry {
  kind: 'flag' | 'config';
  key: string;
  variant: string;
  count: number;
}
interface Answer {
  accepted: number;
  skipped: number;
  dropped: number;
  overLimit: number;
}

/**
 * What bounds usage reports (docs/usage.md, "Limits"): only variants the evaluator can serve for
 * the flag or config in that environment, only windows ending in the current or the previous hour
 * of the server's clock, and a cap on the evaluations each reporter adds per hour, a client key's
 * per client address. Hostile reports neither add rows nor change what the usage reads say.
 */
describe('usage report limits', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let prod: string;
  let staging: string;
  let sdkToken: string;
  let clientToken: string;
  let sdk: GradualClient;

  /** A usage report straight to the server, from `address` (X-Forwarded-For; TRUST_PROXY=1). */
  const post = (token: string, envId: string, body: unknown, address: string, url = t.server.url) =>
    fetch(`${url}/api/v1/envs/${envId}/usage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify(body),
    });
  const report = async (token: string, envId: string, body: unknown, address: string, url?: string): Promise<Answer> => {
    const res = await post(token, envId, body, address, url);
    if (res.status !== 202) throw new Error(`expected 202, got ${res.status}: ${await res.text()}`);
    return (await res.json()) as Answer;
  };
  /** A report of `entries` whose window is the minute before `endMs` (default: the server's now). */
  const windowTo = async (entries: Entry[], endMs?: number) => {
    const end = endMs ?? (await t.advanceClock(0)).getTime();
    return { windowStart: iso(end - MINUTE), windowEnd: iso(end), entries };
  };
  const flag = (key: string, variant: string, count: number): Entry => ({ kind: 'flag', key, variant, count });
  const usageOf = async (key: string, envId = prod) => (await owner.session.getFlagUsage({ path: { id: projectId, key }, query: { days: 90 } })).environments.find((e) => e.envId === envId)!;
  const variantsOf = async (key: string, envId = prod) => Object.fromEntries((await usageOf(key, envId)).variants.map((v) => [v.variant, v.count]));
  const rows = async () => Number((await rawQuery<{ n: string }>(t.server.deps.db.em(), 'select count(*) as n from usage_hours')).rows[0]!.n);
  const rule = (attribute: string, value: unknown) => ({ conditions: [{ attribute, operator: 'in' as const, values: ['x'] }], value });

  beforeAll(async () => {
    t = await startTestServer(ENV, { direct: true });
    await t.setClock(T0);
    owner = await claim(t);
    const api = owner.session;
    projectId = (await api.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    prod = (await api.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    staging = (await api.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    for (const key of ['checkout', 'banner', 'old']) await api.createFlag({ path: { id: projectId }, body: { key, name: key, defaultValue: false, clientVisible: true } });
    await api.createFlag({ path: { id: projectId }, body: { key: 'internal', name: 'Internal', defaultValue: false } });
    await api.createConfig({ path: { id: projectId }, body: { key: 'theme', name: 'Theme', defaultValue: { color: 'blue' }, clientVisible: true } });
    // checkout: two rules in prod, none in staging; old: one rule, then archived (an archived flag applies no rule).
    await api.setFlagRules({ path: { envId: prod, key: 'checkout' }, body: { rules: [rule('plan', true), rule('country', true)] } });
    await api.setFlagRules({ path: { envId: prod, key: 'old' }, body: { rules: [rule('plan', true)] } });
    await api.archiveFlag({ path: { id: projectId, key: 'old' } });
    await api.setConfigRules({ path: { envId: prod, key: 'theme' }, body: { rules: [rule('plan', { color: 'gold' })] } });
    const mint = async (kind: 'sdk' | 'client') =>
      (await api.createApiKey({ path: { slug: 'acme' }, body: { name: kind, kind, environments: [prod], rateLimitPerMin: 100_000, ...(kind === 'client' ? { actions: ['read' as const] } : {}) } })).token;
    sdkToken = await mint('sdk');
    clientToken = await mint('client');
    sdk = t.asToken(sdkToken);
  });
  afterAll(() => t?.close());

  it('keeps the entries with a variant the flag can serve in that environment and drops the others, counting them in `dropped`', async () => {
    const answer = await report(
      sdkToken,
      prod,
      await windowTo([
        flag('checkout', 'default', 1),
        flag('checkout', 'rule-2', 2), // two rules in prod
        flag('checkout', 'rule-3', 4), // dropped: no third rule
        flag('checkout', 'variant-a', 8), // dropped: not a variant of the evaluator
        flag('checkout', 'rule-01', 16), // dropped: the evaluator writes rule-1
        flag('banner', 'rule-1', 32), // dropped: banner has no rule
        flag('old', 'rule-1', 64), // dropped: archived, so no rule applies
        flag('old', 'default', 128),
        flag('no-such-flag', 'default', 256), // skipped
        { kind: 'config', key: 'theme', variant: 'rule-1', count: 512 },
      ]),
      '198.51.100.1',
    );
    expect(answer).toEqual({ accepted: 4, skipped: 1, dropped: 5, overLimit: 0 });
    expect(await variantsOf('checkout')).toEqual({ default: 1, 'rule-2': 2 });
    expect(await variantsOf('banner')).toEqual({});
    expect(await variantsOf('old')).toEqual({ default: 128 });
    // The rules counted are those of the report's environment: checkout has none in staging.
    const inStaging = await owner.session.reportUsage({ path: { envId: staging }, body: await windowTo([flag('checkout', 'rule-1', 1), flag('checkout', 'rollout-new', 1)]) });
    expect(inStaging).toEqual({ accepted: 1, skipped: 0, dropped: 1, overLimit: 0 });
    expect(await variantsOf('checkout', staging)).toEqual({ 'rollout-new': 1 });
  });

  it('takes windows ending in the current or the previous hour of the server clock, so a report across an hour boundary keeps its batch', async () => {
    const eleven = Date.parse('2026-11-02T11:00:00.000Z');
    await t.setClock(new Date(eleven + 20_000));
    // Counted while the clock read 10:59:50 and sent at 11:00:20 (a slow network): the previous hour.
    expect(await sdk.reportUsage({ path: { envId: prod }, body: { windowStart: iso(eleven - 70_000), windowEnd: iso(eleven - 10_000), entries: [flag('banner', 'default', 3)] } })).toMatchObject({ accepted: 1 });
    // A window from 10:59:30 to 11:00:10: the hour it ends in.
    expect(await sdk.reportUsage({ path: { envId: prod }, body: { windowStart: iso(eleven - 30_000), windowEnd: iso(eleven + 10_000), entries: [flag('banner', 'default', 4)] } })).toMatchObject({ accepted: 1 });
    // A client clock running 20 minutes behind still lands in the previous hour.
    expect(await sdk.reportUsage({ path: { envId: prod }, body: { windowStart: iso(eleven - 21 * MINUTE), windowEnd: iso(eleven - 20 * MINUTE), entries: [flag('banner', 'default', 5)] } })).toMatchObject({ accepted: 1 });
    const old = await post(sdkToken, prod, { windowStart: iso(eleven - HOUR - MINUTE), windowEnd: iso(eleven - HOUR - 1), entries: [flag('banner', 'default', 6)] }, '198.51.100.1');
    expect(old.status).toBe(400);
    expect(await old.json()).toMatchObject({ code: 'invalid_request', fields: { windowEnd: expect.stringContaining('2026-11-02T10:00:00.000Z') } });
    expect((await usageOf('banner')).hourly).toEqual([
      { hour: '2026-11-02T10:00:00.000Z', count: 8 },
      { hour: '2026-11-02T11:00:00.000Z', count: 4 },
    ]);
  });

  it('1,000 hostile reports with a public client key leave the rows, the usage and the insights as honest reports made them', async () => {
    await t.setClock(new Date('2026-11-02T12:10:00.000Z'));
    // Honest reports: two visitors' pages and a backend.
    expect(await report(clientToken, prod, await windowTo([flag('checkout', 'default', 40), flag('checkout', 'rule-1', 10), flag('banner', 'default', 5)]), '198.51.100.7')).toMatchObject({ accepted: 3, overLimit: 0 });
    expect(await report(clientToken, prod, await windowTo([flag('checkout', 'rule-2', 3)]), '198.51.100.8')).toMatchObject({ accepted: 1, overLimit: 0 });
    expect(await sdk.reportUsage({ path: { envId: prod }, body: await windowTo([flag('checkout', 'rollout-base', 700), flag('internal', 'default', 9)]) })).toMatchObject({ accepted: 2, overLimit: 0 });

    const snapshot = async () => ({
      rows: await rows(),
      checkout: await owner.session.getFlagUsage({ path: { id: projectId, key: 'checkout' }, query: { days: 90 } }),
      banner: await owner.session.getFlagUsage({ path: { id: projectId, key: 'banner' }, query: { days: 90 } }),
      theme: await owner.session.getConfigUsage({ path: { id: projectId, key: 'theme' }, query: { days: 90 } }),
      insights: await owner.session.listInsights({ path: { id: projectId } }),
    });
    const honest = await snapshot();

    const now = (await t.advanceClock(0)).getTime();
    const keys = ['checkout', 'banner', 'internal', 'old'];
    /** Report i of the attack: what it sends, the status it must get, and how many of its entries are accepted (counted as 0). */
    const hostile = (i: number): { body: unknown; status: number; accepted: number } => {
      const many = (variant: (j: number) => string, count = 1_000_000_000) =>
        Array.from({ length: 40 }, (_, j): Entry => ({ kind: j % 10 === 9 ? 'config' : 'flag', key: j % 10 === 9 ? 'theme' : keys[j % keys.length]!, variant: variant(j), count }));
      const recent = { windowStart: iso(now - MINUTE), windowEnd: iso(now) };
      switch (i % 6) {
        case 0: // free-text variants: every one a new row before
          return { body: { ...recent, entries: many((j) => `v-${i}-${j}`) }, status: 202, accepted: 0 };
        case 1: // rule numbers the flags do not have, and near misses of real variants
          return {
            body: { ...recent, entries: many((j) => [`rule-${3 + ((i + j) % 198)}`, 'rule-0', 'rule-201', `rule-${10 ** 9 + i}`, 'Default', ' default', 'rollout_new', 'rollout-NEW'][j % 8]!) },
            status: 202,
            accepted: 0,
          };
        case 2: // any hour of the last 90 days: every hour a new row before
          return { body: { windowStart: iso(now - 2 * HOUR - (i % 89) * DAY - MINUTE), windowEnd: iso(now - 2 * HOUR - (i % 89) * DAY), entries: many(() => 'default') }, status: 400, accepted: 0 };
        case 3: // the future, and windows longer than an hour
          return i % 2
            ? { body: { windowStart: iso(now), windowEnd: iso(now + 6 * MINUTE), entries: many(() => 'default') }, status: 400, accepted: 0 }
            : { body: { windowStart: iso(now - 2 * HOUR), windowEnd: iso(now), entries: many(() => 'default') }, status: 400, accepted: 0 };
        case 4: // flags a client key may not report, and keys the project does not have
          return { body: { ...recent, entries: many((j) => (j % 2 ? 'default' : 'rule-1')).map((e, j) => ({ ...e, kind: 'flag', key: j % 2 ? 'internal' : `ghost-${i}-${j}` })) }, status: 202, accepted: 0 };
        default: // real variants with the largest counts: over the address's budget, spent above
          return { body: { ...recent, entries: many((j) => ['default', 'rollout-new', 'rollout-base', 'target-id'][j % 4]!).map((e) => ({ ...e, kind: 'flag', key: 'checkout' })) }, status: 202, accepted: 40 };
      }
    };
    // The attacker's address has a budget of its own: its first report spends it (banner gets CLIENT_CAP, in one new row).
    expect(await report(clientToken, prod, await windowTo([flag('banner', 'rollout-new', CLIENT_CAP + 1)]), '192.0.2.66')).toMatchObject({ accepted: 1, overLimit: 1 });
    const afterBudget = await snapshot();
    const wrong: string[] = [];
    const answers: Answer[] = [];
    for (let batch = 0; batch < 1000; batch += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async (_, k) => {
          const { body, status, accepted } = hostile(batch + k);
          const res = await post(clientToken, prod, body, '192.0.2.66');
          const answer = res.status === 202 ? ((await res.json()) as Answer) : (await res.body?.cancel(), null);
          if (answer) answers.push(answer);
          if (res.status !== status || (answer && (answer.accepted !== accepted || (accepted > 0 && answer.overLimit !== accepted * 1_000_000_000)))) {
            wrong.push(`report ${batch + k}: ${res.status} ${JSON.stringify(answer)}`);
          }
        }),
      );
    }
    expect(wrong).toEqual([]);
    expect(answers).toHaveLength(666);
    // Of the 40 entries of a report with made-up variants, the 10 naming `internal` (not client-visible) are skipped, the rest dropped.
    expect(answers.reduce((n, a) => n + a.dropped, 0)).toBe(334 * 30);
    expect(answers.reduce((n, a) => n + a.skipped, 0)).toBe(334 * 10 + 166 * 40);

    // Not one row more, and every read as before the attack.
    const attacked = await snapshot();
    expect(attacked).toEqual(afterBudget);
    expect(attacked.rows).toBe(honest.rows + 1); // banner's rollout-new of this hour
    expect(attacked.checkout).toEqual(honest.checkout);
    expect(attacked.theme).toEqual(honest.theme);
    expect((await variantsOf('banner'))['rollout-new']).toBe(CLIENT_CAP);
  }, 60_000);

  it('caps what a client key reports per client address and hour, in proportion across the entries, without touching other visitors', async () => {
    await t.setClock(new Date('2026-11-02T13:30:00.000Z'));
    const before = await variantsOf('checkout');
    const hourOf = async (hour: string) => (await usageOf('checkout')).hourly.find((h) => h.hour === hour)?.count ?? 0;
    // 3,000 and 1,000 against a budget of 1,000: three quarters and one quarter of it.
    expect(await report(clientToken, prod, await windowTo([flag('checkout', 'default', 3000), flag('checkout', 'rule-1', 1000)]), '203.0.113.5')).toEqual({ accepted: 2, skipped: 0, dropped: 0, overLimit: 3000 });
    expect(await report(clientToken, prod, await windowTo([flag('checkout', 'default', 1)]), '203.0.113.5')).toEqual({ accepted: 1, skipped: 0, dropped: 0, overLimit: 1 });
    // An IPv6 client counts per /64: another address of the network shares the budget.
    expect(await report(clientToken, prod, await windowTo([flag('checkout', 'default', 600)]), '2001:db8:1:2::1')).toMatchObject({ overLimit: 0 });
    expect(await report(clientToken, prod, await windowTo([flag('checkout', 'default', 600)]), '2001:db8:1:2:ffff::9')).toMatchObject({ overLimit: 200 });
    // Another visitor is counted in full.
    expect(await report(clientToken, prod, await windowTo([flag('checkout', 'default', 7)]), '203.0.113.6')).toMatchObject({ accepted: 1, overLimit: 0 });
    const after = await variantsOf('checkout');
    expect(after.default! - before.default!).toBe(750 + 1000 + 7);
    expect(after['rule-1']! - before['rule-1']!).toBe(250);
    expect(await hourOf('2026-11-02T13:00:00.000Z')).toBe(2 * CLIENT_CAP + 7);
    // The previous hour has a budget of its own; the next hour starts a new one.
    expect(await report(clientToken, prod, await windowTo([flag('checkout', 'default', 5000)], Date.parse('2026-11-02T12:59:00.000Z')), '203.0.113.5')).toMatchObject({ overLimit: 4000 });
    await t.setClock(new Date('2026-11-02T14:00:30.000Z'));
    expect(await report(clientToken, prod, await windowTo([flag('checkout', 'default', 5000)]), '203.0.113.5')).toMatchObject({ overLimit: 4000 });
    expect(await hourOf('2026-11-02T14:00:00.000Z')).toBe(CLIENT_CAP);
  });

  it('caps what an sdk key reports per hour, whatever the address', async () => {
    await t.setClock(new Date('2026-11-02T15:10:00.000Z'));
    const first = await report(sdkToken, prod, await windowTo([flag('banner', 'default', 1_000_000_000)]), '203.0.113.1');
    const second = await report(sdkToken, prod, await windowTo([flag('banner', 'default', 5)]), '203.0.113.2');
    expect(first).toEqual({ accepted: 1, skipped: 0, dropped: 0, overLimit: 1_000_000_000 - KEY_CAP });
    expect(second).toEqual({ accepted: 1, skipped: 0, dropped: 0, overLimit: 5 });
    expect((await usageOf('banner')).hourly.find((h) => h.hour === '2026-11-02T15:00:00.000Z')).toEqual({ hour: '2026-11-02T15:00:00.000Z', count: KEY_CAP });
  });

  it('holds the cap for concurrent reports of one address, also across two servers sharing a PostgreSQL database', async () => {
    const at = await t.setClock(new Date('2026-11-02T16:10:00.000Z'));
    let second: RunningServer | undefined;
    let db: Database | undefined;
    try {
      const urls = [t.server.url];
      if (process.env.DATABASE_URL) {
        db = await openDatabase({ ...t.databaseOptions, migrate: false });
        second = await startServer({ config: loadConfig({ PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'test', LOG_LEVEL: 'silent', SERVICE_TEST_CLOCK: '1', ...ENV }), db, logger: pino({ level: 'silent' }) });
        const moved = await fetch(`${second.url}/__test__/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ now: at.toISOString() }) });
        expect(moved.status).toBe(200);
        urls.push(second.url);
      }
      const body = await windowTo([flag('checkout', 'rule-2', 70), flag('banner', 'default', 30)]);
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => report(clientToken, prod, body, '192.0.2.200', urls[i % urls.length])));
      const counted = answers.reduce((n, a) => n + 100 - a.overLimit, 0);
      expect(counted).toBe(CLIENT_CAP);
      const hour = '2026-11-02T16:00:00.000Z';
      const inHour = async (key: string) => (await usageOf(key)).hourly.find((h) => h.hour === hour)?.count ?? 0;
      expect((await inHour('checkout')) + (await inHour('banner'))).toBe(CLIENT_CAP);
    } finally {
      await second?.close();
      await db?.close();
    }
  });
});
