/**
 * 2. `contains` latency with 1,000,000 IDs on the allow-list: ≥ 2,000 sequential
 * `GET …/rollout/target-ids/contains/{id}` through the generated SDK with an API key, half of
 * them present IDs, half absent ones of the same shape, in a fixed pseudo-random order.
 *
 * The server is a production start in its own process (`node scripts/start.mjs`, as `npm start`
 * runs it), the client loop runs in this one: what an application calling the API sees. The
 * 1,000,000 IDs go in through the API, one `PUT …/target-ids` (replace), and the API's
 * targetIdsCount is checked. (A fresh client process per round measured the same, a little
 * worse: the tail below is this 2-core machine's, client and baseline included.)
 *
 * Baseline: a bare `node:http` server, also in its own process, answering the same route with
 * the same JSON body from an in-memory Set of the same IDs (bench/lib/bare-contains-server.mjs),
 * called with the very same SDK client loop. Rounds alternate between the two (and which goes first) so
 * machine noise hits both alike; the ratio spread is over the rounds.
 *
 * CPU per request is read from /proc: the server process (and, on PostgreSQL, its database
 * backends) against the baseline process. BENCH_SERVER_CPU_PROF=<dir> writes the server's CPU
 * profile there.
 */
import { fileURLToPath } from 'node:url';
import { createClient, type GradualClient } from '@gradual/sdk';
import { claimProcess, startProduction } from '../tests/support/production.js';
import type { Backend } from './lib/backends.js';
import { startChildServer, type ChildServer } from './lib/child-server.js';
import { pgBackendsCpuMs, pgBackendsCpuSpent, procCpuMs } from './lib/cpu-time.js';
import { goal, series, type BenchResult } from './lib/report.js';
import { collectGarbage, elapsed, percentile, prng, ratioOf, summarize } from './lib/stats.js';

const LIST = 1_000_000;
const ROUNDS = Number(process.env.BENCH_CONTAINS_ROUNDS ?? 4);
const PER_ROUND = 500;
const WARMUP = 300;
const GOAL_P99_MS = 5;
const KEY = 'big-list';
const BARE_CONTAINS = fileURLToPath(new URL('./lib/bare-contains-server.mjs', import.meta.url));

type Req = { id: string; present: boolean };

const idOf = (n: number) => `user-${String(n).padStart(7, '0')}`;

/** The request sequence: even positions present (1..LIST), odd ones absent (LIST+1..2·LIST). */
function requests(count: number, seed: number): Req[] {
  const random = prng(seed);
  return Array.from({ length: count }, (_, k) => {
    const present = k % 2 === 0;
    const n = 1 + Math.floor(random() * LIST);
    return { id: idOf(present ? n : LIST + n), present };
  });
}

/** Cumulative bucket counts (upper bound in seconds → count) of the server's histogram for the flag contains route. */
async function serverHistogram(url: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = new Map<number, number>();
  const line = /^gradual_http_request_duration_seconds_bucket\{le="([^"]+)",method="GET",route="[^"]*\/flags\/:key\/rollout\/target-ids\/contains\/:targetId",status="200"\} (\d+)$/gm;
  for (const m of text.matchAll(line)) if (m[1] !== '+Inf') out.set(Number(m[1]), Number(m[2]));
  return out;
}

