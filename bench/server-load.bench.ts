/**
 * Server load: autocannon against a production start of the server (its own
 * process, `node scripts/start.mjs`), side by side with a bare `node:http` server (also its own
 * process) answering the very same bytes from memory: the ceiling any server on this machine
 * could reach for these responses.
 *
 * Scenarios, each through an API key (one per scenario, so no token bucket runs dry):
 *   ruleset-304   GET /envs/{id}/ruleset with the current ETag in If-None-Match
 *   ruleset-200   GET /envs/{id}/ruleset, gzip accepted (20 flags, rollouts, rules)
 *   evaluate      POST /envs/{id}/evaluate, every key for one context
 *   rollout-put   PUT …/flags/{key}/rollout alternating percent over 20 flags: every request
 *                 is a real transition (row lock, version bump, audit row, SSE publish)
 *   ofrep-single  POST /ofrep/v1/evaluate/flags/{key} (OpenFeature remote evaluation), SDK keys
 *   ofrep-bulk    POST /ofrep/v1/evaluate/flags, every flag for one context
 *   ofrep-bulk-304  the same with the answer's ETag in If-None-Match
 *
 * 1. Max throughput: `connections` in flight for `BENCH_LOAD_SECONDS`, target order alternating.
 * 2. Latency at 50% of that maximum: requests evenly spaced at that rate (open loop, see paced()),
 *    p50/p99 from each request's due time; BENCH_LOAD_LATENCY_RUNS (3) runs of `BENCH_LOAD_SECONDS`,
 *    each alternated with the same load on the bare server, the median run's p99 against the goal.
 * 3. Soak: the four scenarios mixed, at 50% of the mix's own maximum, for BENCH_SOAK_SECONDS
 *    (default 60; the full run in docs/benchmarks.md uses 600), sampling the server's RSS: any non-2xx/304
 *    answer or socket error fails the benchmark (a crash, not a goal), memory is reported.
 *
 * autocannon runs in this process; the paced load in a small process of its own (a GC pause in
 * this harness's large heap once showed up as a 190 ms "server" tail). Both share the machine's
 * two cores with the server under test, for both targets alike.
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Backend } from './lib/backends.js';
import { startChildServer, type ChildServer } from './lib/child-server.js';
import { procCpuMs } from './lib/cpu-time.js';
import { scrapeMetrics } from '../tests/support/metrics.js';
import { claimProcess, startProduction, type ProductionServer } from '../tests/support/production.js';
import { goal, type BenchResult, type Goal } from './lib/report.js';
import { median, ratioOf, summarize, type Ratio } from './lib/stats.js';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 8);
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 32);
/** Paced runs at half the maximum per scenario (each also on the bare server); the goal takes the median p99. */
const LATENCY_RUNS = Number(process.env.BENCH_LOAD_LATENCY_RUNS ?? 3);
/** Rounds of the maximum-throughput runs per scenario (each on both servers, order alternating); the ratio takes the median. */
const MAX_ROUNDS = Number(process.env.BENCH_LOAD_MAX_ROUNDS ?? 2);
/** A subset of the scenarios (comma-separated ids), for iterating on one; the soak runs only with all. */
const ONLY_SCENARIOS = process.env.BENCH_LOAD_SCENARIOS?.split(',').map((x) => x.trim());
/** Throughput goals, as a share of the bare server's for the same bytes: the poll's 304 and OFREP's bulk evaluation. */
const SHARE_GOALS: Record<string, number> = { 'ruleset-304': 0.8, 'ofrep-bulk': 0.3 };
/** OFREP's bulk 304 (a browser revalidating) against the ruleset's 304 (an SDK polling). */
const GOAL_BULK_304_VS_RULESET_304 = 0.9;
const FLAGS = 20;
/**
 * API keys (token indexes) each read scenario rotates over: at full speed one key's
 * 100,000-per-minute bucket would run dry. Key 3 makes the rollout PUTs.
 */
