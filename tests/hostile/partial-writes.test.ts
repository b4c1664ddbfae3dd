import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createClient } from '@gradual/sdk';
import type { ZodTypeAny } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimProcess, createScratchDatabase, startProduction, type ProductionServer } from '../support/production.js';
import type { TestServer } from '../support/server.js';
import { allFlagTargetIds } from '../support/rollout-ops.js';
import { hostile } from './arbitraries.js';
import {
  buildTenant,
  callerFor,
  claimFor,
  contractRoutes,
  envelopeProblems,
  fillPath,
  send,
  startHostileServer,
  tenantParams,
  toJsonText,
  writeMarks,
  type Caller,
  type RawResponse,
  type RouteEntry,
  type Tenant,
} from './support.js';

/**
 * Never a partial write: a rejected request leaves the environment's version,
 * the audit log and the resources it aimed at exactly as they were. Checked
 * around a hand-made batch of requests that fail late (domain rules, state,
 * preconditions, one bad item among good ones) and around generated hostile
 * requests to every write route of flags, configs, rollouts, target IDs and plans.
 */
const SEED = Number(process.env.HOSTILE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.HOSTILE_WRITE_RUNS ?? 10);
console.log(`hostile partial writes: seed ${SEED}, ${RUNS} runs per write route (HOSTILE_SEED=${SEED} to reproduce)`);

/** The write routes under test: flags, configs, rollouts (state and target IDs) and plans. */
const WRITE_ROUTE = /^(flags|configs|flagRollouts|configRollouts|rolloutPlans)\./;

