import { createClient, type GradualClient } from '@gradual/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * Large allow-list edits and everyone else. On the embedded database every request shares one
 * PostgreSQL session, so an edit written as one long transaction would hold every other
 * organization's requests for its whole length; it is written in short slices instead and
 * switched to in one short transaction. Timing is judged against the edit's own duration on the
 * same machine, not against a fixed number of milliseconds.
 */
const LIST = 200_000;

describe('large target-ID edits', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  let otherEnvId: string;
  let other: GradualClient;

  beforeAll(async () => {
    t = await startTestServer({}, { direct: true });
    owner = await claim(t);
    const s = owner.session;
    const project = await s.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    envId = (await s.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    for (const key of ['big', 'pair']) {
      await s.createFlag({ path: { id: project.id }, body: { key, name: key, defaultValue: false } });
      await s.putFlagRollout({ path: { envId, key }, body: { percent: 0, newValue: true } });
    }
    // Another organization, read with its own API key.
    const org = await s.createOrg({ body: { name: 'Other', slug: 'other' } });
    const otherProject = await s.createProject({ path: { slug: org.slug }, body: { key: 'web', name: 'Web' } });
    otherEnvId = (await s.createEnvironment({ path: { id: otherProject.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await s.createFlag({ path: { id: otherProject.id }, body: { key: 'small', name: 'Small', defaultValue: false } });
    await s.putFlagRollout({ path: { envId: otherEnvId, key: 'small' }, body: { percent: 10, newValue: true } });
    const { token } = await s.createApiKey({ path: { slug: org.slug }, body: { name: 'reader' } });
    // Timed on the server itself: a validating proxy in front (GRADUAL_TEST_VIA_PRISM) would time itself.
    other = createClient({ baseUrl: t.server.url, token });
  });
  afterAll(() => t?.close());

  const ids = (prefix: string, n = LIST) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(6, '0')}`);

  it("another organization's requests wait far less than a 200,000-ID replace takes, and readers never see half a list", async () => {
    const s = owner.session;
    expect(await s.replaceFlagTargetIds({ path: { envId, key: 'big' }, body: { targetIds: ids('old') } })).toEqual({ kind: 'applied', data: { count: LIST } });
    const versionBefore = (await s.getEnvironment({ path: { envId } })).version;

    const waits: number[] = [];
    const counts = new Set<number>();
    let done = false;
    // The body is built before the clock starts: this process is the client and the server.
    const body = JSON.stringify({ targetIds: ids('new') });
    const started = performance.now();
    const replace = fetch(`${t.server.url}/api/v1/envs/${envId}/flags/big/rollout/target-ids/replace`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `svc_session=${encodeURIComponent(owner.sessionToken)}` },
      body,
    })
      .then((res) => res.json())
      .finally(() => (done = true));
    const reads = (async () => {
      while (!done) {
        const start = performance.now();
        const rollout = await other.getFlagRollout({ path: { envId: otherEnvId, key: 'small' } });
        waits.push(performance.now() - start);
        expect(rollout.percent).toBe(10);
      }
    })();
    // The list being replaced, meanwhile: the old one or the new one, whole.
    const checks = (async () => {
      while (!done) {
        const page = await s.listFlagTargetIds({ path: { envId, key: 'big' }, query: { limit: 1 } });
        const big = await s.getFlagRollout({ path: { envId, key: 'big' } });
        counts.add(big.targetIdsCount);
        expect(['old-000000', 'new-000000']).toContain(page.items[0]);
      }
    })();
    expect(await replace).toEqual({ count: LIST });
    const replaceMs = performance.now() - started;
    await Promise.all([reads, checks]);

    // Every GET answers within a fraction of the replace, most of them within a small one. (The
    // longest also waits for the server's event loop while it parses and validates the
    // 200,000-ID body, which has nothing to do with the database.)
    const sorted = [...waits].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const longest = sorted[sorted.length - 1]!;
    const facts = `${waits.length} GETs during a ${replaceMs.toFixed(0)} ms replace, median ${median.toFixed(0)} ms, longest ${longest.toFixed(0)} ms`;
    expect(waits.length, facts).toBeGreaterThanOrEqual(5);
    expect(median, facts).toBeLessThan(replaceMs / 10);
    expect(longest, facts).toBeLessThan(replaceMs / 2);
    expect([...counts]).toEqual([LIST]);
    // One version, one audit row, the new list in full.
    expect((await s.getEnvironment({ path: { envId } })).version).toBe(versionBefore + 1);
    const audit = await s.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', limit: 1 } });
    expect(audit.events[0]).toMatchObject({ action: 'rollout.target_ids_replaced', version: versionBefore + 1 });
    expect((await s.listFlagTargetIds({ path: { envId, key: 'big' }, query: { limit: 1 } })).items).toEqual(['new-000000']);
    expect(await s.checkFlagTargetId({ path: { envId, key: 'big', targetId: 'old-000001' } })).toEqual({ contains: false });
    expect(await s.checkFlagTargetId({ path: { envId, key: 'big', targetId: `new-${String(LIST - 1).padStart(6, '0')}` } })).toEqual({ contains: true });
  }, 180_000);

  it('large adds and removes apply whole, with exact counts', async () => {
    const s = owner.session;
    const path = { envId, key: 'pair' };
    expect(await s.replaceFlagTargetIds({ path, body: { targetIds: ids('a', 30_000) } })).toEqual({ kind: 'applied', data: { count: 30_000 } });
    // 20,000 requested, 10,000 of them already listed, a few repeated.
    const adding = [...ids('a', 30_000).slice(20_000), ...ids('b', 10_000), 'b-000001', 'b-000002'];
    expect(await s.addFlagTargetIds({ path, body: { targetIds: adding } })).toEqual({ kind: 'applied', data: { added: 10_000, count: 40_000 } });
    const removing = [...ids('a', 15_000), ...ids('zz', 5_000)];
    expect(await s.removeFlagTargetIds({ path, body: { targetIds: removing } })).toEqual({ kind: 'applied', data: { removed: 15_000, count: 25_000 } });
    expect((await s.getFlagRollout({ path })).targetIdsCount).toBe(25_000);
    expect(await s.checkFlagTargetId({ path: { ...path, targetId: 'a-014999' } })).toEqual({ contains: false });
    expect(await s.checkFlagTargetId({ path: { ...path, targetId: 'a-015000' } })).toEqual({ contains: true });
    expect(await s.checkFlagTargetId({ path: { ...path, targetId: 'b-009999' } })).toEqual({ contains: true });
    // A large edit that changes nothing writes nothing.
    const version = (await s.getEnvironment({ path: { envId } })).version;
    expect(await s.removeFlagTargetIds({ path, body: { targetIds: ids('zz', 10_000) } })).toEqual({ kind: 'applied', data: { removed: 0, count: 25_000 } });
    expect((await s.getEnvironment({ path: { envId } })).version).toBe(version);
  }, 120_000);

  it('concurrent edits of one list take turns: each applies whole, as if one after the other', async () => {
    const s = owner.session;
    const path = { envId, key: 'pair' };
    const version = (await s.getEnvironment({ path: { envId } })).version;
    const [first, second, added] = await Promise.all([
      s.replaceFlagTargetIds({ path, body: { targetIds: ids('x', 20_000) } }),
      s.replaceFlagTargetIds({ path, body: { targetIds: ids('y', 12_000) } }),
      s.addFlagTargetIds({ path, body: { targetIds: ['late-1', 'late-2'] } }),
    ]);
    expect(first).toEqual({ kind: 'applied', data: { count: 20_000 } });
    expect(second).toEqual({ kind: 'applied', data: { count: 12_000 } });
    if (added.kind !== 'applied') throw new Error('the add was diverted to a proposal');
    const third = added.data;
    // The add came after the 25,000 IDs listed before, or after one of the replaces.
    expect(third.added).toBe(2);
    expect([25_002, 20_002, 12_002]).toContain(third.count);
    expect((await s.getEnvironment({ path: { envId } })).version).toBe(version + 3);
    const has = async (targetId: string) => (await s.checkFlagTargetId({ path: { ...path, targetId } })).contains;
    const [x, y, late] = [await has('x-000000'), await has('y-000000'), await has('late-1')];
    expect(x !== y).toBe(true);
    const count = (await s.getFlagRollout({ path })).targetIdsCount;
    expect(count).toBe((x ? 20_000 : 12_000) + (late ? 2 : 0));
    expect(late).toBe(third.count === count);
  }, 120_000);
});
