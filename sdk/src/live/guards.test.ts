/**
 * Guard reporting with fake timers and a fake transport: the arms of exposed contexts, each
 * counted once per step, events attributed by the same rule, a new step or a resume starting the
 * counts over, and the live client's `track` and reports. The server's side is tests/http/guards.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GuardReport } from '../generated/types.gen.js';
import { armOf } from '../evaluation/arms.js';
import { compileRuleset } from '../evaluation/index.js';
import { rulesetBuilder } from '../testing/ruleset-builder.js';
import { createFlagClient } from './flag-client.js';
import { servedArm } from './guards.js';

const T0 = Date.parse('2026-12-01T12:00:00.000Z');
const ENV = 'env-guards';
const SINCE = '2026-12-01T11:00:00.000Z';

function rulesetAt(percent: number, since = SINCE, version = 1) {
  return rulesetBuilder({ envId: ENV, version })
    .flag('checkout', false, { rollout: { percent, newValue: true, targetIds: ['vip'], guard: { since, events: ['checkout-error', 'latency'] } } })
    .flag('banner', false, { rollout: { percent: 30, newValue: true } })
    .build();
}

/** A fetch that serves `current()` (ETag = version) and records guard reports. */
function server(current: () => ReturnType<typeof rulesetAt>) {
  const reports: GuardReport[] = [];
  const f: typeof fetch = async (input, init) => {
    const req = input instanceof Request && !init ? input : new Request(input, init);
    if (req.method === 'POST' && req.url.endsWith(`/envs/${ENV}/guard-metrics`)) {
      reports.push((await req.json()) as GuardReport);
      return new Response(JSON.stringify({ accepted: 1, skipped: 0, dropped: 0 }), { status: 202, headers: { 'content-type': 'application/json' } });
    }
    const r = current();
    return new Response(JSON.stringify(r), { status: 200, headers: { 'content-type': 'application/json', etag: `"${r.version}"` } });
  };
  return { fetch: f, reports };
}

const users = Array.from({ length: 2000 }, (_, i) => `user-${i}`);

/** The arm each user is in at `percent`, computed from the evaluator's bucket. */
function expectedArms(percent: number) {
  const compiled = compileRuleset(rulesetAt(percent));
  const counts = { treatment: 0, control: 0 };
  for (const userId of users) {
    const r = compiled.primitive('checkout')!.evaluate({ userId });
    const arm = armOf(r.bucket!, percent);
    if (arm) counts[arm]++;
  }
  return counts;
}

const unitsOf = (reports: GuardReport[]) => {
  const out: Record<string, number> = {};
  for (const r of reports) for (const e of r.exposures) out[`${e.key}@${e.percent}:${e.arm}`] = (out[`${e.key}@${e.percent}:${e.arm}`] ?? 0) + e.units;
  return out;
};

describe('servedArm', () => {
  it.each([
    ['rollout-new', 5, 10, false, 'treatment'],
    ['rollout-base', 95, 10, false, 'control'],
    ['rollout-base', 50, 10, false, null],
    ['rule-1', 95, 10, false, 'control'],
    ['target-id', 5, 10, false, null],
    ['rollout-new', null, 10, false, null],
    ['rollout-base', 95, 10, true, 'control'],
    // A rollout gating its rules serves a target-ID match outside the band its rules, not rollout-base.
    ['default', 95, 10, true, null],
    ['default', 5, 10, true, 'treatment'],
    ['rollout-new', 40, 60, false, 'treatment'],
    ['rollout-base', 70, 60, false, 'control'],
    ['rollout-base', 55, 60, false, null],
  ] as const)('%s at bucket %s of percent %s (gates rules: %s) → %s', (variant, bucket, percent, gates, arm) => {
    expect(servedArm(variant, bucket, percent, gates)).toBe(arm);
  });
});