describe('never a partial write', () => {
  let t: TestServer;
  let a: Tenant;
  let key: Caller;

  /** Everything a write in tenant A could move: versions, audit count, and the resources' own state. */
  const snapshot = async (full = false) => {
    // The newest audit row's id moves with every row written (rows are never deleted); `full` also counts them.
    const marks = full ? await writeMarks(a) : await quickMarks();
    const read = async (path: string) => (await send(t.url, { method: 'GET', path }, key)).text;
    const base = `/api/v1/envs/${a.envId}`;
    const states = await Promise.all([
      read(`${base}/flags`),
      read(`${base}/configs`),
      read(`/api/v1/projects/${a.projectId}/flags`),
      read(`/api/v1/projects/${a.projectId}/configs`),
      read(`/api/v1/projects/${a.projectId}/rollout-plans`),
      read(`${base}/flags/${a.flagKey}/rollout/target-ids?limit=10000`),
      read(`${base}/configs/${a.configKey}/rollout/target-ids?limit=10000`),
    ]);
    return { ...marks, states };
  };

  const quickMarks = async () => {
    const [v1, v2, newest] = await Promise.all([
      a.session.getEnvironment({ path: { envId: a.envId } }),
      a.session.getEnvironment({ path: { envId: a.env2Id } }),
      a.session.listAuditEvents({ path: { slug: a.slug }, query: { limit: 1 } }),
    ]);
    return { versions: [v1.version, v2.version], newestAuditId: newest.events[0]?.id };
  };

  beforeAll(async () => {
    t = await startHostileServer();
    const owner = await claimFor(t, 'acme');
    a = await buildTenant(t, { slug: 'acme', prefix: 'a', owner });
    key = { token: a.apiKey.token };
    await a.session.createFlag({ path: { id: a.projectId }, body: { key: 'num', name: 'Num', valueType: 'number', defaultValue: 1 } });
    await a.session.createRolloutPlan({ path: { id: a.projectId }, body: { key: 'auto', name: 'Auto', cadence: 'auto', rampSteps: [{ percent: 50, holdForSeconds: 3600 }, { percent: 100, holdForSeconds: 0 }] } });
    await a.session.createRolloutPlan({ path: { id: a.projectId }, body: { key: 'half', name: 'Half', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 0 }] } });
    await a.session.addConfigTargetIds({ path: { envId: a.envId, key: a.configKey }, body: { targetIds: ['c-1', 'c-2', 'c-3'] } });
  });
  afterAll(() => t?.close());

  it('a batch of requests that fail late changes nothing', async () => {
    const env = `/api/v1/envs/${a.envId}`;
    const flag = `${env}/flags/${a.flagKey}`;
    const config = `${env}/configs/${a.configKey}`;
    const plans = `/api/v1/projects/${a.projectId}/rollout-plans`;
    const etag = (await send(t.url, { method: 'GET', path: `${env}/flags/num` }, key)).headers.get('etag')!;
    const planEtag = (await send(t.url, { method: 'GET', path: `${plans}/${a.planKey}` }, key)).headers.get('etag')!;
    expect(etag).toBeTruthy();
    const j = (v: unknown) => JSON.stringify(v);
    const batch: Array<[string, string, string, unknown?, Record<string, string>?, Caller?]> = [
      // Flags and configs
      ['rule 2 of 3 has the wrong type', 'PUT', `${env}/flags/num/rules`, { rules: [{ conditions: [], value: 1 }, { conditions: [], value: 'two' }, { conditions: [], value: 3 }] }],
      ['value of the wrong type', 'PUT', `${env}/flags/num/value`, { value: true }],
      ['stale If-Match on value', 'PUT', `${env}/flags/num/value`, { value: 7 }, { 'if-match': '"stale"' }],
      ['stale If-Match on rules', 'PUT', `${env}/flags/num/rules`, { rules: [] }, { 'if-match': etag.replace(/.$/, 'x"') }],
      ['duplicate flag key', 'POST', `/api/v1/projects/${a.projectId}/flags`, { key: a.flagKey, name: 'Again', defaultValue: true }],
      ['duplicate config key', 'POST', `/api/v1/projects/${a.projectId}/configs`, { key: a.configKey, name: 'Again', defaultValue: 1 }],
      ['legacy rules with a bad percentage', 'POST', `/api/v1/projects/${a.projectId}/flags`, { key: 'legacy', name: 'L', defaultValue: false, rules: [{ conditions: [], value: true, rolloutPercent: 150 }] }],
      ['audit reason too long', 'PUT', `${env}/flags/num/value`, { value: 9 }, { 'x-audit-reason': 'r'.repeat(501) }],
      // Rollouts
      ['unknown plan', 'PUT', `${flag}/rollout`, { percent: 20, newValue: true, planKey: 'nope' }],
      ['percent above the plan', 'PUT', `${env}/flags/num/rollout`, { percent: 60, newValue: 5, planKey: 'half' }],
      ['seed change above 0%', 'PUT', `${flag}/rollout`, { percent: 5, newValue: true, seed: 'other-seed' }],
      ['rollout newValue of the wrong type', 'PUT', `${env}/flags/num/rollout`, { percent: 5, newValue: 'five' }],
      ['stale If-Match on rollout', 'PUT', `${flag}/rollout`, { percent: 6, newValue: true }, { 'if-match': '"stale"' }],
      ['resume an active rollout', 'POST', `${flag}/rollout/resume`],
      ['advance a plan-less rollout', 'POST', `${config}/rollout/advance`],
      ['pause with a too-long reason', 'POST', `${flag}/rollout/pause`, undefined, { 'x-audit-reason': 'r'.repeat(501) }],
      ['cancel a missing rollout', 'POST', `${env}/flags/num/rollout/cancel`],
      ['delete with a too-long reason', 'DELETE', `${config}/rollout`, undefined, { 'x-audit-reason': 'x'.repeat(600) }],
      // Target IDs
      ['one empty ID among good ones', 'POST', `${flag}/rollout/target-ids/add`, { targetIds: ['new-1', 'new-2', '', 'new-3'] }],
      ['one 257-char ID among good ones', 'POST', `${config}/rollout/target-ids/replace`, { targetIds: ['c-9', 'x'.repeat(257)] }],
      ['a number among the IDs', 'POST', `${config}/rollout/target-ids/remove`, { targetIds: ['c-1', 2] }],
      ['100,001 IDs', 'POST', `${flag}/rollout/target-ids/add`, { targetIds: Array.from({ length: 100_001 }, (_, i) => `bulk-${i}`) }],
      ['IDs without a rollout', 'POST', `${env}/flags/num/rollout/target-ids/add`, { targetIds: ['n-1'] }],
      ['IDs with a too-long reason', 'POST', `${flag}/rollout/target-ids/replace`, { targetIds: ['only'] }, { 'x-audit-reason': 'r'.repeat(501) }],
      // Plans
      ['duplicate plan key', 'POST', plans, { key: a.planKey, name: 'Again', rampSteps: [{ percent: 100, holdForSeconds: 0 }] }],
      ['ramp not increasing', 'POST', plans, { key: 'bad', name: 'Bad', rampSteps: [{ percent: 50, holdForSeconds: 60 }, { percent: 40, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] }],
      ['approval on a manual plan', 'POST', plans, { key: 'bad2', name: 'Bad', rampSteps: [{ percent: 50, holdForSeconds: 60, requiresApproval: true }, { percent: 100, holdForSeconds: 0 }] }],
      ['unknown timezone', 'POST', plans, { key: 'bad3', name: 'Bad', rampSteps: [{ percent: 100, holdForSeconds: 0 }], blackoutTimezone: 'Mars/Olympus' }],
      ['patch with a bad ramp', 'PATCH', `${plans}/${a.planKey}`, { rampSteps: [{ percent: 100, holdForSeconds: 5 }] }],
      ['patch with an unknown member', 'PATCH', `${plans}/${a.planKey}`, { name: 'ok', key: 'renamed' }],
      ['patch with a stale If-Match', 'PATCH', `${plans}/${a.planKey}`, { name: 'Renamed' }, { 'if-match': planEtag.replace(/.$/, 'x"') }],
      ['delete a plan in use', 'DELETE', `${plans}/${a.planKey}`],
    ];
    const before = await snapshot(true);
    for (const [what, method, path, body, headers, caller] of batch) {
      const res = await send(t.url, { method, path, ...(body !== undefined ? { body: j(body) } : {}), headers: headers ?? {} }, caller ?? key);
      expect(envelopeProblems(res), what).toEqual([]);
      expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
    }
    expect(await snapshot(true)).toEqual(before);
  });

  const writeRoutes = contractRoutes().filter((e) => WRITE_ROUTE.test(e.name) && e.route.method !== 'GET');

  it('covers the write routes of flags, configs, rollouts, target IDs and plans', () => {
    expect(writeRoutes.map((e) => e.key)).toEqual(
      expect.arrayContaining(['setFlagValue', 'setConfigRules', 'createFlag', 'putFlagRollout', 'advanceConfigRollout', 'replaceFlagTargetIds', 'removeConfigTargetIds', 'createRolloutPlan', 'updateRolloutPlan', 'deleteRolloutPlan']),
    );
    expect(writeRoutes.length).toBeGreaterThanOrEqual(27);
  });

  /** A header that always fails validation: routes without a body are rejected through it. */
  const badHeaders = fc.constantFrom<Record<string, string>>({ 'x-audit-reason': 'r'.repeat(501) }, { 'x-audit-reason': 'x'.repeat(4000) });

  writeRoutes.forEach((entry: RouteEntry, i) => {
    it(`generated rejected requests to ${entry.name} change nothing`, async () => {
      const path = fillPath(entry.route.path, tenantParams(a, entry));
      const bodySchema = entry.hasBody ? (entry.route as { body: ZodTypeAny }).body : undefined;
      const requestArb = bodySchema
        ? fc.tuple(hostile(bodySchema).map(toJsonText), fc.option(badHeaders, { nil: undefined, freq: 4 }))
        : fc.tuple(fc.constant(undefined), badHeaders);
      let rejected = 0;
      // What the world looks like now; re-read only after a request that was allowed to write.
      let last = JSON.stringify(await snapshot());
      await fc.assert(
        fc.asyncProperty(requestArb, async ([body, headers]) => {
          const res: RawResponse = await send(t.url, { method: entry.route.method, path, ...(body !== undefined ? { body } : {}), headers: headers ?? {} }, callerFor(a, entry));
          const problems = envelopeProblems(res, entry.route);
          if (problems.length > 0) throw new Error(`${res.status}: ${problems.join('; ')} ${res.text.slice(0, 200)}`);
          const now = JSON.stringify(await snapshot());
          if (res.status < 400) {
            last = now; // a valid request: it may write
            return;
          }
          rejected++;
          if (now !== last) {
            expect(JSON.parse(now), `rejected ${res.status} ${res.text.slice(0, 200)} yet something changed; body=${String(body).slice(0, 300)}`).toEqual(JSON.parse(last));
          }
        }),
        { seed: SEED + i, numRuns: RUNS, endOnFailure: true },
      );
      expect(rejected).toBeGreaterThan(0);
    });
  });
});