const POLL_KEYS = [0, 4, 5, 6, 7, 8];
const RULESET_KEYS = [1, 9, 10, 11, 12, 13];
const EVALUATE_KEYS = [2, 14, 15, 16, 17, 18];
const KEY_COUNT = 19;
/** SDK keys bound to the environment (OFREP takes the environment from the key), per OFREP scenario. */
const OFREP_SINGLE_KEYS = [0, 1, 2, 3, 4, 5];
const OFREP_BULK_KEYS = [6, 7, 8, 9, 10, 11];
const OFREP_304_KEYS = [12, 13, 14, 15, 16, 17];
const SDK_KEY_COUNT = 18;
const OFREP_CONTEXT = JSON.stringify({ context: { targetingKey: 'user-42', plan: 'pro' } });
const BARE_SERVER = fileURLToPath(new URL('./lib/bare-server.mjs', import.meta.url));
const PACED_LOAD = fileURLToPath(new URL('./lib/paced-load.mjs', import.meta.url));

export interface Req {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body?: string;
}
export interface Scenario {
  id: string;
  /** Requests cycled through by every connection. */
  requests: Req[];
  /** Statuses that count as success. */
  ok: number[];
  /** The requests must go out in this order across all connections (each one changes state). */
  ordered?: boolean;
}
interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Requests sent in all, warm-up included (paced runs). */
  sent?: number;
  errors: number;
  statuses: Record<string, number>;
}

/** CPU µs per request sent in `run`, from a process's CPU ms before and after it; null where unknown. */
function cpuPerRequestUs(before: number | null, after: number | null, run: Run): number | null {
  const sent = run.sent ?? run.requests;
  return before === null || after === null || sent === 0 ? null : ((after - before) * 1000) / sent;
}

/** One paced run at half the maximum, with the bare server's at the same rate. */
interface PacedRun {
  gradual: Run;
  bare: Run;
  /** Each server's CPU time per request of its paced run (µs; /proc), null where /proc cannot tell. */
  cpuUs: { gradual: number; bare: number } | null;
  lagMaxMs: number;
  fromMemory: number;
}

export const toCannon = (r: Req) => ({ method: r.method, path: r.path, headers: r.headers, ...(r.body ? { body: r.body } : {}) });

/**
 * One request for autocannon whose setup hands out `requests` in turn across all connections.
 * autocannon's own list is cycled per connection, so 32 connections would send request 0, then
 * 1, … in near lockstep: for the rollout PUTs that means the same PUT many times over, and every
 * repeat is an idempotent no-op instead of a write.
 */
export function inTurn(requests: Req[]) {
  let next = 0;
  return {
    ...toCannon(requests[0]!),
    setupRequest: (req: Record<string, unknown>) => {
      const r = requests[next++ % requests.length]!;
      return { ...req, ...toCannon(r), headers: { ...(req.headers as object), ...r.headers } };
    },
  };
}

/** Closed loop at full speed: `connections` requests always in flight (maximum throughput). */
function cannon(url: string, scenario: Scenario, opts: { seconds: number; rate?: number; connections?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: opts.connections ?? CONNECTIONS,
        duration: opts.seconds,
        ...(opts.rate ? { overallRate: Math.max(1, Math.round(opts.rate)) } : {}),
        requests: scenario.ordered ? [inTurn(scenario.requests)] : scenario.requests.map(toCannon),
      },
      (err: Error | null, result: autocannon.Result) => {
        if (err) return reject(err);
        const statuses: Record<string, number> = {};
        let bad = 0;
        for (const [code, { count = 0 }] of Object.entries(result.statusCodeStats ?? {})) {
          statuses[code] = count;
          if (!scenario.ok.includes(Number(code))) bad += count;
        }
        resolve({
          rps: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          requests: result.requests.total,
          errors: bad + result.errors + result.timeouts,
          statuses,
        });
      },
    );
  });
}

/** Open-loop load at a steady rate, from its own process (bench/lib/paced-load.mjs: why and how). */
async function paced(url: string, scenario: Scenario, rate: number, seconds: number): Promise<Run> {
  const child = spawn(process.execPath, [PACED_LOAD], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify({ url, requests: scenario.requests, ok: scenario.ok, rate, seconds, connections: CONNECTIONS }));
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`paced load exited with ${code}`);
  const out = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { latencies: number[]; statuses: Record<string, number>; errors: number; slowest: Array<[number, number]>; warmupRequests: number };
  if (process.env.BENCH_LOAD_DEBUG) console.log(`    slowest (due s: ms) ${out.slowest.map(([at, ms]) => `${at}: ${ms}`).join(', ')}`);
  const s = summarize(out.latencies);
  return { rps: out.latencies.length / seconds, p50: s.median, p99: s.p99, requests: out.latencies.length, sent: out.latencies.length + out.warmupRequests, errors: out.errors, statuses: out.statuses };
}

