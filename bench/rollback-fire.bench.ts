/**
 * `rollback-fire`, two parts on one server:
 *
 * (a) fire → streaming client: 10 flags with active 50% rollouts, a streaming live client on
 *     their environment. BENCH_ROLLBACK_FIRES (default 120, after 5 warm-up fires) webhook
 *     fires (`POST /webhooks/rollback/envs/{envId}/flags/{key}`, an Alertmanager payload, a
 *     minted `svcrb_` secret), round-robin over the flags; each sample runs from sending the
 *     fire to the client's change event after which the held rollout is paused at 0% and
 *     `getBoolean(probe)` gives the old value (the probe was admitted before). Every answer must
 *     be `transitioned` (noop false, active → paused). Between fires the rollout is resumed
 *     through the API and the client is seen holding it active again (not timed). At ≤ 13 fires
 *     per rollout and 125 per secret, the 60/min and 300/min caps are never reached.
 *     Baseline: the fire's own HTTP round trip.
 *
 * (b) fire endpoint throughput: 3 more environments × 20 flags (60 active rollouts), 10
 *     secrets per environment. BENCH_ROLLBACK_THROUGHPUT_ROUNDS (default 3) rounds of 1,000
 *     fires with 50 in flight (keep-alive node:http client in this process), each round after
 *     resuming all 60 rollouts: so each round is 60 `transitioned` + 940
 *     `noop_already_rolled_back` (an alert storm: the first fire stops the rollout, the repeats
 *     are no-ops), every answer checked and counted; 429s would be counted separately (the
 *     spread keeps every rollout ≤ 55 fires and every secret ≤ 110 in the run, under the caps).
 *     Baseline: the same 1,000 requests at the same concurrency to `GET /healthz` on the same
 *     server, rounds alternating. Reports fires/s, latency p50/p99, CPU per request.
 *
 * Why a hand-rolled loop over node:http rather than autocannon: every answer's body is read
 * and checked (outcome per fire), each request picks its own URL and secret, the baseline runs
 * through the very same loop, and no dependency is added. Client and server share this process
 * (and the 2 cores) either way; the same-run ratio to /healthz takes the client's cost out.
 */
import type { FlagClient } from '@gradual/sdk';
import { bucket } from '@gradual/sdk/evaluation';
import { startBenchServer, type Backend } from './lib/backends.js';
import { cpuSince, cpuSnapshot } from './lib/cpu-time.js';
import { setUpTenant } from './lib/instance.js';
import { concurrently, heldRollout, rawHttp, sleep, streamingClient, whenClientSees } from './lib/live.js';
import { goal, series, type BenchResult } from './lib/report.js';
import { collectGarbage, elapsed, median, percentile, ratioOf, summarize } from './lib/stats.js';

const FIRES = Number(process.env.BENCH_ROLLBACK_FIRES ?? 120);
const FIRE_WARMUP = 5;
const LATENCY_FLAGS = 10;
const GOAL_P99_MS = 250;
const T_ENVS = 3;
const T_FLAGS_PER_ENV = 20;
const T_SECRETS_PER_ENV = 10;
const T_ROUNDS = Number(process.env.BENCH_ROLLBACK_THROUGHPUT_ROUNDS ?? 3);
const T_PER_ROUND = 1000;
const T_WARMUP = 300;
const CONCURRENCY = 50;

/** An Alertmanager webhook body, as alerting tools send it. */
const alertBody = JSON.stringify({
  version: '4',
  status: 'firing',
  receiver: 'gradual',
  groupLabels: { alertname: 'CheckoutErrorRate' },
  alerts: [{ status: 'firing', labels: { alertname: 'CheckoutErrorRate', severity: 'page' }, annotations: { summary: 'checkout 5xx > 2%' }, generatorURL: 'http://prometheus.example/graph?g0.expr=rate' }],
});

interface FireAnswer {
  noop?: boolean;
  currentStatus?: string;
  newStatus?: string;
  code?: string;
}