/**
 * A large replace is written in slices beside the current list and switched to in one short
 * transaction at the end. Killed (kill -9) while the slices are being written: the old list stays
 * visible, whole, while the write runs and after a restart, and the list's next write succeeds
 * (and deletes what the dead one left).
 */
describe(`kill -9 during a large replace (${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'})`, () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  }, 60_000);

  it('leaves the old list intact and visible, and the next write succeeds', async () => {
    const env = { NODE_ENV: 'test', LOG_LEVEL: 'warn' };
    let start: () => Promise<ProductionServer>;
    if (process.env.DATABASE_URL) {
      const db = await createScratchDatabase(process.env.DATABASE_URL, 'gradual_t_bulk');
      cleanups.push(db.drop);
      start = () => startProduction({ databaseUrl: db.url, env });
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'gradual-bulk-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      start = () => startProduction({ dataDir: join(dir, 'data'), env });
    }
    let server = await start();
    cleanups.push(() => server.stop());
    const { owner, sessionToken } = await claimProcess(server);
    const project = await owner.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    const envId = (await owner.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    for (const key of ['beta', 'gauge']) {
      await owner.createFlag({ path: { id: project.id }, body: { key, name: key, defaultValue: false } });
      await owner.putFlagRollout({ path: { envId, key }, body: { percent: 0, newValue: true } });
    }
    const old = Array.from({ length: 1000 }, (_, i) => `old-${String(i).padStart(4, '0')}`);
    expect(await owner.replaceFlagTargetIds({ path: { envId, key: 'beta' }, body: { targetIds: old } })).toEqual({ kind: 'applied', data: { count: 1000 } });
    const fresh = Array.from({ length: 300_000 }, (_, i) => `new-${String(i).padStart(6, '0')}`);
    // How long a replace of a third as many IDs takes on this machine, on another list: the killed
    // replace is three times as large, so a third of the way through it is still writing.
    const gaugeStart = performance.now();
    const gauge = fresh.slice(0, fresh.length / 3);
    expect(await owner.replaceFlagTargetIds({ path: { envId, key: 'gauge' }, body: { targetIds: gauge } })).toEqual({ kind: 'applied', data: { count: gauge.length } });
    const replaceMs = (performance.now() - gaugeStart) * 3;
    const version = (await owner.getEnvironment({ path: { envId } })).version;

    let acknowledged = false;
    const replace = owner
      .replaceFlagTargetIds({ path: { envId, key: 'beta' }, body: { targetIds: fresh } })
      .then(() => (acknowledged = true))
      .catch(() => undefined);
    // A third of the way through: the new list is being written. Meanwhile the old one answers, whole.
    await new Promise((r) => setTimeout(r, replaceMs / 3));
    expect(acknowledged, 'the replace is still being written').toBe(false);
    const reading = performance.now();
    expect(await allFlagTargetIds(owner, envId, 'beta')).toEqual(old);
    expect(performance.now() - reading, `the old list read during a ${replaceMs.toFixed(0)} ms replace`).toBeLessThan(replaceMs / 4);
    await server.crash();
    await replace;
    expect(acknowledged).toBe(false);

    server = await start();
    const api = createClient({ baseUrl: server.url, sessionToken });
    expect(await allFlagTargetIds(api, envId, 'beta')).toEqual(old);
    expect((await api.getFlagRollout({ path: { envId, key: 'beta' } })).targetIdsCount).toBe(1000);
    expect((await api.getEnvironment({ path: { envId } })).version).toBe(version);
    expect(await api.checkFlagTargetId({ path: { envId, key: 'beta', targetId: 'new-000000' } })).toEqual({ contains: false });

    // The next write of the list succeeds, in full.
    expect(await api.replaceFlagTargetIds({ path: { envId, key: 'beta' }, body: { targetIds: ['after-1', 'after-2'] } })).toEqual({ kind: 'applied', data: { count: 2 } });
    expect(await allFlagTargetIds(api, envId, 'beta')).toEqual(['after-1', 'after-2']);
    expect(await api.addFlagTargetIds({ path: { envId, key: 'beta' }, body: { targetIds: ['after-3'] } })).toEqual({ kind: 'applied', data: { added: 1, count: 3 } });
    expect((await api.getEnvironment({ path: { envId } })).version).toBe(version + 2);
  }, 240_000);
});
