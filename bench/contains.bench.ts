/**
 * 2. `contains` latency with 1,000,000 IDs on the allow-list: ≥ 2,000 sequential
 * `GET …/rollout/target-ids/contains/{id}` through the generated SDK (API key), half of them
 * present IDs, half absent ones of the same shape, in a fixed pseudo-random order.
 *
 * Setup: the rollout is created through the API; its 1,000,000 IDs are loaded by direct SQL
 * (`insert … select … from generate_series`, the API takes at most 100,000 per request, so ten
 * API calls would cost minutes of setup on a slow machine),
 * targetIdsCount set to match, then ANALYZE. The API then reports the count, and every
 * answer is checked.
 *
 * Baseline: a bare `node:http` server in this process answering the same route with the same
 * JSON body from an in-memory Set of the same IDs, called with the very same SDK client loop.
 * Rounds alternate between the two (and which goes first) so machine noise hits both alike;
 * the ratio spread is over the rounds.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type GradualClient } from '@gradual/sdk';
import { rawQuery } from '../server/src/features/shared/raw-sql.js';
import { startBenchServer, type Backend } from './lib/backends.js';
import { profileCpu, renderCpu } from './lib/cpu-profile.js';
import { cpuSince, cpuSnapshot } from './lib/cpu-time.js';
import { applied, setUpTenant } from './lib/instance.js';
import { goal, series, type BenchResult } from './lib/report.js';
import { profileSql, renderSqlProfile } from './lib/sql-profile.js';
import { collectGarbage, elapsed, percentile, prng, ratioOf, summarize } from './lib/stats.js';

const LIST = 1_000_000;
const ROUNDS = Number(process.env.BENCH_CONTAINS_ROUNDS ?? 4);
const PER_ROUND = 500;
const WARMUP = 200;
const GOAL_P99_MS = 5;
const KEY = 'big-list';
const PROFILE = process.env.BENCH_PROFILE === '1';

const idOf = (n: number) => `user-${String(n).padStart(7, '0')}`;

/** The request sequence: even positions present (1..LIST), odd ones absent (LIST+1..2·LIST). */
function requests(count: number, seed: number): Array<{ id: string; present: boolean }> {
  const random = prng(seed);
  return Array.from({ length: count }, (_, k) => {
    const present = k % 2 === 0;
    const n = 1 + Math.floor(random() * LIST);
    return { id: idOf(present ? n : LIST + n), present };
  });
}

