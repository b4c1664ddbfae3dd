/**
 * Usage reporting with fake timers and a fake transport: what a window holds, when it is sent,
 * the bound on distinct entries, failures, flush() and close(). The live client against a real
 * server is tests/sdk/usage.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rulesetBuilder } from '../testing/ruleset-builder.js';
import type { UsageReport } from '../generated/types.gen.js';
import { createFlagClient } from './flag-client.js';
import { TimerSet } from './timers.js';
import { UsageReporter, type UsageSender } from './usage.js';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');

interface Sent {
  envId: string;
  report: UsageReport;
}

function reporter(options: { maxEntries?: number; fail?: boolean; envId?: string | null } = {}) {
  const sent: Sent[] = [];
  const warnings: string[] = [];
  const send: UsageSender = (envId, report) => {
    sent.push({ envId, report });
    return options.fail ? Promise.reject(new Error('HTTP 503 (fake)')) : Promise.resolve();
  };
  const timers = new TimerSet();
  const r = new UsageReporter({
    intervalMs: 60_000,
    maxEntries: options.maxEntries ?? 10_000,
    requestTimeoutMs: 10_000,
    timers,
    send,
    envId: () => (options.envId === undefined ? 'env-1' : options.envId),
    warn: (message) => warnings.push(message),
  });
  return { r, sent, warnings, timers };
}

const byEntry = (report: UsageReport) => Object.fromEntries(report.entries.map((e) => [`${e.kind}:${e.key}:${e.variant}`, e.count]));

describe('UsageReporter', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  it('counts per (kind, key, variant) and sends the window every interval, from the end of the last one', async () => {
    const { r, sent } = reporter();
    for (let i = 0; i < 5; i++) r.count('flag', 'checkout', 'rollout-new');
    r.count('flag', 'checkout', 'rollout-base');
    r.count('config', 'checkout', 'default');
    r.count('config', 'limits', 'rule-2');
    r.count('config', 'limits', 'rule-2');
    expect(r.size).toBe(4);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.envId).toBe('env-1');
    expect(sent[0]!.report.windowStart).toBe('2026-11-22T12:00:00.000Z');
    expect(sent[0]!.report.windowEnd).toBe('2026-11-22T12:01:00.000Z');
    expect(byEntry(sent[0]!.report)).toEqual({
      'flag:checkout:rollout-new': 5,
      'flag:checkout:rollout-base': 1,
      'config:checkout:default': 1,
      'config:limits:rule-2': 2,
    });
    expect(r.size).toBe(0);

    // An empty window sends nothing; the next report starts where the last window ended.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toHaveLength(1);
    r.count('flag', 'checkout', 'default');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.report).toEqual({
      windowStart: '2026-11-22T12:02:00.000Z',
      windowEnd: '2026-11-22T12:03:00.000Z',
      entries: [{ kind: 'flag', key: 'checkout', variant: 'default', count: 1 }],
    });
  });

  it('counts a variant by value, not only by identity', () => {
    const { r } = reporter();
    r.count('flag', 'f', 'rule-1');
    r.count('flag', 'f', ['rule', '1'].join('-'));
    expect(r.size).toBe(1);
  });

  it('holds at most maxEntries distinct entries: evaluations of new ones are dropped and logged, known ones still count', async () => {
    const { r, sent, warnings } = reporter({ maxEntries: 3 });
    r.count('flag', 'a', 'default');
    r.count('flag', 'b', 'default');
    r.count('flag', 'b', 'rule-1');
    r.count('flag', 'c', 'default');
    r.count('flag', 'a', 'rule-1');
    r.count('flag', 'c', 'default');
    r.count('flag', 'a', 'default');
    expect(r.size).toBe(3);
    await r.flush();
    expect(byEntry(sent[0]!.report)).toEqual({ 'flag:a:default': 2, 'flag:b:default': 1, 'flag:b:rule-1': 1 });
    expect(warnings).toEqual(['gradual: usage window full: 3 evaluations were not counted']);
    // A new window has room again.
    r.count('flag', 'c', 'default');
    await r.flush();
    expect(byEntry(sent[1]!.report)).toEqual({ 'flag:c:default': 1 });
    expect(warnings).toHaveLength(1);
  });

  it('a failed report is logged and its window dropped (not retried)', async () => {
    const { r, sent, warnings } = reporter({ fail: true });
    r.count('flag', 'a', 'default');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toHaveLength(1);
    expect(warnings).toEqual(['gradual: usage report failed, 1 entries dropped: HTTP 503 (fake)']);
    r.count('flag', 'b', 'default');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toHaveLength(2);
    expect(byEntry(sent[1]!.report)).toEqual({ 'flag:b:default': 1 });
  });

  it('a window longer than an hour (a suspended process) is reported as its last hour', async () => {
    const { r, sent } = reporter();
    r.count('flag', 'a', 'default');
    vi.setSystemTime(T0 + 3 * 3_600_000);
    await r.flush();
    expect(sent[0]!.report.windowStart).toBe('2026-11-22T14:00:00.000Z');
    expect(sent[0]!.report.windowEnd).toBe('2026-11-22T15:00:00.000Z');
  });

  it('close() sends the window at once, then counts nothing and leaves no timer', async () => {
    const { r, sent } = reporter();
    r.count('flag', 'a', 'default');
    await vi.advanceTimersByTimeAsync(10_000);
    await r.close();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.report.windowEnd).toBe('2026-11-22T12:00:10.000Z');
    r.count('flag', 'a', 'default');
    expect(r.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sent).toHaveLength(1);
  });

  it('sends nothing without an environment (no ruleset held)', async () => {
    const { r, sent } = reporter({ envId: null });
    r.count('flag', 'a', 'default');
    await r.flush();
    expect(sent).toEqual([]);
  });
});

describe('the live client reports usage', () => {
  const ENV = 'env-test';
  const ruleset = rulesetBuilder({ envId: ENV, version: 1 })
    .flag('checkout', false, { rollout: { percent: 50, newValue: true, targetIds: ['vip'] } })
    .config('limits', { max: 1 })
    .build();

  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  /** A fetch that answers the ruleset GET (once, then 304) and records usage reports. */
  function server() {
    const reports: { url: string; body: UsageReport }[] = [];
    const f: typeof fetch = async (input, init) => {
      const req = input instanceof Request && !init ? input : new Request(input, init);
      if (req.method === 'POST' && req.url.endsWith('/usage')) {
        reports.push({ url: req.url, body: (await req.json()) as UsageReport });
        return new Response(JSON.stringify({ accepted: 1, skipped: 0 }), { status: 202, headers: { 'content-type': 'application/json' } });
      }
      return new Response(JSON.stringify(ruleset), { status: 200, headers: { 'content-type': 'application/json', etag: '"1"' } });
    };
    return { fetch: f, reports };
  }

  it('counts evaluate and get* results, not errors or allFlags, and posts them every usageIntervalMs and on close()', async () => {
    const s = server();
    const client = createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, mode: 'poll', fetch: s.fetch, usageIntervalMs: 30_000, logger: null });
    await client.waitForReady();
    client.getBoolean('checkout', { userId: 'vip' }, false);
    client.getBoolean('checkout', { userId: 'vip' }, false);
    client.evaluate('limits', {});
    client.getBoolean('missing', {}, false);
    client.getString('limits', {}, 'x');
    client.allFlags({ userId: 'vip' });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(s.reports).toHaveLength(1);
    expect(s.reports[0]!.url).toBe(`http://gradual.test/api/v1/envs/${ENV}/usage`);
    expect(byEntry(s.reports[0]!.body)).toEqual({ 'flag:checkout:target-id': 2, 'config:limits:default': 1 });
    client.getBoolean('checkout', { userId: 'vip' }, false);
    await vi.advanceTimersByTimeAsync(5_000);
    await client.close();
    expect(s.reports).toHaveLength(2);
    expect(s.reports[1]!.body).toEqual({
      windowStart: '2026-11-22T12:00:30.000Z',
      windowEnd: '2026-11-22T12:00:35.000Z',
      entries: [{ kind: 'flag', key: 'checkout', variant: 'target-id', count: 1 }],
    });
  });

  it('sendUsage: false and usageIntervalMs: 0 send nothing; a bad interval is a TypeError', async () => {
    for (const off of [{ sendUsage: false }, { usageIntervalMs: 0 }]) {
      const s = server();
      const client = createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, mode: 'poll', fetch: s.fetch, logger: null, ...off });
      await client.waitForReady();
      client.getBoolean('checkout', { userId: 'vip' }, false);
      await vi.advanceTimersByTimeAsync(120_000);
      await client.close();
      expect(s.reports).toEqual([]);
    }
    for (const usageIntervalMs of [-1, 3_600_001, Number.NaN]) {
      expect(() => createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, usageIntervalMs })).toThrow(/usageIntervalMs must be a number of milliseconds from 0 to 3600000/);
    }
  });
});
