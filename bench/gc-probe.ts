/**
 * Diagnosis, not a benchmark: how much heap each kind of request allocates and promotes into old
 * space on a production start, read from V8's own GC trace (`--trace-gc-nvp`: every GC reports
 * the bytes allocated since the last one and the bytes it promoted). Promotion is what drives
 * major GCs, and on two shared cores their marking shows up as latency tails; the longest single
 * pause of each measured run is reported too. It also reports the server process's CPU time per
 * request (all its threads, from /proc; the PostgreSQL backends' share is not included), the
 * steadier figure for comparing two versions of a path.
 *
 *   node --conditions=@gradual/source --import tsx bench/gc-probe.ts [scenario…]
 *
 * Scenarios: healthz and the server-load ones (ruleset-304, ruleset-200, evaluate, rollout-put).
 * Each runs warm-up requests, then GC_PROBE_REQUESTS (default 10,000; rollout-put a tenth) at
 * GC_PROBE_CONNECTIONS (8) in flight. PostgreSQL (BENCH_DATABASE_URL, default local) unless
 * GC_PROBE_EMBEDDED=1. Extra server flags: BENCH_SERVER_NODE_ARGS (e.g. --max-semi-space-size=64).
 */
import autocannon from 'autocannon';
import { createInterface } from 'node:readline';
import { startProduction } from '../tests/support/production.js';
import { procCpuMs } from './lib/cpu-time.js';
import { inTurn, scenarios, setUp, toCannon, type Scenario } from './server-load.bench.js';

const REQUESTS = Number(process.env.GC_PROBE_REQUESTS ?? 10_000);
const CONNECTIONS = Number(process.env.GC_PROBE_CONNECTIONS ?? 8);
const wanted = process.argv.slice(2);

interface GcTotals {
  allocated: number;
  promoted: number;
  scavenges: number;
  majors: number;
  pauseMs: number;
  /** The longest single GC pause since the last reset (the measured run's). */
  maxPauseMs: number;
}
const zero = (): GcTotals => ({ allocated: 0, promoted: 0, scavenges: 0, majors: 0, pauseMs: 0, maxPauseMs: 0 });

// The server writes its GC trace to stdout: run it with stdout piped into this process.
process.env.BENCH_SERVER_NODE_ARGS = `--trace-gc-nvp ${process.env.BENCH_SERVER_NODE_ARGS ?? ''}`;
const totals = zero();
const server = await startProduction({
  ...(process.env.GC_PROBE_EMBEDDED ? {} : { adminUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' }),
  env: { ORG_RATE_LIMIT_PER_MIN: '100000000' },
  stdout: (stream) => {
    createInterface({ input: stream }).on('line', (line) => {
      const field = (name: string) => Number(new RegExp(` ${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
      const kind = / gc=(\w+)/.exec(line)?.[1];
      if (!kind) return;
      totals.allocated += field('allocated');
      totals.promoted += field('promoted');
      totals.pauseMs += field('pause');
      totals.maxPauseMs = Math.max(totals.maxPauseMs, field('pause'));
      if (kind === 's') totals.scavenges++;
      else totals.majors++;
    });
  },
});

const run = (url: string, scenario: Scenario, amount: number) =>
  new Promise<number>((resolve, reject) => {
    autocannon(
      { url, connections: CONNECTIONS, amount, requests: scenario.ordered ? [inTurn(scenario.requests)] : scenario.requests.map(toCannon) },
      (err: Error | null, result: autocannon.Result) => (err ? reject(err) : resolve(result.requests.total)),
    );
  });

try {
  const { envId, tokens } = await setUp(server);
  const first = await fetch(`${server.url}/api/v1/envs/${envId}/ruleset`, { headers: { authorization: `Bearer ${tokens[1]}`, 'accept-encoding': 'gzip' } });
  const all: Scenario[] = [{ id: 'healthz', ok: [200], requests: [{ method: 'GET', path: '/healthz', headers: {} }] }, ...scenarios(envId, tokens, first.headers.get('etag')!)];
  console.log('scenario      requests  allocated/req  promoted/req  scavenges  major GCs  GC pause/req  longest pause  server CPU/req');
  for (const scenario of all.filter((s) => !wanted.length || wanted.includes(s.id))) {
    const amount = scenario.id === 'rollout-put' ? Math.ceil(REQUESTS / 10) : REQUESTS;
    await run(server.url, scenario, Math.ceil(amount / 5)); // warm-up
    await new Promise((r) => setTimeout(r, 300));
    totals.maxPauseMs = 0;
    const before = { ...totals };
    const cpuBefore = await procCpuMs(server.pid);
    const done = await run(server.url, scenario, amount);
    const cpuAfter = await procCpuMs(server.pid);
    await new Promise((r) => setTimeout(r, 300)); // let the last trace lines arrive
    const kib = (bytes: number) => `${(bytes / 1024 / done).toFixed(1)} KiB`;
    console.log(
      `${scenario.id.padEnd(12)}  ${String(done).padStart(8)}  ${kib(totals.allocated - before.allocated).padStart(13)}  ${kib(totals.promoted - before.promoted).padStart(12)}  ${String(totals.scavenges - before.scavenges).padStart(9)}  ${String(totals.majors - before.majors).padStart(9)}  ${`${(((totals.pauseMs - before.pauseMs) / done) * 1000).toFixed(1)} µs`.padStart(12)}  ${`${totals.maxPauseMs.toFixed(1)} ms`.padStart(13)}  ${cpuBefore === null || cpuAfter === null ? 'n/a' : `${(((cpuAfter - cpuBefore) / done) * 1000).toFixed(0)} µs`.padStart(14)}`,
    );
  }
} finally {
  await server.stop();
}
