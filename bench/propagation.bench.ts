/**
 * `propagation`: time from sending a committed rollout write to a streaming live
 * client (`createFlagClient({ mode: 'stream' })`, SSE) evaluating the new value.
 *
 * One flag with an active rollout; BENCH_PROPAGATION_WRITES (default 200) rollout PUTs through
 * the SDK (API key), the percent alternating 10 ↔ 90, one at a time and spaced
 * BENCH_PROPAGATION_GAP_MS (default 25 ms) apart, after 10 uncounted warm-up writes. A probe
 * context whose bucket lies in [10, 90) is admitted at 90 and not at 10, so each write flips
 * its value: a sample ends at the client's `change` event after which the held ruleset has the
 * written percent AND `getBoolean(probe)` returns the new value (verified for every write).
 *
 * Baseline, same writes: the PUT's own HTTP round trip (send → response parsed by the SDK).
 * The ratio propagation / round trip shows what the stream path (notify → SSE announcement →
 * the client's conditional ruleset GET → install) adds to the write itself.
 */
import { bucket } from '@gradual/sdk/evaluation';
import { startBenchServer, type Backend } from './lib/backends.js';
import { cpuSince, cpuSnapshot } from './lib/cpu-time.js';
import { applied, setUpTenant } from './lib/instance.js';
import { profileSql, renderSqlProfile } from './lib/sql-profile.js';
import { heldRollout, sleep, streamingClient, whenClientSees } from './lib/live.js';
import { goal, series, type BenchResult } from './lib/report.js';
import { elapsed, percentile, ratioOf, summarize } from './lib/stats.js';

const WRITES = Number(process.env.BENCH_PROPAGATION_WRITES ?? 200);
const GAP_MS = Number(process.env.BENCH_PROPAGATION_GAP_MS ?? 25);
/** BENCH_PROFILE=1: the writes' SQL attributed by statement (bench/lib/sql-profile.ts). */
const PROFILE = process.env.BENCH_PROFILE === '1';
const WARMUP = 10;
/** Write → a streaming SDK evaluates the new value. */
const GOAL_P99_MS = 50;
const KEY = 'prop';
const LOW = 10;
const HIGH = 90;