describe('the live client reports guard arms', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  it('counts each exposed context once per arm, leaves out target IDs, unguarded flags and contexts between the bands, and posts every guardIntervalMs', async () => {
    const s = server(() => rulesetAt(10));
    const client = createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, mode: 'poll', fetch: s.fetch, sendUsage: false, logger: null });
    await client.waitForReady();
    for (let round = 0; round < 3; round++) for (const userId of users) client.getBoolean('checkout', { userId }, false);
    client.getBoolean('checkout', { userId: 'vip' }, false);
    for (const userId of users) client.getBoolean('banner', { userId }, false);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(s.reports).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.reports).toHaveLength(1);
    const expected = expectedArms(10);
    expect(expected.treatment).toBeGreaterThan(150);
    expect(unitsOf(s.reports)).toEqual({ 'checkout@10:treatment': expected.treatment, 'checkout@10:control': expected.control });
    expect(s.reports[0]).toMatchObject({ windowStart: new Date(T0).toISOString(), windowEnd: new Date(T0 + 10_000).toISOString(), events: [] });

    // The same contexts again: nobody counts twice at the step, so nothing is sent.
    for (const userId of users) client.getBoolean('checkout', { userId }, false);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(s.reports).toHaveLength(1);
    await client.close();
  });

  it('guardArm names the arm each context is counted in (null for target IDs, unguarded flags and between the bands), even with reporting off', async () => {
    const s = server(() => rulesetAt(10));
    const client = createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, mode: 'poll', fetch: s.fetch, sendUsage: false, guardIntervalMs: 0, logger: null });
    expect(client.guardArm('checkout', { userId: 'user-1' })).toBeNull();
    await client.waitForReady();
    const counts = { treatment: 0, control: 0 };
    for (const userId of users) {
      const arm = client.guardArm('checkout', { userId });
      if (arm) counts[arm]++;
    }
    expect(counts).toEqual(expectedArms(10));
    expect(client.guardArm('checkout', { userId: 'vip' })).toBeNull();
    expect(users.map((userId) => client.guardArm('banner', { userId })).filter((a) => a !== null)).toEqual([]);
    expect(client.guardArm('missing', { userId: 'user-1' })).toBeNull();
    await client.close();
  });

  it('attributes tracked events to the arm of each guarded rollout watching them, with count, sum and sum of squares', async () => {
    const s = server(() => rulesetAt(10));
    const client = createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, mode: 'poll', fetch: s.fetch, sendUsage: false, logger: null });
    await client.waitForReady();
    const compiled = compileRuleset(rulesetAt(10));
    const expected = { treatment: { count: 0, sum: 0, sumSquares: 0 }, control: { count: 0, sum: 0, sumSquares: 0 } };
    for (const [i, userId] of users.entries()) {
      const value = (i % 7) * 10;
      client.track('latency', { userId }, { value });
      client.track('not-watched', { userId }, { value });
      const arm = armOf(compiled.primitive('checkout')!.evaluate({ userId }).bucket!, 10);
      if (arm) {
        expected[arm].count++;
        expected[arm].sum += value;
        expected[arm].sumSquares += value * value;
      }
    }
    client.track('checkout-error', { userId: 'vip' });
    client.track('checkout-error', {}, { targetingKey: users[0]! });
    expect(() => client.track('', {})).toThrow(TypeError);
    await client.flush();
    expect(s.reports).toHaveLength(1);
    const events = Object.fromEntries(s.reports[0]!.events.map((e) => [`${e.event}:${e.arm}`, e]));
    // 'vip' is a target ID (no arm); the targeting key stands in for userId.
    const arm0 = armOf(compiled.primitive('checkout')!.evaluate({ userId: users[0] }).bucket!, 10);
    expect(Object.keys(events).sort()).toEqual([...(arm0 ? [`checkout-error:${arm0}`] : []), 'latency:control', 'latency:treatment'].sort());
    for (const arm of ['treatment', 'control'] as const) {
      expect(events[`latency:${arm}`]).toEqual({ kind: 'flag', key: 'checkout', percent: 10, arm, event: 'latency', ...expected[arm] });
    }
    await client.close();
  });

  it('starts the counts over at a new step and after a resume (a new guard.since), and stops counting when the step is not guarded', async () => {
    let current = rulesetAt(10);
    const s = server(() => current);
    const client = createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, mode: 'poll', fetch: s.fetch, sendUsage: false, logger: null });
    await client.waitForReady();
    // Let the first sync end (a refresh while it runs joins it).
    await vi.advanceTimersByTimeAsync(1);
    const some = users.slice(0, 500);
    for (const userId of some) client.getBoolean('checkout', { userId }, false);

    current = rulesetAt(25, '2026-12-01T12:00:05.000Z', 2);
    await client.refresh();
    for (const userId of some) client.getBoolean('checkout', { userId }, false);
    await client.flush();
    const first = unitsOf(s.reports);
    // The 10 % step's counts are reported beside the new step's: the server keeps samples per percent.
    expect(first['checkout@10:treatment']).toBeGreaterThan(0);
    expect(first['checkout@25:treatment']).toBeGreaterThan(first['checkout@10:treatment']!);

    current = rulesetAt(25, '2026-12-01T12:00:30.000Z', 3);
    await client.refresh();
    for (const userId of some) client.getBoolean('checkout', { userId }, false);
    await client.flush();
    expect(unitsOf(s.reports.slice(1))).toEqual({ 'checkout@25:treatment': first['checkout@25:treatment'], 'checkout@25:control': first['checkout@25:control'] });

    current = rulesetBuilder({ envId: ENV, version: 4 }).flag('checkout', false, { rollout: { percent: 25, newValue: true } }).build();
    await client.refresh();
    for (const userId of users) client.getBoolean('checkout', { userId }, false);
    client.track('latency', { userId: users[0]! }, { value: 5 });
    const sent = s.reports.length;
    await client.flush();
    expect(s.reports).toHaveLength(sent);
    await client.close();
  });

  it('turns off with guardIntervalMs 0 and refuses an interval the server would not accept', async () => {
    const s = server(() => rulesetAt(10));
    const client = createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, mode: 'poll', fetch: s.fetch, sendUsage: false, guardIntervalMs: 0, logger: null });
    await client.waitForReady();
    for (const userId of users) client.getBoolean('checkout', { userId }, false);
    client.track('latency', { userId: 'user-1' }, { value: 3 });
    await client.flush();
    expect(s.reports).toEqual([]);
    await client.close();
    expect(() => createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, guardIntervalMs: 600_000 })).toThrow(/guardIntervalMs/);
  });
});
