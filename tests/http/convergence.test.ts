import { createFlagClient, type FlagClient } from '@gradual/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * The convergence ledger (docs/convergence.md): real streaming SDK instances acknowledge the
 * versions they apply, one instance stays behind, and the ledger names it; the time to converge of
 * a version counts the instances that moved to it.
 */
describe('convergence ledger', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;
  let token: string;
  const clients: FlagClient[] = [];

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    token = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'services', kind: 'sdk', environments: [envId] } })).token;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  it('counts the instances that acknowledged, on the current version or behind, names the laggards, and times the move to a new version', async () => {
    await t.setClock('2026-12-02T10:00:00Z');
    for (const service of ['checkout', 'checkout', 'search']) {
      const client = createFlagClient({ baseUrl: t.url, token, envId, mode: 'stream', logger: null, sendUsage: false, serviceName: service });
      clients.push(client);
      await client.waitForReady({ timeoutMs: 10_000 });
    }
    const v1 = clients[0]!.version!;
    const ledger = () => owner.session.getConvergence({ path: { envId } });
    await vi.waitFor(async () => expect(await ledger()).toMatchObject({ version: v1, instances: 3, current: 3, currentShare: 1, laggards: [] }), { timeout: 5000, interval: 50 });

    // An instance that stopped following (a frozen process) last said it serves v1.
    const frozen = { instanceId: 'frozen-pod-7', sdk: { name: 'gradual-go', version: '0.3.1' }, service: 'billing', version: v1, mode: 'poll' as const };
    await t.asToken(token).ackRuleset({ path: { envId }, body: frozen });

    // A write 250 ms (test clock) before the instances apply it.
    await owner.session.setFlagValue({ path: { envId, key: 'checkout' }, body: { value: true } });
    await t.advanceClock(0.25);
    await vi.waitFor(() => expect(clients.every((c) => c.version! > v1)).toBe(true), { timeout: 5000, interval: 10 });
    const v2 = clients[0]!.version!;
    await vi.waitFor(async () => expect(await ledger()).toMatchObject({ version: v2, instances: 4, current: 3 }), { timeout: 5000, interval: 50 });
    const after = await ledger();
    expect(after.currentShare).toBe(0.75);
    expect(after.laggards).toEqual([{ instanceId: 'frozen-pod-7', sdk: { name: 'gradual-go', version: '0.3.1' }, service: 'billing', mode: 'poll', version: v1, lastSeen: '2026-12-02T10:00:00.000Z' }]);
    expect(after.bySdk).toEqual([
      { name: '@gradual/sdk', version: '0.1.0', instances: 3, current: 3 },
      { name: 'gradual-go', version: '0.3.1', instances: 1, current: 0 },
    ]);
    // v2 was committed at 10:00:00 and the three instances moved to it within the 250 ms the clock moved;
    // they started on v1, so nothing is timed for that one.
    const moved = after.versions[0]!;
    expect(moved).toMatchObject({ version: v2, committedAt: '2026-12-02T10:00:00.000Z', instances: 3 });
    expect(moved.p50Ms).toBeGreaterThanOrEqual(0);
    expect(moved.p99Ms).toBeGreaterThanOrEqual(moved.p50Ms!);
    expect(moved.p99Ms).toBeLessThanOrEqual(250);
    expect(after.versions[1]).toMatchObject({ version: v1, instances: 4, p50Ms: null, p99Ms: null });

    // Outside the window (5 minutes by default) an instance is no longer counted; a wider window still sees the frozen one.
    await t.advanceClock(6 * 60);
    for (const c of clients) await t.asToken(token).ackRuleset({ path: { envId }, body: { instanceId: `live-${clients.indexOf(c)}`, sdk: { name: '@gradual/sdk', version: '0.1.0' }, version: v2, mode: 'stream' } });
    expect(await ledger()).toMatchObject({ instances: 3, current: 3, laggards: [] });
    expect(await owner.session.getConvergence({ path: { envId }, query: { windowMinutes: 10 } })).toMatchObject({ windowSeconds: 600, laggards: [{ instanceId: 'frozen-pod-7' }] });
  });

  it('times a version from its commit to each moving instance\'s first acknowledgement (p50, p99), leaving out instances that started on it', async () => {
    const staging = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    const { token: stagingKey } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'staging services', kind: 'sdk', environments: [staging] } });
    const ack = (instanceId: string, version: number) =>
      t.asToken(stagingKey).ackRuleset({ path: { envId: staging }, body: { instanceId, sdk: { name: '@gradual/sdk', version: '0.1.0' }, version, mode: 'stream' } });
    await t.setClock('2026-12-02T11:00:00Z');
    await owner.session.setFlagValue({ path: { envId: staging, key: 'checkout' }, body: { value: false } });
    const v1 = (await owner.session.getConvergence({ path: { envId: staging } })).version;
    for (let i = 0; i < 4; i++) await ack(`pod-${i}`, v1);
    await t.advanceClock(60);
    await owner.session.setFlagValue({ path: { envId: staging, key: 'checkout' }, body: { value: true } });
    const v2 = v1 + 1;
    // Moves after 100, 200, 300 and 1,000 ms; a pod started on v2 is not a move.
    let elapsedMs = 0;
    for (const [i, ms] of [100, 200, 300, 1000].entries()) {
      await t.advanceClock((ms - elapsedMs) / 1000);
      elapsedMs = ms;
      await ack(`pod-${i}`, v2);
    }
    await ack('pod-new', v2);
    const ledger = await owner.session.getConvergence({ path: { envId: staging } });
    expect(ledger).toMatchObject({ version: v2, instances: 5, current: 5 });
    // percentile_cont over 100, 200, 300, 1000 ms.
    expect(ledger.versions[0]).toEqual({ version: v2, committedAt: '2026-12-02T11:01:00.000Z', instances: 5, p50Ms: 250, p99Ms: 979 });
  });

  it('refuses client keys on both routes, and an acknowledgement that names no instance or a negative version, by its field', async () => {
    const { token: clientKey } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'page', kind: 'client', environments: [envId] } });
    const ack = { instanceId: 'page-1', sdk: { name: 'web', version: '1.0.0' }, version: 1, mode: 'poll' as const };
    await expectApiError(t.asToken(clientKey).ackRuleset({ path: { envId }, body: ack }), 403, 'scope_denied');
    await expectApiError(t.asToken(clientKey).getConvergence({ path: { envId } }), 403, 'scope_denied');
    expect((await expectApiError(t.asToken(token).ackRuleset({ path: { envId }, body: { ...ack, instanceId: '' } }), 400, 'invalid_request')).fields).toHaveProperty(['instanceId']);
    expect((await expectApiError(t.asToken(token).ackRuleset({ path: { envId }, body: { ...ack, version: -1 } }), 400, 'invalid_request')).fields).toHaveProperty(['version']);
    await expectApiError(owner.session.getConvergence({ path: { envId }, query: { windowMinutes: 61 } }), 400, 'invalid_request');
  });

  it('takes a key\'s repeated acknowledgements from memory, as the route would: a bad body still answers by its field, a revoked key is refused', async () => {
    const { id, token: fleet } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'fleet', kind: 'sdk', environments: [envId] } });
    const as = t.asToken(fleet);
    const ack = (instanceId: string) => ({ instanceId, sdk: { name: 'sim', version: '1.0.0' }, version: 1, mode: 'poll' as const });
    for (let i = 0; i < 3; i++) await as.ackRuleset({ path: { envId }, body: ack(`fleet-${i}`) });
    expect((await expectApiError(as.ackRuleset({ path: { envId }, body: { ...ack('fleet-3'), sdk: { name: '', version: '1' } } }), 400, 'invalid_request')).fields).toHaveProperty(['sdk.name']);
    const ledger = await owner.session.getConvergence({ path: { envId } });
    expect(ledger.bySdk).toContainEqual(expect.objectContaining({ name: 'sim', instances: 3 }));
    await owner.session.revokeApiKey({ path: { slug: 'acme', id } });
    await expectApiError(as.ackRuleset({ path: { envId }, body: ack('fleet-4') }), 401, 'unauthorized');
  });

  it('records OFREP clients from their bulk evaluations: a 304 confirms the version its ETag names, the 200 after a change moves the client; browsers\' client keys are not recorded', async () => {
    const env = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'ofrep', name: 'OFREP' } })).id;
    const { token: sdkKey } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ofrep services', kind: 'sdk', environments: [env] } });
    const { token: clientKey } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ofrep pages', kind: 'client', environments: [env] } });
    const bulk = (key: string, userAgent: string, etag?: string) =>
      fetch(`${t.url}/api/v1/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': userAgent, ...(etag ? { 'if-none-match': etag } : {}) },
        body: JSON.stringify({ context: { targetingKey: 'user-1' } }),
      });
    const first = await bulk(sdkKey, 'OFREP-Test/1.2 (node)');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    // Repeated, the bulk evaluation is answered in front of Express: the client is recorded there too.
    expect((await bulk(sdkKey, 'OFREP-Test/1.2 (node)', etag)).status).toBe(304);
    expect((await bulk(sdkKey, 'OFREP-Test/1.2 (node)', etag)).status).toBe(304);
    expect((await bulk(sdkKey, 'other-service/3.0', etag)).status).toBe(304);
    expect((await bulk(clientKey, 'Mozilla/5.0 (X11; Linux x86_64)')).status).toBe(200);
    const v1 = (await owner.session.getConvergence({ path: { envId: env } })).version;
    await vi.waitFor(async () => {
      const ledger = await owner.session.getConvergence({ path: { envId: env } });
      expect(ledger).toMatchObject({ instances: 2, current: 2 });
      expect(ledger.bySdk).toEqual([
        { name: 'ofrep', version: 'OFREP-Test/1.2', instances: 1, current: 1 },
        { name: 'ofrep', version: 'other-service/3.0', instances: 1, current: 1 },
      ]);
    }, { timeout: 5000, interval: 50 });

    // A change: the first client presents its old ETag and is handed the new version; the other has not asked since.
    await owner.session.setFlagValue({ path: { envId: env, key: 'checkout' }, body: { value: true } });
    expect((await bulk(sdkKey, 'OFREP-Test/1.2 (node)', etag)).status).toBe(200);
    await vi.waitFor(async () => {
      const ledger = await owner.session.getConvergence({ path: { envId: env } });
      expect(ledger).toMatchObject({ version: v1 + 1, instances: 2, current: 1 });
      expect(ledger.laggards).toEqual([expect.objectContaining({ sdk: { name: 'ofrep', version: 'other-service/3.0' }, mode: 'poll', version: v1, service: null })]);
      expect(ledger.laggards[0]!.instanceId).toMatch(/^ofrep-[\w-]{22}$/);
    }, { timeout: 5000, interval: 50 });
  });
});