async function startBaseline(ids: Set<string>): Promise<{ server: Server; url: string }> {
  const route = /^\/api\/v1\/envs\/[^/]+\/flags\/[^/]+\/rollout\/target-ids\/contains\/([^/?]+)$/;
  const server = createServer((req, res) => {
    const match = route.exec(req.url ?? '');
    if (req.method !== 'GET' || !match) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.stringify({ contains: ids.has(decodeURIComponent(match[1]!)) });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The one client loop both servers are measured with: sequential, one request in flight. */
async function loop(client: GradualClient, envId: string, reqs: Array<{ id: string; present: boolean }>, into?: number[]): Promise<void> {
  for (const r of reqs) {
    const start = performance.now();
    const res = await client.checkFlagTargetId({ path: { envId, key: KEY, targetId: r.id } });
    const ms = elapsed(start);
    if (res.contains !== r.present) throw new Error(`contains(${r.id}) answered ${String(res.contains)}, expected ${String(r.present)}`);
    into?.push(ms);
  }
}

export async function benchContains(backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const notes: string[] = [];
  const t = await startBenchServer(backend);
  let baseline: Server | undefined;
  try {
    const tenant = await setUpTenant(t);
    const envId = tenant.envIds[0]!;
    const db = t.server.deps.db;
    await tenant.owner.createFlag({ path: { id: tenant.projectId }, body: { key: KEY, name: 'Big list', defaultValue: false } });
    const rollout = applied(await tenant.owner.putFlagRollout({ path: { envId, key: KEY }, body: { percent: 0, newValue: true } }), 'percent');

    const loadStart = performance.now();
    // Bulk load with the per-row foreign key check skipped (session_replication_role = replica,
    // superusers only; the rollout row exists, so the rows are valid): 2-4x faster. Without the
    // privilege, the plain insert.
    const fill = (fast: boolean) =>
      db.em().transactional(async (tx) => {
        if (fast) await rawQuery(tx, 'set local session_replication_role = replica');
        await rawQuery(
          tx,
          `insert into rollout_target_ids (rollout_id, target_id) select ?, 'user-' || lpad(g::text, 7, '0') from generate_series(1, ?::int) g`,
          [rollout.id, LIST],
        );
      });
    let fast = true;
    await fill(true).catch(async (err: { code?: string }) => {
      if (err.code !== '42501') throw err;
      fast = false;
      await fill(false);
    });
    await rawQuery(db.em(), `update rollouts set target_ids_count = ? where id = ?`, [LIST, rollout.id]);
    const insertMs = elapsed(loadStart);
    await rawQuery(db.em(), 'analyze rollout_target_ids');
    const loadMs = elapsed(loadStart);
    const count = (await tenant.api.getFlagRollout({ path: { envId, key: KEY } })).targetIdsCount;
    if (count !== LIST) throw new Error(`targetIdsCount ${count}, expected ${LIST}`);
    const plan = await rawQuery<Record<string, string>>(
      db.em(),
      'explain (costs off) select 1 from rollout_target_ids where rollout_id = ? and target_id = ?',
      [rollout.id, idOf(1)],
    );
    notes.push(
      `setup: ${LIST.toLocaleString('en')} IDs by direct SQL (insert … generate_series${fast ? ', FK check skipped' : ''}, ${(insertMs / 1000).toFixed(1)} s) + ANALYZE (${((loadMs - insertMs) / 1000).toFixed(1)} s); ` +
        `API reports targetIdsCount ${count}; lookup plan: ${plan.rows.map((r) => Object.values(r)[0]!.trim()).join(' / ')}`,
    );

    const set = new Set<string>();
    for (let n = 1; n <= LIST; n++) set.add(idOf(n));
    const base = await startBaseline(set);
    baseline = base.server;
    const baseClient = createClient({ baseUrl: base.url, token: 'unused' });
    const apiClient = tenant.api;

    // Warm-up (JIT, connections, caches), then measured rounds.
    await loop(apiClient, envId, requests(WARMUP, 1));
    await loop(baseClient, envId, requests(WARMUP, 1));
    const profile: Record<string, unknown> = {};
    if (PROFILE) {
      // An extra, uncounted round of API requests under the SQL attribution and CPU profiler.
      const n = 300;
      const { value: inner, cpu } = await profileCpu(() => profileSql(() => loop(apiClient, envId, requests(n, 2))));
      Object.assign(profile, { requests: n, sql: inner.profile, cpu });
      notes.push(`BENCH_PROFILE (${n} extra API requests, not counted):`, ...renderSqlProfile(inner.profile, 8), ...renderCpu(cpu, 12));
    }
    const api: number[] = [];
    const bare: number[] = [];
    const rounds: Array<{ api: number[]; bare: number[] }> = [];
    const apiCpu: number[] = [];
    const bareCpu: number[] = [];
    // CPU per request, averaged over a round: client + server (+ PostgreSQL backends / PGlite thread).
    const measured = async (client: GradualClient, reqs: Array<{ id: string; present: boolean }>, into: number[], cpuInto: number[]) => {
      const before = await cpuSnapshot(db);
      await loop(client, envId, reqs, into);
      const spent = await cpuSince(db, before);
      cpuInto.push((spent.processMs + (client === apiClient ? (spent.serverMs ?? 0) : 0)) / reqs.length);
    };
    for (let r = 0; r < ROUNDS; r++) {
      const reqs = requests(PER_ROUND, 100 + r);
      const round = { api: [] as number[], bare: [] as number[] };
      collectGarbage();
      if (r % 2 === 0) {
        await measured(apiClient, reqs, round.api, apiCpu);
        await measured(baseClient, reqs, round.bare, bareCpu);
      } else {
        await measured(baseClient, reqs, round.bare, bareCpu);
        await measured(apiClient, reqs, round.api, apiCpu);
      }
      rounds.push(round);
      api.push(...round.api);
      bare.push(...round.bare);
      const s = summarize(round.api);
      log(`  contains round ${r + 1}/${ROUNDS}: API p50 ${s.median.toFixed(2)} ms p99 ${s.p99.toFixed(2)} ms; baseline p50 ${summarize(round.bare).median.toFixed(3)} ms`);
    }
    notes.push(
      `${api.length} requests per side (${ROUNDS} alternating rounds of ${PER_ROUND}, after ${WARMUP} warm-up each), half present / half absent IDs, every answer checked; ` +
        `CPU per request = client and server in this process${backend.kind === 'postgres' ? ' + the PostgreSQL backends' : ' (PGlite thread included)'}, the baseline has no database`,
    );

    const A = series('API contains (SDK → server → DB)', api, true);
    const B = series('baseline: bare node:http + Set', bare, true);
    const sortedRound = (x: number[]) => [...x].sort((a, b) => a - b);
    return {
      id: 'contains',
      title: `contains latency, ${LIST.toLocaleString('en')} IDs on the list`,
      backend: backend.kind,
      backendLabel: backend.label,
      series: [A, B, series('  CPU per request, API (mean per round)', apiCpu), series('  CPU per request, baseline (mean per round)', bareCpu)],
      ratios: [
        { label: 'API / baseline, p50', ...ratioOf(A.summary.median / B.summary.median, rounds.map((r) => percentile(sortedRound(r.api), 50) / percentile(sortedRound(r.bare), 50)), 'over the rounds') },
        { label: 'API / baseline, p99', ...ratioOf(A.summary.p99 / B.summary.p99, rounds.map((r) => percentile(sortedRound(r.api), 99) / percentile(sortedRound(r.bare), 99)), 'over the rounds') },
      ],
      goals: [goal(`p99 over ${api.length} sequential requests`, A.summary.p99, GOAL_P99_MS)],
      notes,
      details: { listSize: LIST, rounds: ROUNDS, perRound: PER_ROUND, warmup: WARMUP, loadMs, ...(PROFILE ? { profile } : {}) },
      wallMs: elapsed(wall),
    };
  } finally {
    if (baseline) {
      baseline.closeAllConnections();
      await new Promise<void>((resolve) => baseline!.close(() => resolve()));
    }
    await t.close();
  }
}