/**
 * autocannon stops at its deadline with up to `connections` requests still queued in the
 * server (a third of a second of rollout PUTs): one more request, answered only once those
 * are, then a moment's rest, so the next measurement does not start behind that backlog.
 */
async function drain(url: string, scenario: Scenario): Promise<void> {
  await rawResponse(url, scenario.requests[0]!);
  await new Promise((resolve) => setTimeout(resolve, 500));
}

/** From the server's /metrics: its longest event-loop stall (ms) since the previous read, and the 304s answered from memory. */
async function serverMetrics(url: string): Promise<{ eventLoopLagMaxMs: number; pollsFromMemory: number }> {
  const metrics = await scrapeMetrics(url);
  return { eventLoopLagMaxMs: metrics.sample('nodejs_eventloop_lag_max_seconds') * 1000, pollsFromMemory: metrics.sample('gradual_ruleset_polls_from_memory_total') };
}

/** The raw response (body bytes not decompressed), as the bare server must replay it. */
function rawResponse(base: string, r: Req): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(r.path, base), { method: r.method, headers: r.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) {
          if (v === undefined || ['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) continue;
          headers[k] = Array.isArray(v) ? v.join(', ') : v;
        }
        resolve({ status: res.statusCode!, headers, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

async function startBare(responses: Record<string, unknown>): Promise<ChildServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gradual-bare-'));
  const file = join(dir, 'responses.json');
  writeFileSync(file, JSON.stringify(responses));
  try {
    return await startChildServer(BARE_SERVER, [file]);
  } finally {
    rmSync(dir, { recursive: true, force: true }); // read at start-up
  }
}

/** Claims the instance and builds the tenant the scenarios read and write. */
export async function setUp(server: ProductionServer) {
  const { owner } = await claimProcess(server, 'load');
  const project = await owner.createProject({ path: { slug: 'load' }, body: { key: 'load', name: 'Load' } });
  const envId = (await owner.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
  for (let i = 0; i < FLAGS; i++) {
    const key = `flag-${i}`;
    await owner.createFlag({ path: { id: project.id }, body: { key, name: key, defaultValue: false } });
    await owner.setFlagRules({
      path: { envId, key },
      body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['enterprise'] }], value: true }] },
    });
    await owner.putFlagRollout({ path: { envId, key }, body: { percent: 10, newValue: true } });
  }
  const tokens: string[] = [];
  for (let i = 0; i < KEY_COUNT; i++) {
    tokens.push((await owner.createApiKey({ path: { slug: 'load' }, body: { name: `load-${i}`, rateLimitPerMin: 100_000 } })).token);
  }
  const sdkTokens: string[] = [];
  for (let i = 0; i < SDK_KEY_COUNT; i++) {
    const body = { name: `load-sdk-${i}`, kind: 'sdk' as const, environments: [envId], actions: ['read' as const], rateLimitPerMin: 100_000 };
    sdkTokens.push((await owner.createApiKey({ path: { slug: 'load' }, body })).token);
  }
  return { envId, tokens, sdkTokens };
}

/** The bulk OFREP answer's ETag for each key of OFREP_304_KEYS (the ETag covers the key's view). */
export async function ofrepEtags(url: string, sdkTokens: string[]): Promise<Record<number, string>> {
  const etags: Record<number, string> = {};
  for (const i of OFREP_304_KEYS) {
    const got = await rawResponse(url, ofrepBulk(sdkTokens, i));
    if (got.status !== 200 || !got.headers.etag) throw new Error(`OFREP bulk: ${got.status}`);
    etags[i] = got.headers.etag;
  }
  return etags;
}

function ofrepBulk(sdkTokens: string[], i: number, etag?: string): Req {
  const headers: Record<string, string> = { 'x-api-key': sdkTokens[i]!, 'content-type': 'application/json' };
  if (etag) headers['if-none-match'] = etag;
  return { method: 'POST', path: '/api/v1/ofrep/v1/evaluate/flags', headers, body: OFREP_CONTEXT };
}