export async function benchPropagation(backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const t = await startBenchServer(backend);
  try {
    const tenant = await setUpTenant(t);
    const envId = tenant.envIds[0]!;
    await tenant.owner.createFlag({ path: { id: tenant.projectId }, body: { key: KEY, name: 'Propagation', defaultValue: false } });
    await tenant.api.putFlagRollout({ path: { envId, key: KEY }, body: { percent: LOW, newValue: true } });
    const client = await streamingClient(t, tenant, envId);
    try {
      await whenClientSees(client, () => heldRollout(client, KEY)?.percent === LOW, 'the initial rollout');
      const seed = heldRollout(client, KEY)!.seed;
      let probeId = '';
      for (let n = 0; !probeId; n++) {
        const b = bucket(seed, `probe-${n}`);
        if (b >= LOW + 5 && b < HIGH - 5) probeId = `probe-${n}`;
      }
      const probe = { userId: probeId };
      if (client.getBoolean(KEY, probe, true) !== false) throw new Error('the probe is admitted at the low percent');

      const propagation: number[] = [];
      const roundTrip: number[] = [];
      let percent = LOW;
      const before = await cpuSnapshot(t.server.deps.db);
      const writes = async () => {
        for (let i = 0; i < WARMUP + WRITES; i++) {
          percent = percent === LOW ? HIGH : LOW;
          const expected = percent === HIGH;
          const target = percent;
          const seen = () => heldRollout(client, KEY)?.percent === target && client.getBoolean(KEY, probe, !expected) === expected;
          const t0 = performance.now();
          const observed = whenClientSees(client, seen, `percent ${target} (write ${i + 1})`, 10_000);
          const res = applied(await tenant.api.putFlagRollout({ path: { envId, key: KEY }, body: { percent: target, newValue: true } }));
          const rtt = elapsed(t0);
          if (res.percent !== target) throw new Error(`write ${i + 1}: the PUT answered ${JSON.stringify(res)}`);
          const at = await observed;
          if (i >= WARMUP) {
            propagation.push(at - t0);
            roundTrip.push(rtt);
          }
          if ((i + 1 - WARMUP) % 50 === 0 && i >= WARMUP) {
            const s = summarize(propagation);
            log(`  propagation ${propagation.length}/${WRITES}: p50 ${s.median.toFixed(1)} ms p99 ${s.p99.toFixed(1)} ms; write round trip p50 ${summarize(roundTrip).median.toFixed(1)} ms`);
          }
          await sleep(GAP_MS);
        }
      };
      // BENCH_PROFILE=1: which statements the writes and the client's reads of each version waited on (pg only).
      const sqlNotes = PROFILE ? renderSqlProfile((await profileSql(writes)).profile, 14).map((line) => `per ${WARMUP + WRITES} writes: ${line}`) : (await writes(), []);
      const cpu = await cpuSince(t.server.deps.db, before);
      const P = series('write → streaming client sees the new value', propagation, true);
      const R = series('baseline: the write\'s own HTTP round trip', roundTrip, true);
      const perWrite = propagation.map((p, k) => p / roundTrip[k]!);
      // Spread of the p50 ratio over 4 consecutive quarters of the writes.
      const q = Math.floor(WRITES / 4);
      const quarters = [0, 1, 2, 3].map((k) => ({ p: propagation.slice(k * q, (k + 1) * q).sort((a, b) => a - b), r: roundTrip.slice(k * q, (k + 1) * q).sort((a, b) => a - b) }));
      const afterResponse = propagation.map((p, k) => p - roundTrip[k]!);
      return {
        id: 'propagation',
        title: `propagation of ${WRITES} rollout writes to a streaming client`,
        backend: backend.kind,
        backendLabel: backend.label,
        series: [P, R, series('  propagation − round trip (per write)', afterResponse, true)],
        ratios: [
          { label: 'propagation / round trip, p50', ...ratioOf(P.summary.median / R.summary.median, quarters.map((x) => percentile(x.p, 50) / percentile(x.r, 50)), 'over 4 quarters of the writes') },
          { label: 'propagation / round trip, p99', ...ratioOf(P.summary.p99 / R.summary.p99, quarters.map((x) => percentile(x.p, 99) / percentile(x.r, 99)), 'over 4 quarters of the writes') },
        ],
        goals: [goal(`p99 over ${WRITES} writes`, P.summary.p99, GOAL_P99_MS)],
        notes: [
          `${WRITES} rollout PUTs (percent ${LOW} ↔ ${HIGH}) through the SDK, one at a time, ${GAP_MS} ms apart, after ${WARMUP} warm-up writes; each sample ends at the change event after which the held ruleset has the percent and getBoolean(probe) the new value (all ${WRITES} verified)`,
          `the client: createFlagClient mode 'stream' (SSE + conditional ruleset GET per announced version), API key with read only; ${backend.kind === 'embedded' ? 'embedded: in-process bus' : 'PostgreSQL: LISTEN/NOTIFY'}`,
          ...sqlNotes,
          `median per-write ratio ${percentile([...perWrite].sort((a, b) => a - b), 50).toFixed(2)}; CPU over the measured loop: ${(cpu.processMs / (WARMUP + WRITES)).toFixed(2)} ms per write in this process${cpu.serverMs !== null ? ` + ${(cpu.serverMs / (WARMUP + WRITES)).toFixed(2)} ms PostgreSQL` : ''}`,
        ],
        details: { writes: WRITES, gapMs: GAP_MS, warmup: WARMUP, cpu },
        wallMs: elapsed(wall),
      };
    } finally {
      await client.close();
    }
  } finally {
    await t.close();
  }
}
