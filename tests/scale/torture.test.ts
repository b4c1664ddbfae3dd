/**
 * Concurrent writers: 16 clients make mixed writes in one project with three environments for
 * TORTURE_SECONDS (default 60 on PostgreSQL, 15 embedded), then the database's state is checked.
 *
 * On PostgreSQL (DATABASE_URL) two server processes share the database and Redis, and the clients
 * alternate between them: what an operator runs behind a load balancer, and where writers really
 * race (row locks, foreign-key locks, deadlocks, serialization failures). Embedded, one process on
 * PGlite, which must show the same invariants.
 *
 * Each client owns its flags and configs, so it knows from its own answers what each of its
 * writes changed; every client also edits the shared segments and plans, and every write of
 * every client bumps the same environments. Afterwards:
 *
 * - no answer was a 5xx;
 * - each environment's versions are unique (one write per version) and gap-free;
 * - every committed write left exactly one audit row, and no audit row lacks its write;
 * - every instance serves the database's state: the same ruleset at the environment's version,
 *   and the same evaluations.
 *
 * The retries the server made (gradual_db_conflicts_total) and the request count are printed.
 */
import { createClient, GradualApiError, type GradualClient } from '@gradual/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrapeMetrics } from '../support/metrics.js';
import { claimProcess, createScratchDatabase, startProduction, type ProductionServer } from '../support/production.js';

const ADMIN_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// Embedded, one connection serializes every write: half the time already makes thousands of them.
const SECONDS = Number(process.env.TORTURE_SECONDS ?? (ADMIN_URL ? 60 : 15));
const CLIENTS = 16;
const INSTANCES = ADMIN_URL ? 2 : 1;
const ENVS = ['dev', 'staging', 'prod'];
const SEGMENTS = ['beta', 'staff'];
const PLANS = ['steps-a', 'steps-b'];

type RolloutStatus = 'none' | 'active' | 'paused' | 'completed' | 'cancelled';
interface Owned {
  kind: 'flag' | 'config';
  key: string;
  archived: boolean;
  /** Per environment: the rollout's status as this client's last answer left it. */
  rollout: Record<string, RolloutStatus>;
  targetIds: Record<string, string[]>;
}

/** What the clients saw: answers by status class, and the writes that committed, per resource key. */
interface Tally {
  requests: number;
  byStatus: Map<number, number>;
  fiveXx: string[];
  /** resourceKey → the committed writes of it, in order (for a failure's message). */
  writes: Map<string, string[]>;
  /** What each kind of write took, in ms. */
  latency: Map<string, number[]>;
  /** resourceKey → committed writes of it (each must have left exactly one audit row). */
  committed: Map<string, number>;
}

const statusOf = (err: unknown): number => (err instanceof GradualApiError ? err.status : -1);