/** The one client loop both servers are measured with: sequential, one request in flight. */
async function loop(client: GradualClient, envId: string, reqs: Req[], into?: number[]): Promise<void> {
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
  const server = await startProduction({
    ...(backend.kind === 'postgres' ? { adminUrl: backend.adminUrl! } : {}),
    env: { ORG_RATE_LIMIT_PER_MIN: '100000000' },
  });
  let bare: ChildServer | undefined;
  try {
    const { owner } = await claimProcess(server, 'bench');
    const project = await owner.createProject({ path: { slug: 'bench' }, body: { key: 'bench', name: 'Bench' } });
    const envId = (await owner.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.createFlag({ path: { id: project.id }, body: { key: KEY, name: 'Big list', defaultValue: false } });
    await owner.putFlagRollout({ path: { envId, key: KEY }, body: { percent: 0, newValue: true } });
    const { token } = await owner.createApiKey({ path: { slug: 'bench' }, body: { name: 'bench', rateLimitPerMin: 100_000 } });
    const apiClient = createClient({ baseUrl: server.url, token });

    const loadStart = performance.now();
    const replaced = await owner.replaceFlagTargetIds({
      path: { envId, key: KEY },
      body: { targetIds: Array.from({ length: LIST }, (_, i) => idOf(i + 1)) },
    });
    const loadMs = elapsed(loadStart);
    const count = (await apiClient.getFlagRollout({ path: { envId, key: KEY } })).targetIdsCount;
    if (!('count' in replaced) || replaced.count !== LIST || count !== LIST) throw new Error(`replace: ${JSON.stringify(replaced)}, targetIdsCount ${count}; expected ${LIST}`);
    notes.push(`setup: ${LIST.toLocaleString('en')} IDs in one API replace (${(loadMs / 1000).toFixed(1)} s); the API reports targetIdsCount ${count}`);

    bare = await startChildServer(BARE_CONTAINS, [String(LIST)]);

    const baseClient = createClient({ baseUrl: bare.url, token: 'unused' });
    // Warm-up (JIT, connections, caches), then measured rounds.
    await loop(apiClient, envId, requests(WARMUP, 1));
    await loop(baseClient, envId, requests(WARMUP, 1));
    const api: number[] = [];
    const baseline: number[] = [];
    const rounds: Array<{ api: number[]; bare: number[] }> = [];
    const apiCpu: number[] = [];
    const bareCpu: number[] = [];
    // CPU per request, averaged over a round: the answering process (+ its PostgreSQL backends).
    const measured = async (which: 'api' | 'bare', reqs: Req[], into: number[]) => {
      const pid = which === 'api' ? server.pid : bare!.pid;
      const pgBefore = which === 'api' && server.databaseUrl ? await pgBackendsCpuMs(server.databaseUrl) : null;
      const before = await procCpuMs(pid);
      await loop(which === 'api' ? apiClient : baseClient, envId, reqs, into);
      const after = await procCpuMs(pid);
      const pg = pgBackendsCpuSpent(pgBefore, which === 'api' && server.databaseUrl ? await pgBackendsCpuMs(server.databaseUrl) : null);
      if (before !== null && after !== null) (which === 'api' ? apiCpu : bareCpu).push((after - before + (pg ?? 0)) / reqs.length);
    };
    const histogramBefore = await serverHistogram(server.url);
    for (let r = 0; r < ROUNDS; r++) {
      const reqs = requests(PER_ROUND, 100 + r);
      const round = { api: [] as number[], bare: [] as number[] };
      collectGarbage();
      for (const which of r % 2 === 0 ? (['api', 'bare'] as const) : (['bare', 'api'] as const)) await measured(which, reqs, round[which]);
      rounds.push(round);
      api.push(...round.api);
      baseline.push(...round.bare);
      const s = summarize(round.api);
      const b = summarize(round.bare);
      log(`  contains round ${r + 1}/${ROUNDS}: API p50 ${s.median.toFixed(2)} ms p99 ${s.p99.toFixed(2)} ms; baseline p50 ${b.median.toFixed(2)} ms p99 ${b.p99.toFixed(2)} ms`);
    }
    // The server's own view of the same requests (handler start to response end): the part of the
    // client's latency that is the service's, without the client and the machine's scheduling.
    const histogramAfter = await serverHistogram(server.url);
    const serverSide = [...histogramAfter].map(([le, n]) => ({ le, share: (n - (histogramBefore.get(le) ?? 0)) / api.length }));
    const serverP99 = serverSide.find((b) => b.share >= 0.99)?.le;
    notes.push(
      `server-side (its own latency histogram over the measured checks): ${serverSide
        .filter((b) => b.le <= 0.01)
        .map((b) => `${(b.share * 100).toFixed(1)}% ≤ ${b.le * 1000} ms`)
        .join(', ')}; p99 ≤ ${serverP99 !== undefined ? `${serverP99 * 1000} ms` : '?'}`,
    );
    notes.push(
      `${api.length} requests per side (${ROUNDS} alternating rounds of ${PER_ROUND}, after ${WARMUP} warm-up each), half present / half absent IDs, every answer checked; ` +
        `server and baseline each in their own process, the SDK client loop in the bench process; CPU per request = the answering process` +
        `${backend.kind === 'postgres' ? ' + its PostgreSQL backends' : ' (PGlite runs inside it)'} (/proc, 10 ms ticks averaged over a round)`,
    );

    const A = series('API contains (SDK → production server → DB)', api, true);
    const B = series('baseline: bare node:http + Set (own process)', baseline, true);
    const sortedRound = (x: number[]) => [...x].sort((a, b) => a - b);
    return {
      id: 'contains',
      title: `contains latency, ${LIST.toLocaleString('en')} IDs on the list`,
      backend: backend.kind,
      backendLabel: backend.label,
      series: [A, B, series('  server CPU per request (mean per round)', apiCpu), series('  baseline CPU per request (mean per round)', bareCpu)],
      ratios: [
        { label: 'API / baseline, p50', ...ratioOf(A.summary.median / B.summary.median, rounds.map((r) => percentile(sortedRound(r.api), 50) / percentile(sortedRound(r.bare), 50)), 'over the rounds') },
        { label: 'API / baseline, p99', ...ratioOf(A.summary.p99 / B.summary.p99, rounds.map((r) => percentile(sortedRound(r.api), 99) / percentile(sortedRound(r.bare), 99)), 'over the rounds') },
      ],
      goals: [goal(`p99 over ${api.length} sequential requests`, A.summary.p99, GOAL_P99_MS)],
      notes,
      details: { listSize: LIST, rounds: ROUNDS, perRound: PER_ROUND, warmup: WARMUP, loadMs, serverSide },
      wallMs: elapsed(wall),
    };
  } finally {
    await bare?.stop();
    await server.stop();
  }
}
