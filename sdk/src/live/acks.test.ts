/**
 * Ruleset acknowledgements with fake timers and a fake transport: one as soon as a ruleset is
 * applied (the first and each new version), one every ackIntervalMs besides, none on close, and
 * the instance's id, SDK, service and mode in each. The ledger's side is tests/http/convergence.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RulesetAck } from '../generated/types.gen.js';
import { rulesetBuilder } from '../testing/ruleset-builder.js';
import { SDK_NAME, SDK_VERSION } from '../version.js';
import { createFlagClient } from './flag-client.js';

const ENV = 'env-acks';

function server() {
  let version = 1;
  const acks: RulesetAck[] = [];
  const f: typeof fetch = async (input, init) => {
    const req = input instanceof Request && !init ? input : new Request(input, init);
    if (req.method === 'POST' && req.url.endsWith(`/envs/${ENV}/ruleset-acks`)) {
      acks.push((await req.json()) as RulesetAck);
      return new Response(null, { status: 204 });
    }
    const r = rulesetBuilder({ envId: ENV, version }).flag('checkout', false).build();
    if (req.headers.get('if-none-match') === `"${version}"`) return new Response(null, { status: 304, headers: { etag: `"${version}"` } });
    return new Response(JSON.stringify(r), { status: 200, headers: { 'content-type': 'application/json', etag: `"${version}"` } });
  };
  return { fetch: f, acks, write: () => void version++ };
}

describe('ruleset acknowledgements', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('acknowledge the applied version at once, each new one as it is applied, and every ackIntervalMs besides; none on close', async () => {
    const s = server();
    const client = createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, mode: 'poll', pollIntervalMs: 45_000, fetch: s.fetch, sendUsage: false, logger: null, serviceName: 'checkout' });
    await client.waitForReady();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.acks).toHaveLength(1);
    const first = s.acks[0]!;
    expect(first).toEqual({ instanceId: expect.stringMatching(/^[0-9a-f-]{36}$/), sdk: { name: SDK_NAME, version: SDK_VERSION }, service: 'checkout', version: 1, mode: 'poll' });

    await vi.advanceTimersByTimeAsync(30_000);
    expect(s.acks.map((a) => a.version)).toEqual([1, 1]);

    s.write();
    // The poll at 45 s applies version 2 and says so at once, not at the next heartbeat (60 s).
    await vi.advanceTimersByTimeAsync(15_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(s.acks.map((a) => a.version)).toEqual([1, 1, 2]);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(s.acks.map((a) => a.version)).toEqual([1, 1, 2, 2]);
    expect(new Set(s.acks.map((a) => a.instanceId))).toEqual(new Set([first.instanceId]));

    await client.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.acks).toHaveLength(4);
  });

  it('turn off with ackIntervalMs 0, and refuse an interval or a service name the server would not take', async () => {
    const s = server();
    const client = createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, mode: 'poll', fetch: s.fetch, sendUsage: false, logger: null, ackIntervalMs: 0 });
    await client.waitForReady();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.acks).toEqual([]);
    await client.close();
    expect(() => createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, ackIntervalMs: 300_001 })).toThrow(/ackIntervalMs/);
    expect(() => createFlagClient({ baseUrl: 'http://gradual.test', envId: ENV, serviceName: 'has space' })).toThrow(/serviceName/);
  });
});