describe(`${CLIENTS} concurrent writers for ${SECONDS} s on ${INSTANCES} instance(s) (${ADMIN_URL ? 'PostgreSQL and Redis' : 'embedded'})`, () => {
  const servers: ProductionServer[] = [];
  let dropDb: (() => Promise<void>) | undefined;
  let owners: GradualClient[] = [];
  let projectId: string;
  const envIds: Record<string, string> = {};
  const tally: Tally = { requests: 0, byStatus: new Map(), fiveXx: [], committed: new Map(), writes: new Map(), latency: new Map() };

  beforeAll(async () => {
    const env = {
      NODE_ENV: 'test',
      SERVICE_TEST_CLOCK: '1',
      LOG_LEVEL: 'warn',
      ORG_RATE_LIMIT_PER_MIN: '1000000',
      SESSION_RATE_LIMIT_PER_MIN: '1000000',
      ...(ADMIN_URL ? { REDIS_URL } : {}),
    };
    if (ADMIN_URL) {
      const db = await createScratchDatabase(ADMIN_URL, 'gradual_t_torture');
      dropDb = db.drop;
      servers.push(await startProduction({ databaseUrl: db.url, env }));
      servers.push(...(await Promise.all(Array.from({ length: INSTANCES - 1 }, () => startProduction({ databaseUrl: db.url, env })))));
    } else {
      servers.push(await startProduction({ env }));
    }
    const { sessionToken } = await claimProcess(servers[0]!);
    owners = servers.map((s) => createClient({ baseUrl: s.url, sessionToken }));
    const api = owners[0]!;
    projectId = (await api.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    for (const key of ENVS) envIds[key] = (await api.createEnvironment({ path: { id: projectId }, body: { key, name: key } })).id;
    for (const key of SEGMENTS) await api.createSegment({ path: { id: projectId }, body: { key, name: key, rules: [] } });
    for (const key of PLANS) {
      await api.createRolloutPlan({
        path: { id: projectId },
        body: { key, name: key, cadence: 'manual', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] },
      });
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await dropDb?.();
  }, 60_000);

  it('answer no 5xx, keep versions unique and gap-free, audit every committed write once, and serve the same state on every instance', async () => {
    const setUp = new Set((await auditRows(owners[0]!)).map((row) => row.id));
    const versionsBefore: Record<string, number> = {};
    for (const key of ENVS) versionsBefore[key] = (await owners[0]!.getEnvironment({ path: { envId: envIds[key]! } })).version;
    const deadline = Date.now() + SECONDS * 1000;
    await Promise.all(Array.from({ length: CLIENTS }, (_, n) => writer(n, owners[n % INSTANCES]!, deadline)));

    const conflicts = await Promise.all(servers.map(async (s) => (await scrapeMetrics(s.url)).sum('gradual_db_conflicts_total')));
    const gaveUp = await Promise.all(servers.map(async (s) => (await scrapeMetrics(s.url)).text.split('\n').filter((l) => l.includes('outcome="gave_up"'))));
    const committed = [...tally.committed.values()].reduce((a, b) => a + b, 0);
    console.log(
      `torture: ${tally.requests} requests (${committed} committed writes), by status ${JSON.stringify(Object.fromEntries(tally.byStatus))}; ` +
        `conflicts retried by the server: ${conflicts.join(' + ')}; ${gaveUp.flat().join(', ') || 'none given up'}`,
    );
    const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
    console.log(`torture: median ms by write ${JSON.stringify(Object.fromEntries([...tally.latency].map(([what, ms]) => [what, Math.round(median(ms))])))}`);
    expect(tally.fiveXx).toEqual([]);
    expect(tally.requests).toBeGreaterThan(CLIENTS * 10);

    // Every committed write, exactly one audited change; every audited change of the run, a
    // committed write. A change is its rows: the rows of one environment version (a rollout
    // step can write several, e.g. advanced, completed and the value it completes with), or one
    // row outside any environment (a flag created, a segment or plan edited).
    const rows = (await auditRows(owners[0]!)).filter((row) => !setUp.has(row.id));
    const changesByKey = new Map<string, Set<string>>();
    for (const row of rows) {
      if (!row.resourceKey) continue;
      const changes = changesByKey.get(row.resourceKey) ?? new Set<string>();
      changes.add(row.envId && row.version != null ? `${row.envId}@${row.version}` : row.id);
      changesByKey.set(row.resourceKey, changes);
    }
    const audited = Object.fromEntries([...changesByKey].map(([key, changes]) => [key, changes.size] as const).sort());
    const differing = [...new Set([...Object.keys(audited), ...tally.committed.keys()])].filter((key) => audited[key] !== tally.committed.get(key));
    const explain = differing.map((key) => `${key}: writes ${(tally.writes.get(key) ?? []).join(', ')}; rows ${rows.filter((r) => r.resourceKey === key).map((r) => `${r.action}@${r.version ?? '-'}`).reverse().join(', ')}`);
    expect(audited, explain.join('\n')).toEqual(Object.fromEntries([...tally.committed].sort()));

    for (const envKey of ENVS) {
      const envId = envIds[envKey]!;
      const current = (await owners[0]!.getEnvironment({ path: { envId } })).version;
      // Unique: the rows of one version are one write's (one resource); gap-free: every version
      // since the start has its rows, and none is past the environment's.
      const byVersion = new Map<number, Set<string>>();
      for (const row of rows) {
        if (row.envId !== envId || row.version == null) continue;
        const keys = byVersion.get(row.version) ?? new Set<string>();
        keys.add(row.resourceKey ?? '');
        byVersion.set(row.version, keys);
      }
      const shared = [...byVersion].filter(([, keys]) => keys.size > 1).map(([v, keys]) => `v${v}: ${[...keys].join(', ')}`);
      expect(shared, `${envKey}: versions written by two writes`).toEqual([]);
      // A project-level write (a flag or config created, archived or restored: rows without an
      // environment) advances every environment once; every other version is one env-scoped write's.
      const projectWrites = rows.filter((row) => row.envId == null && (row.resourceType === 'flag' || row.resourceType === 'config')).length;
      expect(byVersion.size + projectWrites, `${envKey}: versions advanced against writes`).toBe(current - versionsBefore[envKey]!);
      expect(Math.min(...byVersion.keys())).toBeGreaterThan(versionsBefore[envKey]!);
      expect(Math.max(0, ...byVersion.keys())).toBeLessThanOrEqual(current);

      // Every instance serves the database's version, the same ruleset and the same evaluations.
      const served = await Promise.all(owners.map((api) => rulesetAt(api, envId, current)));
      for (const ruleset of served.slice(1)) expect(ruleset).toEqual(served[0]);
      for (const userId of ['u-1', 'u-2', 'u-3', 'u-42', 'u-1000']) {
        const answers = await Promise.all(owners.map((api) => api.evaluate({ path: { envId }, body: { context: { userId, plan: 'pro' } } })));
        for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
      }
    }
  }, (SECONDS + 240) * 1000);

  /** Every audit row of the organization. */
  async function auditRows(api: GradualClient) {
    const rows: Array<{ id: string; action: string; resourceType: string; envId?: string | null; version?: number | null; resourceKey?: string | null }> = [];
    let cursor: string | undefined;
    do {
      const page = await api.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200, ...(cursor ? { cursor } : {}) } });
      rows.push(...page.events);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return rows;
  }

  /** The ruleset an instance serves once it has caught up with `version` (its bus may be a moment behind). */
  async function rulesetAt(api: GradualClient, envId: string, version: number) {
    for (let i = 0; ; i++) {
      const ruleset = await api.getRuleset({ path: { envId } });
      if (ruleset.version >= version || i >= 100) {
        expect(ruleset.version).toBe(version);
        return ruleset;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The status of the current rollout of `subject` in an environment, as the server has it. */
  async function rolloutStatus(api: GradualClient, subject: Owned, envId: string): Promise<RolloutStatus> {
    const path = { envId, key: subject.key };
    try {
      return (subject.kind === 'flag' ? await api.getFlagRollout({ path }) : await api.getConfigRollout({ path })).status;
    } catch (err) {
      if (statusOf(err) === 404) return 'none';
      throw err;
    }
  }

  /** One client: random writes until the deadline, each answer tallied. */
  async function writer(n: number, api: GradualClient, deadline: number): Promise<void> {
    const owned: Owned[] = [];
    let seq = 0;
    const unique = () => `${n}-${seq++}`;
    let lastWrite = '';
    const committed = (key: string) => {
      tally.committed.set(key, (tally.committed.get(key) ?? 0) + 1);
      tally.writes.set(key, [...(tally.writes.get(key) ?? []), lastWrite]);
    };
    /** Sends one write; true when it committed (2xx). A 4xx is an answer the model allows (a key taken, a state moved); a 5xx fails the test. */
    const send = async (what: string, call: () => Promise<unknown>): Promise<unknown> => {
      tally.requests++;
      lastWrite = what;
      const started = performance.now();
      const took = () => tally.latency.set(what, [...(tally.latency.get(what) ?? []), performance.now() - started]);
      try {
        const result = await call();
        took();
        tally.byStatus.set(200, (tally.byStatus.get(200) ?? 0) + 1);
        return result ?? true;
      } catch (err) {
        took();
        const status = statusOf(err);
        tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
        if (status >= 500 || status < 400) tally.fiveXx.push(`${what}: ${status} ${(err as Error).message}`);
        return undefined;
      }
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

    while (Date.now() < deadline) {
      const roll = Math.random();
      const live = owned.filter((o) => !o.archived);
      if (roll < 0.08 || live.length < 3) {
        const kind = Math.random() < 0.7 ? 'flag' : 'config';
        const key = `${kind}-${unique()}`;
        const created =
          kind === 'flag'
            ? await send('createFlag', () => api.createFlag({ path: { id: projectId }, body: { key, name: key, valueType: 'string', defaultValue: 'off' } }))
            : await send('createConfig', () => api.createConfig({ path: { id: projectId }, body: { key, name: key, defaultValue: { limit: 1 } } }));
        if (created) {
          committed(key);
          owned.push({ kind, key, archived: false, rollout: {}, targetIds: {} });
        }
        continue;
      }
      if (roll < 0.2) {
        const segment = pick(SEGMENTS);
        const ok =
          Math.random() < 0.5
            ? await send('updateSegment', () => api.updateSegment({ path: { id: projectId, key: segment }, body: { description: `d-${unique()}` } }))
            : await send('addSegmentIncluded', () => api.addSegmentIncluded({ path: { id: projectId, key: segment }, body: { targetIds: [`s-${unique()}`] } }));
        if (ok) committed(segment);
        continue;
      }
      if (roll < 0.25) {
        const plan = pick(PLANS);
        if (await send('updateRolloutPlan', () => api.updateRolloutPlan({ path: { id: projectId, planKey: plan }, body: { name: `p-${unique()}` } }))) committed(plan);
        continue;
      }
      // Mostly a live rollout's flag and environment, so that the state machine's writes get their share.
      const running = live.flatMap((o) => ENVS.filter((e) => o.rollout[e] === 'active' || o.rollout[e] === 'paused').map((e) => [o, e] as const));
      const [target, envKey] = running.length && Math.random() < 0.7 ? pick(running) : [pick(live), pick(ENVS)];
      const envId = envIds[envKey]!;
      const path = { envId, key: target.key };
      const status = target.rollout[envKey] ?? 'none';
      const isFlag = target.kind === 'flag';
      const newValue = () => (isFlag ? `v-${unique()}` : { limit: seq++ });
      const track = (result: unknown) => {
        if (!result) return false;
        committed(target.key);
        // A rollout write answers `{kind: 'applied', data: rollout}`.
        const rollout = typeof result === 'object' && result !== null && 'data' in result ? result.data : undefined;
        if (typeof rollout === 'object' && rollout !== null && 'status' in rollout && typeof rollout.status === 'string') target.rollout[envKey] = rollout.status as RolloutStatus;
        return true;
      };
      if (roll < 0.3) {
        // Archive one of this client's live ones, or restore an archived one.
        const archived = owned.filter((o) => o.archived);
        const subject = archived.length && Math.random() < 0.5 ? pick(archived) : target;
        const archive = !subject.archived;
        const where = { path: { id: projectId, key: subject.key } };
        const result =
          subject.kind === 'flag'
            ? await send('archiveFlag', () => (archive ? api.archiveFlag(where) : api.restoreFlag(where)))
            : await send('archiveConfig', () => (archive ? api.archiveConfig(where) : api.restoreConfig(where)));
        if (result) {
          committed(subject.key);
          subject.archived = archive;
          // Archiving may have ended its rollouts: read them again before the next state-machine write.
          if (!archive) for (const e of ENVS) subject.rollout[e] = await rolloutStatus(api, subject, envIds[e]!);
        }
        continue;
      }
      if (roll < 0.42) {
        const rules = [{ conditions: [{ attribute: 'plan', operator: 'in' as const, values: [`plan-${unique()}`] }], value: isFlag ? 'on' : { limit: 2 } }];
        track(await send('setRules', () => (isFlag ? api.setFlagRules({ path, body: { rules } }) : api.setConfigRules({ path, body: { rules } }))));
        continue;
      }
      if (status === 'none' || status === 'completed' || status === 'cancelled') {
        const planKey = Math.random() < 0.5 ? pick(PLANS) : undefined;
        const body = { percent: 1 + Math.floor(Math.random() * 90), ...(planKey ? { planKey } : {}) };
        target.targetIds[envKey] = []; // a new rollout starts with an empty allow-list
        track(await send('putRollout', () => (isFlag ? api.putFlagRollout({ path, body: { ...body, newValue: newValue() } }) : api.putConfigRollout({ path, body: { ...body, newValue: newValue() } }))));
        continue;
      }
      const op = roll < 0.55 ? 'targets' : roll < 0.7 ? (status === 'paused' ? 'resume' : 'pause') : roll < 0.85 ? 'advance' : roll < 0.93 ? 'percent' : 'cancel';
      if (op === 'targets') {
        const present = target.targetIds[envKey] ?? [];
        if (present.length && Math.random() < 0.4) {
          const ids = present.splice(0, 1 + Math.floor(Math.random() * present.length));
          const result = await send('removeTargetIds', () => (isFlag ? api.removeFlagTargetIds({ path, body: { targetIds: ids } }) : api.removeConfigTargetIds({ path, body: { targetIds: ids } })));
          if (result) committed(target.key);
          else present.push(...ids);
        } else {
          const ids = Array.from({ length: 1 + Math.floor(Math.random() * 20) }, () => `t-${unique()}`);
          const result = await send('addTargetIds', () => (isFlag ? api.addFlagTargetIds({ path, body: { targetIds: ids } }) : api.addConfigTargetIds({ path, body: { targetIds: ids } })));
          if (result) {
            committed(target.key);
            target.targetIds[envKey] = [...present, ...ids];
          }
        }
      } else if (op === 'pause') {
        track(await send('pause', () => (isFlag ? api.pauseFlagRollout({ path }) : api.pauseConfigRollout({ path }))));
      } else if (op === 'resume') {
        track(await send('resume', () => (isFlag ? api.resumeFlagRollout({ path }) : api.resumeConfigRollout({ path }))));
      } else if (op === 'advance') {
        // Without a plan there is no step to take: 409, nothing written.
        track(await send('advance', () => (isFlag ? api.advanceFlagRollout({ path }) : api.advanceConfigRollout({ path }))));
      } else if (op === 'percent') {
        // The same candidate at another percent (a paused rollout keeps its pause at the new percent).
        const current = isFlag ? await api.getFlagRollout({ path }) : await api.getConfigRollout({ path });
        const body = { percent: current.percent >= 90 ? current.percent - 1 : current.percent + 1, newValue: current.newValue };
        track(await send('putRolloutPercent', () => (isFlag ? api.putFlagRollout({ path, body }) : api.putConfigRollout({ path, body }))));
      } else {
        track(await send('cancel', () => (isFlag ? api.cancelFlagRollout({ path }) : api.cancelConfigRollout({ path }))));
      }
    }
  }
});