export function scenarios(envId: string, tokens: string[], etag: string, sdkTokens: string[] = [], ofrepEtag: Record<number, string> = {}): Scenario[] {
  const auth = (i: number) => ({ authorization: `Bearer ${tokens[i]}` });
  const ruleset = `/api/v1/envs/${envId}/ruleset`;
  const json = { 'content-type': 'application/json' };
  return [
    {
      id: 'ruleset-304',
      ok: [304],
      requests: POLL_KEYS.map((i) => ({ method: 'GET' as const, path: ruleset, headers: { ...auth(i), 'accept-encoding': 'gzip', 'if-none-match': etag } })),
    },
    { id: 'ruleset-200', ok: [200], requests: RULESET_KEYS.map((i) => ({ method: 'GET' as const, path: ruleset, headers: { ...auth(i), 'accept-encoding': 'gzip' } })) },
    {
      id: 'evaluate',
      ok: [200],
      requests: EVALUATE_KEYS.map((i) => ({
        method: 'POST' as const,
        path: `/api/v1/envs/${envId}/evaluate`,
        headers: { ...auth(i), ...json },
        body: JSON.stringify({ context: { userId: 'user-42', plan: 'pro' } }),
      })),
    },
    ...(sdkTokens.length === 0
      ? []
      : [
          {
            id: 'ofrep-single',
            ok: [200],
            requests: OFREP_SINGLE_KEYS.map((i, n) => ({
              method: 'POST' as const,
              path: `/api/v1/ofrep/v1/evaluate/flags/flag-${n % FLAGS}`,
              headers: { authorization: `Bearer ${sdkTokens[i]}`, ...json },
              body: OFREP_CONTEXT,
            })),
          },
          { id: 'ofrep-bulk', ok: [200], requests: OFREP_BULK_KEYS.map((i) => ofrepBulk(sdkTokens, i)) },
          { id: 'ofrep-bulk-304', ok: [304], requests: OFREP_304_KEYS.map((i) => ofrepBulk(sdkTokens, i, ofrepEtag[i])) },
        ]),
    // Last of the runs: its writes change the ruleset, which the ETag scenarios before it hold.
    {
      id: 'rollout-put',
      ok: [200],
      ordered: true,
      // 20 flags × two percents: consecutive requests on one flag always change it.
      requests: Array.from({ length: FLAGS * 2 }, (_, i) => ({
        method: 'PUT' as const,
        path: `/api/v1/envs/${envId}/flags/flag-${i % FLAGS}/rollout`,
        headers: { ...auth(3), ...json },
        body: JSON.stringify({ percent: Math.floor(i / FLAGS) % 2 === 0 ? 20 : 10, newValue: true }),
      })),
    },
  ];
}