export async function benchRollbackFire(backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const t = await startBenchServer(backend);
  const http = rawHttp(t.url, CONCURRENCY);
  let client: FlagClient | undefined;
  try {
    const tenant = await setUpTenant(t, 1 + T_ENVS);
    const db = t.server.deps.db;
    const fire = (envId: string, key: string, token: string) =>
      http.send('POST', `/api/v1/webhooks/rollback/envs/${envId}/flags/${key}`, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, alertBody);

    // ── (a) fire → streaming client ─────────────────────────────────────────────
    const envA = tenant.envIds[0]!;
    const keys = Array.from({ length: LATENCY_FLAGS }, (_, i) => `fire-${i}`);
    for (const key of keys) {
      await tenant.owner.createFlag({ path: { id: tenant.projectId }, body: { key, name: key, defaultValue: false } });
      await tenant.api.putFlagRollout({ path: { envId: envA, key }, body: { percent: 50, newValue: true } });
    }
    const secretA = await tenant.owner.createRollbackSecret({ path: { envId: envA }, body: { name: 'alertmanager' } });
    client = await streamingClient(t, tenant, envA);
    const c = client;
    await whenClientSees(c, () => keys.every((k) => heldRollout(c, k)?.status === 'active'), 'every rollout active');
    // A probe admitted (bucket < 50) by every flag's rollout: it gets true until the rollback.
    const probeId = (() => {
      for (let n = 0; ; n++) if (keys.every((k) => bucket(heldRollout(c, k)!.seed, `probe-${n}`) < 45)) return `probe-${n}`;
    })();
    const probe = { userId: probeId };
    const fireToClient: number[] = [];
    const fireRtt: number[] = [];
    for (let i = 0; i < FIRE_WARMUP + FIRES; i++) {
      const key = keys[i % keys.length]!;
      if (heldRollout(c, key)?.status !== 'active' || !c.getBoolean(key, probe, false)) throw new Error(`fire ${i + 1}: ${key} is not live for the probe before the fire`);
      const rolledBack = () => {
        const r = heldRollout(c, key);
        return r?.status === 'paused' && r.percent === 0 && c.getBoolean(key, probe, true) === false;
      };
      const t0 = performance.now();
      const observed = whenClientSees(c, rolledBack, `${key} rolled back (fire ${i + 1})`);
      const res = await fire(envA, key, secretA.token);
      const rtt = elapsed(t0);
      const answer = JSON.parse(res.body) as FireAnswer;
      if (res.status !== 200 || answer.noop !== false || answer.currentStatus !== 'active' || answer.newStatus !== 'paused') {
        throw new Error(`fire ${i + 1} on ${key}: expected a transition, got ${res.status} ${res.body}`);
      }
      const at = await observed;
      if (i >= FIRE_WARMUP) {
        fireToClient.push(at - t0);
        fireRtt.push(rtt);
      }
      await tenant.api.resumeFlagRollout({ path: { envId: envA, key } });
      await whenClientSees(c, () => heldRollout(c, key)?.status === 'active' && heldRollout(c, key)?.percent === 50, `${key} resumed`);
      await sleep(10);
    }
    const sa = summarize(fireToClient);
    log(`  fire → client over ${FIRES} fires: p50 ${sa.median.toFixed(1)} ms p99 ${sa.p99.toFixed(1)} ms; fire round trip p50 ${summarize(fireRtt).median.toFixed(1)} ms`);
    await client.close();
    client = undefined;

    // ── (b) throughput ───────────────────────────────────────────────────────────
    const targets: Array<{ envId: string; key: string }> = [];
    const secrets = new Map<string, string[]>();
    for (let e = 1; e <= T_ENVS; e++) {
      const envId = tenant.envIds[e]!;
      const tokens: string[] = [];
      for (let s = 0; s < T_SECRETS_PER_ENV; s++) tokens.push((await tenant.owner.createRollbackSecret({ path: { envId }, body: { name: `storm-${s}` } })).token);
      secrets.set(envId, tokens);
    }
    for (let f = 0; f < T_FLAGS_PER_ENV; f++) {
      const key = `storm-${f}`;
      await tenant.owner.createFlag({ path: { id: tenant.projectId }, body: { key, name: key, defaultValue: false } });
      for (let e = 1; e <= T_ENVS; e++) {
        await tenant.api.putFlagRollout({ path: { envId: tenant.envIds[e]!, key }, body: { percent: 50, newValue: true } });
        targets.push({ envId: tenant.envIds[e]!, key });
      }
    }
    // Request k: rollout k mod 60, and within that rollout's environment secret ⌊k / 60⌋ mod 10.
    const fireAt = (k: number) => {
      const target = targets[k % targets.length]!;
      return { ...target, token: secrets.get(target.envId)![Math.floor(k / targets.length) % T_SECRETS_PER_ENV]! };
    };
    const resumeAll = async () => {
      for (const { envId, key } of targets) {
        const r = await tenant.api.getFlagRollout({ path: { envId, key } });
        if (r.status === 'paused') await tenant.api.resumeFlagRollout({ path: { envId, key } });
      }
    };
    type Outcome = 'transitioned' | 'noop' | 'rate_limited' | 'other';
    const runFires = async (count: number, offset: number) => {
      const outcomes: Record<Outcome, number> = { transitioned: 0, noop: 0, rate_limited: 0, other: 0 };
      const others: string[] = [];
      const run = await concurrently(count, CONCURRENCY, async (k) => {
        const f = fireAt(offset + k);
        const res = await fire(f.envId, f.key, f.token);
        const a = JSON.parse(res.body) as FireAnswer;
        if (res.status === 200 && a.noop === false && a.currentStatus === 'active' && a.newStatus === 'paused') outcomes.transitioned++;
        else if (res.status === 200 && a.noop === true && a.currentStatus === 'paused') outcomes.noop++;
        else if (res.status === 429 && a.code === 'rollback_rate_limited') outcomes.rate_limited++;
        else {
          outcomes.other++;
          if (others.length < 3) others.push(`${res.status} ${res.body}`);
        }
      });
      if (outcomes.other) throw new Error(`${outcomes.other} fires answered something unexpected, e.g. ${others.join(' | ')}`);
      return { ...run, outcomes };
    };
    const runHealth = (count: number) =>
      concurrently(count, CONCURRENCY, async () => {
        const res = await http.send('GET', '/healthz');
        if (res.status !== 200) throw new Error(`/healthz answered ${res.status} ${res.body}`);
      });

    // Warm-up: the first fire of each rollout transitions it.
    const warm = await runFires(T_WARMUP, 0);
    if (warm.outcomes.transitioned !== targets.length) throw new Error(`warm-up: ${warm.outcomes.transitioned} transitions, expected ${targets.length}`);
    await runHealth(T_WARMUP);
    const fireLat: number[] = [];
    const healthLat: number[] = [];
    const fireRate: number[] = [];
    const healthRate: number[] = [];
    const fireCpu: number[] = [];
    const healthCpu: number[] = [];
    const rounds: Array<{ fire: number[]; health: number[]; fireRate: number; healthRate: number }> = [];
    const totals = { transitioned: warm.outcomes.transitioned, noop: warm.outcomes.noop, rate_limited: warm.outcomes.rate_limited };
    let measuredLimited = 0;
    for (let r = 0; r < T_ROUNDS; r++) {
      await resumeAll();
      collectGarbage();
      const doFires = async () => {
        const before = await cpuSnapshot(db);
        const run = await runFires(T_PER_ROUND, T_WARMUP + r * T_PER_ROUND);
        const cpu = await cpuSince(db, before);
        fireCpu.push((cpu.processMs + (cpu.serverMs ?? 0)) / T_PER_ROUND);
        return run;
      };
      const doHealth = async () => {
        const before = await cpuSnapshot(db);
        const run = await runHealth(T_PER_ROUND);
        const cpu = await cpuSince(db, before);
        healthCpu.push((cpu.processMs + (cpu.serverMs ?? 0)) / T_PER_ROUND);
        return run;
      };
      let f: Awaited<ReturnType<typeof runFires>>;
      let h: Awaited<ReturnType<typeof runHealth>>;
      if (r % 2 === 0) {
        f = await doFires();
        h = await doHealth();
      } else {
        h = await doHealth();
        f = await doFires();
      }
      const expectedTransitions = targets.length;
      if (f.outcomes.transitioned !== expectedTransitions) throw new Error(`round ${r + 1}: ${f.outcomes.transitioned} transitions, expected ${expectedTransitions} (one per resumed rollout)`);
      totals.transitioned += f.outcomes.transitioned;
      totals.noop += f.outcomes.noop;
      totals.rate_limited += f.outcomes.rate_limited;
      measuredLimited += f.outcomes.rate_limited;
      const fr = (1000 * T_PER_ROUND) / f.wallMs;
      const hr = (1000 * T_PER_ROUND) / h.wallMs;
      fireLat.push(...f.latencies);
      healthLat.push(...h.latencies);
      fireRate.push(fr);
      healthRate.push(hr);
      rounds.push({ fire: [...f.latencies].sort((a, b) => a - b), health: [...h.latencies].sort((a, b) => a - b), fireRate: fr, healthRate: hr });
      log(
        `  throughput round ${r + 1}/${T_ROUNDS}: fires ${fr.toFixed(0)}/s (p50 ${percentile(rounds.at(-1)!.fire, 50).toFixed(1)} ms, ${f.outcomes.transitioned} transitioned, ${f.outcomes.noop} noop, ${f.outcomes.rate_limited} 429); /healthz ${hr.toFixed(0)}/s`,
      );
    }

    const A = series('(a) fire → streaming client sees the rollback', fireToClient, true);
    const B = series('(a) baseline: the fire\'s own HTTP round trip', fireRtt, true);
    const F = series(`(b) fire latency, ${CONCURRENCY} in flight`, fireLat, true);
    const H = series(`(b) baseline: GET /healthz latency, ${CONCURRENCY} in flight`, healthLat, true);
    const q = Math.floor(FIRES / 4);
    const quarters = [0, 1, 2, 3].map((k) => ({ a: fireToClient.slice(k * q, (k + 1) * q).sort((x, y) => x - y), b: fireRtt.slice(k * q, (k + 1) * q).sort((x, y) => x - y) }));
    return {
      id: 'rollback-fire',
      title: 'rollback webhook: fire → streaming client, and fire endpoint throughput',
      backend: backend.kind,
      backendLabel: backend.label,
      series: [
        A,
        B,
        F,
        H,
        series('(b) fires per second (per round)', fireRate, false, '/s'),
        series('(b) /healthz per second (per round)', healthRate, false, '/s'),
        series('(b)   CPU per fire (mean per round)', fireCpu),
        series('(b)   CPU per /healthz (mean per round)', healthCpu),
      ],
      ratios: [
        { label: '(a) fire→client / fire round trip, p50', ...ratioOf(A.summary.median / B.summary.median, quarters.map((x) => percentile(x.a, 50) / percentile(x.b, 50)), 'over 4 quarters of the fires') },
        { label: '(b) /healthz rate / fire rate', ...ratioOf(median(healthRate) / median(fireRate), rounds.map((r) => r.healthRate / r.fireRate), 'over the rounds') },
        { label: '(b) fire / /healthz latency, p50', ...ratioOf(F.summary.median / H.summary.median, rounds.map((r) => percentile(r.fire, 50) / percentile(r.health, 50)), 'over the rounds') },
        { label: '(b) fire / /healthz latency, p99', ...ratioOf(F.summary.p99 / H.summary.p99, rounds.map((r) => percentile(r.fire, 99) / percentile(r.health, 99)), 'over the rounds') },
      ],
      goals: [goal(`(a) fire → streaming client p99 over ${FIRES} fires`, A.summary.p99, GOAL_P99_MS)],
      notes: [
        `(a) ${FIRES} fires (after ${FIRE_WARMUP} warm-up) round-robin over ${LATENCY_FLAGS} flags with active 50% rollouts, one secret; every answer transitioned (active → paused); each sample ends when the client holds the rollout paused at 0% and getBoolean(probe) is back to false; rollout resumed between fires`,
        `(b) ${T_ENVS} envs × ${T_FLAGS_PER_ENV} flags = ${targets.length} active rollouts, ${T_SECRETS_PER_ENV} secrets per env; ${T_ROUNDS} rounds × ${T_PER_ROUND} fires (${CONCURRENCY} in flight, Alertmanager body ${alertBody.length} B) after ${T_WARMUP} warm-up, all rollouts resumed before each round; ` +
          `answers over the run: ${totals.transitioned} transitioned, ${totals.noop} noop_already_rolled_back, ${totals.rate_limited} rate-limited (429; ${measuredLimited} in the measured rounds), 0 other`,
        `(b) load generator: keep-alive node:http in this process (shares the cores with the server); /healthz through the same loop at the same concurrency; CPU per request = this process${backend.kind === 'postgres' ? ' + PostgreSQL backends' : ' (PGlite thread included)'}`,
      ],
      details: { fires: FIRES, throughput: { rounds: T_ROUNDS, perRound: T_PER_ROUND, concurrency: CONCURRENCY, rollouts: targets.length, totals } },
      wallMs: elapsed(wall),
    };
  } finally {
    await client?.close();
    http.close();
    await t.close();
  }
}