export async function benchServerLoad(backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const notes: string[] = [];
  const goals: Goal[] = [];
  const server = await startProduction({
    ...(backend.kind === 'postgres' ? { adminUrl: backend.adminUrl! } : {}),
    // LOG_LEVEL as a production start has it (tests/support/production.ts quiets its servers).
    env: { ORG_RATE_LIMIT_PER_MIN: '100000000', LOG_LEVEL: 'info' },
  });
  let bare: Awaited<ReturnType<typeof startBare>> | undefined;
  try {
    const { envId, tokens, sdkTokens } = await setUp(server);
    const first = await rawResponse(server.url, { method: 'GET', path: `/api/v1/envs/${envId}/ruleset`, headers: { authorization: `Bearer ${tokens[0]}`, 'accept-encoding': 'gzip' } });
    const etag = first.headers.etag!;
    if (first.status !== 200 || !etag) throw new Error(`ruleset GET: ${first.status}`);
    const all = scenarios(envId, tokens, etag, sdkTokens);

    // The bare server replays what the real one answered for each request.
    const responses: Record<string, unknown> = {};
    for (const s of all) {
      for (const r of s.requests.slice(0, FLAGS)) {
        const got = await rawResponse(server.url, { ...r, headers: { ...r.headers, 'if-none-match': '' } });
        responses[`${r.method} ${r.path}`] = { status: got.status, headers: got.headers, bodyBase64: got.body.toString('base64') };
      }
    }
    // The PUTs above applied percent 20 to every flag: the ruleset changed, so take the ETag again.
    const now = await rawResponse(server.url, { method: 'GET', path: `/api/v1/envs/${envId}/ruleset`, headers: { authorization: `Bearer ${tokens[0]}`, 'accept-encoding': 'gzip' } });
    const ofrepEtag = await ofrepEtags(server.url, sdkTokens);
    const fresh = scenarios(envId, tokens, now.headers.etag!, sdkTokens, ofrepEtag);
    // The bulk OFREP ETag covers the key: the bare server answers 304 to each key's.
    const bulk = responses['POST /api/v1/ofrep/v1/evaluate/flags'] as Record<string, unknown>;
    responses['POST /api/v1/ofrep/v1/evaluate/flags'] = { ...bulk, etags: Object.values(ofrepEtag) };
    const notModified = await rawResponse(server.url, fresh[0]!.requests[0]!);
    if (notModified.status !== 304) throw new Error(`ruleset GET with the current ETag: ${notModified.status}`);
    responses[`GET /api/v1/envs/${envId}/ruleset`] = {
      status: 200,
      headers: now.headers,
      bodyBase64: now.body.toString('base64'),
      notModifiedHeaders: notModified.headers,
    };
    bare = await startBare(responses);
    notes.push(`ruleset: ${FLAGS} flags with a rule and a rollout each, ${now.body.length} bytes gzip; ${CONNECTIONS} connections; ${SECONDS} s per run`);
    if (backend.kind === 'embedded') notes.push('embedded: PGlite on a data dir on disk, as `npm start` runs it');

    const rows: string[] = [];
    const ratios: Array<{ label: string } & Ratio> = [];
    const details: Record<string, unknown> = {};
    for (const s of fresh.filter((x) => !ONLY_SCENARIOS || ONLY_SCENARIOS.includes(x.id))) {
      // The rollout PUTs must stay writes: the ETag scenarios must see the ruleset of now.
      const runs: Array<{ gradual: Run; bare: Run }> = [];
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const order = round % 2 === 0 ? (['gradual', 'bare'] as const) : (['bare', 'gradual'] as const);
        const out: Partial<Record<'gradual' | 'bare', Run>> = {};
        for (const target of order) {
          const url = target === 'gradual' ? server.url : bare.url;
          out[target] = await cannon(url, s, { seconds: SECONDS / 2 });
          await drain(url, s);
        }
        runs.push(out as { gradual: Run; bare: Run });
      }
      const maxRps = median(runs.map((r) => r.gradual.rps));
      const bareRps = median(runs.map((r) => r.bare.rps));
      const errors = runs.reduce((n, r) => n + r.gradual.errors, 0);
      // Latency at half the maximum: LATENCY_RUNS paced runs, each followed by the same load on the
      // bare server (what the load generator and the machine add to the tail), order alternating;
      // the goal takes the median run's p99, since one slow moment of a shared host can swamp one run.
      const pacedRuns: PacedRun[] = [];
      for (let round = 0; round < LATENCY_RUNS; round++) {
        const out: Partial<PacedRun> = {};
        const cpuUs: Partial<Record<'gradual' | 'bare', number | null>> = {};
        for (const target of round % 2 === 0 ? (['gradual', 'bare'] as const) : (['bare', 'gradual'] as const)) {
          if (target === 'bare') {
            const cpuBefore = await procCpuMs(bare.pid);
            out.bare = await paced(bare.url, s, maxRps / 2, SECONDS);
            cpuUs.bare = cpuPerRequestUs(cpuBefore, await procCpuMs(bare.pid), out.bare);
            continue;
          }
          const before = await serverMetrics(server.url); // prom-client resets the lag histogram on each read
          const cpuBefore = await procCpuMs(server.pid);
          out.gradual = await paced(server.url, s, maxRps / 2, SECONDS);
          cpuUs.gradual = cpuPerRequestUs(cpuBefore, await procCpuMs(server.pid), out.gradual);
          const after = await serverMetrics(server.url);
          out.lagMaxMs = after.eventLoopLagMaxMs;
          out.fromMemory = (after.pollsFromMemory - before.pollsFromMemory) / (out.gradual.sent ?? out.gradual.requests);
        }
        out.cpuUs = cpuUs.gradual != null && cpuUs.bare != null ? { gradual: cpuUs.gradual, bare: cpuUs.bare } : null;
        pacedRuns.push(out as PacedRun);
      }
      const p99s = pacedRuns.map((r) => r.gradual.p99);
      const bareP99s = pacedRuns.map((r) => r.bare.p99);
      const atHalf = { p50: median(pacedRuns.map((r) => r.gradual.p50)), p99: median(p99s), errors: pacedRuns.reduce((n, r) => n + r.gradual.errors, 0) };
      const statuses: Record<string, number> = {};
      for (const r of pacedRuns) for (const [code, n] of Object.entries(r.gradual.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
      const bareAtHalf = { p50: median(pacedRuns.map((r) => r.bare.p50)), p99: median(bareP99s) };
      const lagMax = Math.max(...pacedRuns.map((r) => r.lagMaxMs));
      const fromMemory = s.id === 'ruleset-304' ? ` (${(Math.min(...pacedRuns.map((r) => r.fromMemory)) * 100).toFixed(1)}% from memory or more)` : '';
      const spread = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
      const share = maxRps / bareRps;
      log(
        `  ${s.id}: max ${maxRps.toFixed(0)} req/s (bare ${bareRps.toFixed(0)}, ×${share.toFixed(2)}); at ${(maxRps / 2).toFixed(0)} req/s${fromMemory} median of ${LATENCY_RUNS} runs p50 ${atHalf.p50.toFixed(2)} ms p99 ${atHalf.p99.toFixed(2)} ms (runs ${spread(p99s)}; bare at that rate: p50 ${bareAtHalf.p50.toFixed(2)} ms p99 ${bareAtHalf.p99.toFixed(2)} ms, runs ${spread(bareP99s)}); server event-loop delay max ${lagMax.toFixed(1)} ms; errors ${errors + atHalf.errors} ${JSON.stringify(statuses)}`,
      );
      rows.push(`${s.id}: ${maxRps.toFixed(0)} req/s vs bare ${bareRps.toFixed(0)} (×${share.toFixed(2)}), p99 at 50% ${atHalf.p99.toFixed(2)} ms`);
      ratios.push({ label: `${s.id}: Gradual / bare server throughput`, ...ratioOf(share, runs.map((r) => r.gradual.rps / r.bare.rps), 'over the rounds') });
      // The same comparison in CPU time per answer at a rate both servers keep up with: steadier than
      // the maximum on a shared host, where the load generator competes for the cores.
      const cpuRuns = pacedRuns.flatMap((r) => (r.cpuUs ? [r.cpuUs] : []));
      if (cpuRuns.length > 0) {
        const ours = median(cpuRuns.map((c) => c.gradual));
        const theirs = median(cpuRuns.map((c) => c.bare));
        log(`  ${s.id}: server CPU per request at half max ${ours.toFixed(1)} µs (bare ${theirs.toFixed(1)} µs)`);
        ratios.push({ label: `${s.id}: bare / Gradual server CPU per request at half max`, ...ratioOf(theirs / ours, cpuRuns.map((c) => c.bare / c.gradual), 'over the paced runs') });
      }
      details[s.id] = { maxRps, bareRps, runs, pacedRuns, atHalf, bareAtHalf, eventLoopLagMaxMs: lagMax };
      if (errors + atHalf.errors > 0) throw new Error(`${s.id}: ${errors + atHalf.errors} failed requests: ${JSON.stringify(statuses)}`);
      const shareGoal = SHARE_GOALS[s.id];
      if (shareGoal !== undefined) goals.push(goal(`${s.id} throughput, share of the bare server`, share, shareGoal, 'x', 'atLeast'));
      goals.push(goal(`${s.id}: p99 at 50% of max throughput (median of ${LATENCY_RUNS} runs)`, atHalf.p99, 20));
    }

    // OFREP's bulk 304 beside the ruleset's 304: a browser's revalidation against an SDK's poll.
    const ruleset304 = details['ruleset-304'] as { runs: Array<{ gradual: Run }> } | undefined;
    const ofrep304 = details['ofrep-bulk-304'] as { runs: Array<{ gradual: Run }> } | undefined;
    if (ruleset304 && ofrep304) {
      const perRound = ofrep304.runs.map((r, i) => r.gradual.rps / ruleset304.runs[i]!.gradual.rps);
      ratios.push({ label: 'OFREP bulk 304 / ruleset 304 throughput', ...ratioOf(median(perRound), perRound, 'over the rounds') });
      goals.push(goal('OFREP bulk 304 / ruleset 304 throughput (median of per-round ratios)', median(perRound), GOAL_BULK_304_VS_RULESET_304, 'x', 'atLeast'));
    }
    const evaluate = details['evaluate'] as { runs: Array<{ gradual: Run }> } | undefined;
    const ofrepSingle = details['ofrep-single'] as { runs: Array<{ gradual: Run }> } | undefined;
    if (evaluate && ofrepSingle) {
      const perRound = ofrepSingle.runs.map((r, i) => r.gradual.rps / evaluate.runs[i]!.gradual.rps);
      ratios.push({ label: 'OFREP single flag / native evaluate (all flags) throughput', ...ratioOf(median(perRound), perRound, 'over the rounds') });
    }

    if (ONLY_SCENARIOS) {
      return { id: 'server-load', title: 'Server load (scenarios only)', backend: backend.kind, backendLabel: backend.label, series: [], ratios, goals, notes: [...notes, ...rows], details, wallMs: performance.now() - wall };
    }
    // Soak: the four scenarios mixed, at half the mix's maximum.
    // In turn, so every PUT flips flag-0's percent (a real write) and the polls see it change.
    const byId = (id: string) => fresh.find((x) => x.id === id)!;
    const [polls, gets, evals, puts] = [byId('ruleset-304'), byId('ruleset-200'), byId('evaluate'), byId('rollout-put')];
    const mix: Scenario = {
      id: 'mix',
      ok: [200, 304],
      ordered: true,
      requests: [polls.requests[0]!, gets.requests[0]!, evals.requests[0]!, puts.requests[0]!, polls.requests[1]!, gets.requests[0]!, evals.requests[0]!, puts.requests[FLAGS]!],
    };
    const mixMax = (await cannon(server.url, mix, { seconds: SECONDS / 2 })).rps;
    await drain(server.url, mix);
    const rss: number[] = [server.rssMiB()];
    const sampler = setInterval(() => rss.push(server.rssMiB()), 2000);
    const soak = await paced(server.url, mix, mixMax / 2, SOAK_SECONDS).finally(() => clearInterval(sampler));
    rss.push(server.rssMiB());
    const third = Math.max(1, Math.floor(rss.length / 3));
    const midRss = median(rss.slice(third, 2 * third));
    const endRss = median(rss.slice(-third));
    log(
      `  soak: ${SOAK_SECONDS} s at ${(mixMax / 2).toFixed(0)} req/s (mix max ${mixMax.toFixed(0)}): ${soak.requests} requests, errors ${soak.errors}, p99 ${soak.p99.toFixed(1)} ms, RSS ${rss[0]!.toFixed(0)} → ${midRss.toFixed(0)} → ${endRss.toFixed(0)} MiB`,
    );
    if (soak.errors > 0) throw new Error(`soak: ${soak.errors} failed requests ${JSON.stringify(soak.statuses)}`);
    goals.push(goal(`soak ${SOAK_SECONDS} s: RSS growth, middle third → last third`, ((endRss - midRss) / midRss) * 100, 10, '%'));
    notes.push(...rows);
    notes.push(
      `soak: ${SOAK_SECONDS} s, ${soak.requests} requests at ${(mixMax / 2).toFixed(0)} req/s, 0 errors, p50 ${soak.p50.toFixed(2)} ms p99 ${soak.p99.toFixed(1)} ms; RSS MiB start ${rss[0]!.toFixed(0)}, middle ${midRss.toFixed(0)}, end ${endRss.toFixed(0)} `,
    );
    return {
      id: 'server-load',
      title: 'Server load (autocannon; production start vs bare node:http)',
      backend: backend.kind,
      backendLabel: backend.label,
      series: [],
      ratios,
      goals,
      notes,
      details: { ...details, rss, soak },
      wallMs: performance.now() - wall,
    };
  } finally {
    await bare?.stop();
    await server.stop();
  }
}
