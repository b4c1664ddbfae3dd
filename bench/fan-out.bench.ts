/**
 * `fan-out`: one instance telling many streaming connections about a change. A production start of
 * the server (its own process) holds N ruleset streams (`GET /envs/{id}/ruleset/stream`, server-sent
 * events, SDK keys); each write (a rollout PUT, percent 10 ↔ 90, through the SDK with an API key)
 * is timed from just before the PUT is sent to the moment the LAST of the N streams receives the
 * event carrying the new version (`event: ruleset`, `id: <version>`). Per connection count,
 * BENCH_FANOUT_WRITES (20) writes after 2 uncounted warm-ups; p50 and p99 of that last-receiver
 * latency (p99 of 20 writes is the slowest).
 *
 * The clients: a pool of BENCH_FANOUT_PROCS (4) small processes (bench/lib/sse-pool.mjs), each
 * holding N / procs plain sockets and scanning the bytes for the `id:` line only, so the load
 * generator is not what is measured. Each reports every stream's receive time over IPC, read on
 * the clock this process reads too (performance.timeOrigin + performance.now()).
 *
 * Baseline, same run, same connections count from the same pool: a bare `node:http` SSE
 * broadcaster in its own process (bench/lib/bare-sse-server.mjs) that answers each stream with the
 * headers and connect bytes the real stream sent, and on a trigger (POST /__broadcast) writes the
 * very bytes the real server writes for a new version (captured from a real stream at start, the
 * version substituted) to every connection. Each write alternates which goes first. The ratio is
 * Gradual p99 / bare p99 per count, its spread over 4 quarters of the writes.
 *
 * Memory per idle connection: the server's RSS (/proc/<pid>/status) with the N streams open and
 * idle, less its RSS with none, over N, both after a full GC (HeapProfiler.collectGarbage through
 * the inspector the server is started with, on a free 127.0.0.1 port; BENCH_FANOUT_GC=0 leaves the
 * inspector off and reads RSS without a GC). The bare broadcaster's figure is reported beside it.
 *
 * Counts: 1,000, 2,500, 5,000 and 10,000 (BENCH_FANOUT_COUNTS overrides, comma-separated), streams
 * added to those already open; BENCH_FANOUT_QUICK=1: 1,000 and 2,000. The count at which the p99
 * is twice the smallest count's is reported. Every process here inherits this one's open-files
 * limit: the bench refuses to start when `ulimit -n` is below what the largest count needs.
 *
 * The stream caps (STREAM_MAX_PER_KEY, STREAM_MAX_PER_IP, STREAM_MAX_TOTAL, HTTP_MAX_CONNECTIONS) and
 * the organization's rate limit are raised for the server under test: every stream comes from
 * 127.0.0.1 with one of 4 keys.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@gradual/sdk';
import { claimProcess, freePort, startProduction, type ProductionServer } from '../tests/support/production.js';
import type { Backend } from './lib/backends.js';
import { startChildServer, type ChildServer } from './lib/child-server.js';
import { procCpuMs } from './lib/cpu-time.js';
import { applied } from './lib/instance.js';
import { sleep } from './lib/live.js';
import { goal, series, type BenchResult, type Series } from './lib/report.js';
import { elapsed, median, percentile, ratioOf, summarize } from './lib/stats.js';

const QUICK = process.env.BENCH_FANOUT_QUICK === '1';
const COUNTS = (process.env.BENCH_FANOUT_COUNTS?.split(',').map(Number) ?? (QUICK ? [1000, 2000] : [1000, 2500, 5000, 10_000])).sort((a, b) => a - b);
const WRITES = Number(process.env.BENCH_FANOUT_WRITES ?? 20);
const PROCS = Number(process.env.BENCH_FANOUT_PROCS ?? 4);
/** Rest between two measured changes, so one's tail does not overlap the next. */
const GAP_MS = Number(process.env.BENCH_FANOUT_GAP_MS ?? 100);
const WITH_GC = process.env.BENCH_FANOUT_GC !== '0';
const WARMUP = 2;
/** Stream opens in flight per pool process. */
const OPEN_CONCURRENCY = 16;
const SDK_KEYS = 4;
const GOAL_COUNT = 10_000;
const GOAL_P99_MS = 250;
const GOAL_RATIO = 2;
const GOAL_KIB = 16;
const KEY = 'fan-out';
const LOW = 10;
const HIGH = 90;
const POOL = fileURLToPath(new URL('./lib/sse-pool.mjs', import.meta.url));
const BARE_SSE = fileURLToPath(new URL('./lib/bare-sse-server.mjs', import.meta.url));

/** Wall-clock milliseconds, the clock the pool processes stamp receipts with. */
const now = () => performance.timeOrigin + performance.now();
const fmtCount = (n: number) => n.toLocaleString('en-US');

type Target = 'gradual' | 'bare';
interface PoolMessage {
  op: string;
  id?: number;
  target?: Target;
  message?: string;
  times?: number[];
  missing?: number;
  streams?: number;
  closed?: number;
  minVersion?: number;
  maxVersion?: number;
}

/** One change as the pool saw it: ms from the trigger to the last and the median stream, and the trigger's own round trip. */
interface Change {
  last: number;
  median: number;
  rtt: number;
  minVersion: number;
  maxVersion: number;
  /** CPU ms from arming to the last receipt: the server that sent the change, and the pool processes together (null: /proc unreadable). */
  cpu?: { server: number | null; pool: number | null };
}

/** CPU ms used so far by these processes together (null when /proc cannot tell). */
async function cpuOf(pids: number[]): Promise<number | null> {
  const each = await Promise.all(pids.map(procCpuMs));
  return each.some((ms) => ms === null) ? null : each.reduce<number>((a, ms) => a + ms!, 0);
}

/** Runs `change` and adds the CPU the sending server and the pool spent on it. */
async function withCpu(serverPid: number, poolPids: number[], change: () => Promise<Change>): Promise<Change> {
  const [server0, pool0] = await Promise.all([cpuOf([serverPid]), cpuOf(poolPids)]);
  const c = await change();
  const [server1, pool1] = await Promise.all([cpuOf([serverPid]), cpuOf(poolPids)]);
  const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : b - a);
  return { ...c, cpu: { server: diff(server0, server1), pool: diff(pool0, pool1) } };
}

/** The pool processes (bench/lib/sse-pool.mjs), each answering requests over IPC. */
class Pool {
  /** Answers awaited, each from process `k`. */
  private readonly waiters: Array<{ k: number; match: (m: PoolMessage) => boolean; resolve: (m: PoolMessage) => void; reject: (e: Error) => void }> = [];
  private failure: Error | null = null;
  private nextId = 1;

  private constructor(private readonly children: ChildProcess[]) {
    for (const [k, child] of children.entries()) {
      child.on('message', (m: PoolMessage) => this.receive(k, m));
      child.on('exit', (code) => this.fail(new Error(`pool process ${k} exited (${String(code)})`)));
    }
  }

  static start(procs: number): Pool {
    // execArgv []: not the bench's tsx loader and flags, a plain node process.
    return new Pool(Array.from({ length: procs }, () => fork(POOL, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })));
  }

  get size(): number {
    return this.children.length;
  }

  get pids(): number[] {
    return this.children.map((c) => c.pid!);
  }

  private receive(k: number, m: PoolMessage): void {
    if (m.op === 'error') return this.fail(new Error(`pool process ${k}: ${m.message ?? '?'}`));
    const i = this.waiters.findIndex((w) => w.k === k && w.match(m));
    if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(m);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  /** Resolves with the first message of process `k` that `match`es. */
  private await(k: number, match: (m: PoolMessage) => boolean): Promise<PoolMessage> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<PoolMessage>((resolve, reject) => this.waiters.push({ k, match, resolve, reject }));
  }

  /** Sends `message` to process `k`; resolves with its first answer that `match`es. */
  private ask(k: number, message: object, match: (m: PoolMessage) => boolean): Promise<PoolMessage> {
    const answer = this.await(k, match);
    this.children[k]!.send(message);
    return answer;
  }

  /** Opens `count` more streams to `target`, spread over the processes; each process uses headers[k % headers.length]. */
  async open(target: Target, url: string, path: string, headers: Array<Record<string, string>>, count: number): Promise<void> {
    await Promise.all(
      this.children.map((_, k) => {
        const share = Math.floor(count / this.size) + (k < count % this.size ? 1 : 0);
        const message = { op: 'open', target, url, path, headers: headers[k % headers.length], count: share, concurrency: OPEN_CONCURRENCY };
        return this.ask(k, message, (m) => m.op === 'opened' && m.target === target);
      }),
    );
  }

  /** Every stream's version of `target`, across the processes. */
  async state(target: Target): Promise<{ streams: number; closed: number; minVersion: number; maxVersion: number }> {
    const states = await Promise.all(this.children.map((_, k) => this.ask(k, { op: 'state', target }, (m) => m.op === 'state' && m.target === target)));
    return {
      streams: states.reduce((a, s) => a + s.streams!, 0),
      closed: states.reduce((a, s) => a + s.closed!, 0),
      minVersion: Math.min(...states.map((s) => s.minVersion!)),
      maxVersion: Math.max(...states.map((s) => s.maxVersion!)),
    };
  }

  /**
   * Arms every process to time the first event above version `after` on each of its `target`
   * streams, then runs `trigger` (the write), timed from just before it starts.
   */
  async change(target: Target, after: number, streams: number, trigger: () => Promise<void>): Promise<Change> {
    const id = this.nextId++;
    const done = this.children.map((_, k) => {
      const finished = this.await(k, (m) => m.op === 'done' && m.id === id);
      finished.catch(() => {}); // awaited below, after the arming: a failure meanwhile is not unhandled
      const armed = this.ask(k, { op: 'arm', target, after, id, timeoutMs: 30_000 }, (m) => m.op === 'armed' && m.id === id);
      return { armed, finished };
    });
    await Promise.all(done.map((d) => d.armed));
    const t0 = now();
    await trigger();
    const rtt = now() - t0;
    const answers = await Promise.all(done.map((d) => d.finished));
    const missing = answers.reduce((a, m) => a + m.missing!, 0);
    if (missing) throw new Error(`${target}: ${missing} of ${streams} streams did not receive the version after ${after} within 30 s`);
    const times = answers.flatMap((m) => m.times!).sort((a, b) => a - b);
    if (times.length !== streams) throw new Error(`${target}: ${times.length} receipts for ${streams} streams`);
    return {
      last: times[times.length - 1]! - t0,
      median: median(times) - t0,
      rtt,
      minVersion: Math.min(...answers.map((m) => m.minVersion!)),
      maxVersion: Math.max(...answers.map((m) => m.maxVersion!)),
    };
  }

  close(): void {
    for (const child of this.children) if (child.connected) child.send({ op: 'close' });
  }
}

/**
 * A minimal Chrome DevTools Protocol client over the server's inspector (one WebSocket, text
 * frames only): enough to ask V8 for a full GC and its heap usage.
 */
async function inspector(port: number): Promise<{ call: (method: string) => Promise<Record<string, unknown>>; close: () => void }> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const ws = new URL(list[0]!.webSocketDebuggerUrl);
  const socket = connect({ host: ws.hostname, port: Number(ws.port) });
  const waiters = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  let buf = Buffer.alloc(0);
  let upgraded: (() => void) | null = null;
  const ready = new Promise<void>((resolve, reject) => {
    upgraded = resolve;
    socket.once('error', reject);
  });
  socket.on('connect', () =>
    socket.write(
      `GET ${ws.pathname} HTTP/1.1\r\nHost: ${ws.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    ),
  );
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    if (upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (!buf.toString('latin1', 0, end).startsWith('HTTP/1.1 101')) return void socket.destroy(new Error(`inspector refused the WebSocket: ${buf.toString('latin1', 0, end)}`));
      buf = buf.subarray(end + 4);
      upgraded();
      upgraded = null;
    }
    for (;;) {
      if (buf.length < 2) return;
      let len = buf[1]! & 0x7f;
      let at = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        at = 10;
      }
      if (buf.length < at + len) return;
      const opcode = buf[0]! & 0x0f;
      const payload = buf.subarray(at, at + len);
      buf = buf.subarray(at + len);
      if (opcode !== 1) continue;
      const msg = JSON.parse(payload.toString('utf8')) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
      const w = msg.id !== undefined ? waiters.get(msg.id) : undefined;
      if (!w) continue;
      waiters.delete(msg.id!);
      if (msg.error) w.reject(new Error(msg.error.message));
      else w.resolve(msg.result ?? {});
    }
  });
  socket.on('close', () => {
    for (const w of waiters.values()) w.reject(new Error('the inspector connection closed'));
    waiters.clear();
  });
  await ready;
  let nextId = 1;
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      waiters.set(id, { resolve, reject });
      const payload = Buffer.from(JSON.stringify({ id, method }));
      const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
      const mask = randomBytes(4);
      socket.write(Buffer.concat([head, mask, payload.map((b, i) => b ^ mask[i & 3]!)]));
    });
  return { call, close: () => socket.destroy() };
}

/** The soft open-files limit of this process (the children inherit it). */
function openFilesLimit(): number {
  const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return line?.[1] === 'unlimited' ? Infinity : Number(line?.[1] ?? Infinity);
}

/** The bytes a ruleset stream sends: its status and headers, what it writes on connect, and the event of the next version (after `write()`). */
async function captureStream(url: string, path: string, token: string, write: () => Promise<void>): Promise<{ status: number; headers: Record<string, string>; connect: string; event: string; connectVersion: number; eventVersion: number }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(`${url}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`the ruleset stream answered ${String(res.statusCode)}`));
      const headers: Record<string, string> = {};
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        const name = res.rawHeaders[i]!;
        if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name.toLowerCase())) headers[name] = res.rawHeaders[i + 1]!;
      }
      let text = '';
      let connectBytes: string | null = null;
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const block = text.slice(0, end + 2);
          text = text.slice(end + 2);
          if (block.startsWith(':')) continue; // a heartbeat
          if (connectBytes === null) {
            connectBytes = block;
            write().catch(reject);
            continue;
          }
          req.destroy();
          const version = (b: string) => Number(/\nid: (\d+)\n/.exec(`\n${b}`)?.[1] ?? NaN);
          return resolve({ status: res.statusCode!, headers, connect: connectBytes, event: block, connectVersion: version(connectBytes), eventVersion: version(block) });
        }
      });
    });
    req.on('error', (err) => {
      if (!req.destroyed) reject(err);
    });
  });
}

/** `bytes` with `version` replaced by the `{version}` placeholder in its `id:` and `data` fields; checked to round-trip. */
function template(bytes: string, version: number): string {
  const t = bytes.replaceAll(`id: ${version}\n`, 'id: {version}\n').replaceAll(`"version":${version}}`, '"version":{version}}');
  if (t.split('{version}').length !== 3 || t.replaceAll('{version}', String(version)) !== bytes) throw new Error(`unexpected ruleset event bytes: ${JSON.stringify(bytes)}`);
  return t;
}

interface Memory {
  rssKiB: number;
  heapKiB: number;
}

export async function benchFanOut(backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const maxCount = COUNTS[COUNTS.length - 1]!;
  const limit = openFilesLimit();
  if (limit < maxCount + 512) throw new Error(`the open-files limit (ulimit -n) is ${limit}: ${fmtCount(maxCount)} streams need at least ${fmtCount(maxCount + 512)} (raise it in the shell that runs the bench)`);

  // The inspector (full GC before each memory reading) on a free port, through the production start's node flags.
  const inspectPort = WITH_GC ? await freePort() : 0;
  const savedArgs = process.env.BENCH_SERVER_NODE_ARGS;
  if (WITH_GC) process.env.BENCH_SERVER_NODE_ARGS = `${savedArgs ?? ''} --inspect=127.0.0.1:${inspectPort}`;
  let server: ProductionServer;
  try {
    server = await startProduction({
      ...(backend.kind === 'postgres' ? { adminUrl: backend.adminUrl! } : {}),
      env: {
        LOG_LEVEL: 'info',
        ORG_RATE_LIMIT_PER_MIN: '100000000',
        STREAM_MAX_PER_KEY: '1000000',
        STREAM_MAX_PER_IP: '1000000',
        STREAM_MAX_TOTAL: '100000',
        HTTP_MAX_CONNECTIONS: '200000',
      },
    });
  } finally {
    if (savedArgs === undefined) delete process.env.BENCH_SERVER_NODE_ARGS;
    else process.env.BENCH_SERVER_NODE_ARGS = savedArgs;
  }
  const dir = mkdtempSync(join(tmpdir(), 'gradual-fan-out-'));
  let pool: Pool | undefined;
  let bare: ChildServer | undefined;
  let cdp: Awaited<ReturnType<typeof inspector>> | undefined;
  try {
    const { owner } = await claimProcess(server, 'bench');
    const project = await owner.createProject({ path: { slug: 'bench' }, body: { key: 'bench', name: 'Bench' } });
    const envId = (await owner.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.createFlag({ path: { id: project.id }, body: { key: KEY, name: 'Fan-out', defaultValue: false } });
    await owner.putFlagRollout({ path: { envId, key: KEY }, body: { percent: LOW, newValue: true } });
    const writer = await owner.createApiKey({ path: { slug: 'bench' }, body: { name: 'writer', rateLimitPerMin: 100_000 } });
    const api = createClient({ baseUrl: server.url, token: writer.token });
    const sdkTokens: string[] = [];
    for (let i = 0; i < SDK_KEYS; i++) {
      const body = { name: `fan-out-sdk-${i}`, kind: 'sdk' as const, environments: [envId], actions: ['read' as const], rateLimitPerMin: 100_000 };
      sdkTokens.push((await owner.createApiKey({ path: { slug: 'bench' }, body })).token);
    }
    const streamPath = `/api/v1/envs/${envId}/ruleset/stream`;
    const headers = sdkTokens.map((token) => ({ authorization: `Bearer ${token}` }));

    let percent = LOW;
    const put = async () => {
      percent = percent === LOW ? HIGH : LOW;
      const target = percent;
      const res = applied(await api.putFlagRollout({ path: { envId, key: KEY }, body: { percent: target, newValue: true } }));
      if (res.percent !== target) throw new Error(`the rollout PUT answered ${JSON.stringify(res)}`);
    };

    // The bytes the real stream sends on connect and for a new version, for the baseline to send.
    const captured = await captureStream(server.url, streamPath, sdkTokens[0]!, put);
    if (!(captured.eventVersion > captured.connectVersion)) throw new Error(`captured versions ${captured.connectVersion} → ${captured.eventVersion}`);
    const config = join(dir, 'bare-sse.json');
    writeFileSync(config, JSON.stringify({ status: captured.status, headers: captured.headers, connect: template(captured.connect, captured.connectVersion), event: template(captured.event, captured.eventVersion) }));
    bare = await startChildServer(BARE_SSE, [config]);
    pool = Pool.start(PROCS);
    log(`  ${PROCS} pool processes; the event of a new version is ${Buffer.byteLength(captured.event, 'latin1')} bytes: ${JSON.stringify(captured.event)}`);

    if (WITH_GC) cdp = await inspector(inspectPort);
    const serverMemory = async (): Promise<Memory> => {
      let heapKiB = Number.NaN;
      if (cdp) {
        await cdp.call('HeapProfiler.collectGarbage');
        await sleep(200);
        heapKiB = Number((await cdp.call('Runtime.getHeapUsage')).usedSize) / 1024;
      }
      return { rssKiB: server.rssMiB() * 1024, heapKiB };
    };
    const bareMemory = async (): Promise<Memory> => {
      const m = (await (await fetch(`${bare!.url}/__memory`)).json()) as { rss: number; heapUsed: number };
      return { rssKiB: m.rss / 1024, heapKiB: m.heapUsed / 1024 };
    };
    const memAtZero = { gradual: await serverMemory(), bare: await bareMemory() };

    let gradualVersion = captured.eventVersion;
    let bareVersion = 0;
    const gradualChange = async (streams: number): Promise<Change> => {
      const c = await withCpu(server.pid, pool!.pids, () => pool!.change('gradual', gradualVersion, streams, put));
      await sleep(GAP_MS);
      // A write moves the version once; wait for any straggler before the next change is armed.
      let s = await pool!.state('gradual');
      for (let tries = 0; s.minVersion !== s.maxVersion && tries < 20; tries++) {
        await sleep(100);
        s = await pool!.state('gradual');
      }
      if (s.minVersion !== s.maxVersion || s.closed) throw new Error(`gradual streams disagree after the write: versions ${s.minVersion}–${s.maxVersion}, ${s.closed} closed`);
      gradualVersion = s.maxVersion;
      return c;
    };
    const bareChange = async (streams: number): Promise<Change> => {
      const version = bareVersion + 1;
      const c = await withCpu(bare!.pid, pool!.pids, () =>
        pool!.change('bare', bareVersion, streams, async () => {
          const res = await fetch(`${bare!.url}/__broadcast?version=${version}`, { method: 'POST' });
          if (res.status !== 204 || res.headers.get('x-streams') !== String(streams)) throw new Error(`the bare broadcaster answered ${res.status} for ${res.headers.get('x-streams')} streams`);
        }),
      );
      bareVersion = version;
      await sleep(GAP_MS);
      return c;
    };

    interface Step {
      count: number;
      openMs: number;
      /** The server's CPU over the opening of this step's new streams. */
      openCpuMs: number | null;
      gradual: Change[];
      bare: Change[];
      memory: { gradual: Memory; bare: Memory };
    }
    const steps: Step[] = [];
    let held = 0;
    for (const count of COUNTS) {
      const t = performance.now();
      const cpu0 = await cpuOf([server.pid]);
      await pool.open('gradual', server.url, streamPath, headers, count - held);
      const openMs = elapsed(t);
      const cpu1 = await cpuOf([server.pid]);
      const openCpuMs = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
      await pool.open('bare', bare.url, streamPath, headers, count - held);
      held = count;
      const [g, b] = [await pool.state('gradual'), await pool.state('bare')];
      if (g.streams !== count || b.streams !== count || g.closed || b.closed) throw new Error(`streams open: gradual ${g.streams} (${g.closed} closed), bare ${b.streams} (${b.closed} closed), expected ${count}`);
      if (g.minVersion !== gradualVersion || g.maxVersion !== gradualVersion) throw new Error(`gradual streams opened at versions ${g.minVersion}–${g.maxVersion}, expected ${gradualVersion}`);
      await sleep(1000);
      const memory = { gradual: await serverMemory(), bare: await bareMemory() };
      const perConn = (m: Memory, at0: Memory) => (m.rssKiB - at0.rssKiB) / count;
      log(
        `  ${fmtCount(count)} streams open (${fmtCount(count - (steps.at(-1)?.count ?? 0))} new to the server in ${(openMs / 1000).toFixed(1)} s); idle RSS per stream: server ${perConn(memory.gradual, memAtZero.gradual).toFixed(1)} KiB, bare ${perConn(memory.bare, memAtZero.bare).toFixed(1)} KiB`,
      );

      const gradual: Change[] = [];
      const bareChanges: Change[] = [];
      for (let i = 0; i < WARMUP + WRITES; i++) {
        const gradualFirst = i % 2 === 0;
        const first = gradualFirst ? await gradualChange(count) : await bareChange(count);
        const second = gradualFirst ? await bareChange(count) : await gradualChange(count);
        if (i < WARMUP) continue;
        gradual.push(gradualFirst ? first : second);
        bareChanges.push(gradualFirst ? second : first);
      }
      const gs = summarize(gradual.map((c) => c.last));
      const bs = summarize(bareChanges.map((c) => c.last));
      log(
        `  ${fmtCount(count)} streams, write → last stream: Gradual p50 ${gs.median.toFixed(1)} ms p99 ${gs.p99.toFixed(1)} ms; bare p50 ${bs.median.toFixed(1)} ms p99 ${bs.p99.toFixed(1)} ms; write round trip p50 ${median(gradual.map((c) => c.rtt)).toFixed(1)} ms`,
      );
      steps.push({ count, openMs, openCpuMs, gradual, bare: bareChanges, memory });
    }

    // The report.
    const lastOf = (cs: Change[]) => cs.map((c) => c.last);
    const p99 = (cs: Change[]) => summarize(lastOf(cs)).p99;
    const quarters = (cs: Change[]) => {
      const q = Math.max(1, Math.floor(cs.length / 4));
      return [0, 1, 2, 3].map((k) => lastOf(cs.slice(k * q, (k + 1) * q)).sort((a, b) => a - b));
    };
    const seriesList: Series[] = steps.flatMap((s) => [
      series(`Gradual: write → last of ${fmtCount(s.count)} streams`, lastOf(s.gradual), true),
      series(`  write → median stream`, s.gradual.map((c) => c.median), true),
      series(`  the write's own round trip`, s.gradual.map((c) => c.rtt), true),
      series(`bare: trigger → last of ${fmtCount(s.count)} streams`, lastOf(s.bare), true),
    ]);
    const ratioAt = (s: Step, p: number) => {
      const g = quarters(s.gradual);
      const b = quarters(s.bare);
      const value = percentile([...lastOf(s.gradual)].sort((x, y) => x - y), p) / percentile([...lastOf(s.bare)].sort((x, y) => x - y), p);
      return ratioOf(
        value,
        g.map((x, k) => percentile(x, p) / percentile(b[k]!, p)),
        `over 4 quarters of the writes${p === 99 ? ' (each quarter\'s p99 is its slowest write)' : ''}`,
      );
    };
    const largest = steps[steps.length - 1]!;
    const smallest = steps[0]!;
    const memPerConn = (s: Step, which: 'gradual' | 'bare', field: keyof Memory) => (s.memory[which][field] - memAtZero[which][field]) / s.count;
    const slope = (which: 'gradual' | 'bare', field: keyof Memory) => (largest.memory[which][field] - smallest.memory[which][field]) / (largest.count - smallest.count);
    const kib = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} KiB` : '–');
    const meanCpu = (cs: Change[], which: 'server' | 'pool') => {
      const ms = cs.map((c) => c.cpu?.[which] ?? null);
      return ms.some((x) => x === null) ? '?' : (ms.reduce<number>((a, x) => a + x!, 0) / ms.length).toFixed(0);
    };
    const base = p99(smallest.gradual);
    const doubled = steps.find((s) => s !== smallest && p99(s.gradual) >= 2 * base);
    const bareBase = p99(smallest.bare);
    const bareDoubled = steps.find((s) => s !== smallest && p99(s.bare) >= 2 * bareBase);
    const atCount = largest.count === GOAL_COUNT ? '' : ` (the goal's count: ${fmtCount(GOAL_COUNT)})`;
    return {
      id: 'fan-out',
      title: `fan-out of a write to ${COUNTS.map(fmtCount).join(' / ')} streaming connections, ${WRITES} writes each`,
      backend: backend.kind,
      backendLabel: backend.label,
      series: seriesList,
      ratios: steps.flatMap((s) => [
        { label: `Gradual / bare, p99 at ${fmtCount(s.count)} streams`, ...ratioAt(s, 99) },
        ...(s === largest ? [{ label: `Gradual / bare, p50 at ${fmtCount(s.count)} streams`, ...ratioAt(s, 50) }] : []),
      ]),
      goals: [
        goal(`write → last stream, p99 at ${fmtCount(largest.count)} streams${atCount}`, p99(largest.gradual), GOAL_P99_MS),
        goal(`Gradual / bare broadcaster, p99 at ${fmtCount(largest.count)} streams${atCount}`, p99(largest.gradual) / p99(largest.bare), GOAL_RATIO, 'x'),
        goal(`server RSS per idle stream at ${fmtCount(largest.count)} streams${atCount}`, memPerConn(largest, 'gradual', 'rssKiB'), GOAL_KIB, 'KiB'),
      ],
      notes: [
        `p99 doubles (≥ 2 × ${base.toFixed(1)} ms at ${fmtCount(smallest.count)} streams): ${doubled ? `at ${fmtCount(doubled.count)} streams (${p99(doubled.gradual).toFixed(1)} ms)` : `not by ${fmtCount(largest.count)} streams`}; bare broadcaster: ${bareDoubled ? `at ${fmtCount(bareDoubled.count)} (${bareBase.toFixed(1)} → ${p99(bareDoubled.bare).toFixed(1)} ms)` : `not by ${fmtCount(largest.count)}`}`,
        `idle memory per stream (RSS; V8 heap in use), after a full GC${WITH_GC ? '' : ' (BENCH_FANOUT_GC=0: server without GC)'}: ${steps
          .map(
            (s) =>
              `${fmtCount(s.count)}: server ${memPerConn(s, 'gradual', 'rssKiB').toFixed(1)} KiB (${kib(memPerConn(s, 'gradual', 'heapKiB'))}), bare ${memPerConn(s, 'bare', 'rssKiB').toFixed(1)} KiB (${memPerConn(s, 'bare', 'heapKiB').toFixed(1)} KiB)`,
          )
          .join('; ')}; server RSS ${(memAtZero.gradual.rssKiB / 1024).toFixed(0)} MiB with none`,
        ...(steps.length > 1
          ? [
              `idle memory per stream added from ${fmtCount(smallest.count)} to ${fmtCount(largest.count)} streams (without the one-time growth of the first streams: V8's young generation, allocator arenas): server ${slope('gradual', 'rssKiB').toFixed(1)} KiB RSS (${kib(slope('gradual', 'heapKiB'))} heap), bare ${slope('bare', 'rssKiB').toFixed(1)} KiB RSS (${slope('bare', 'heapKiB').toFixed(1)} KiB heap)`,
            ]
          : []),
        `each write: a rollout PUT (percent ${LOW} ↔ ${HIGH}) through the SDK with an API key, timed from just before it is sent; the baseline's trigger a POST to the bare broadcaster, same timing; the two alternate which goes first; ${WARMUP} warm-up writes per count, ${GAP_MS} ms apart`,
        `clients: ${PROCS} processes of plain sockets (bench/lib/sse-pool.mjs), streams spread evenly, ${SDK_KEYS} SDK keys; the server's event (${Buffer.byteLength(captured.event, 'latin1')} bytes) and headers captured from a real stream and replayed by the bare broadcaster; ${backend.kind === 'embedded' ? 'embedded: in-process bus' : 'PostgreSQL: LISTEN/NOTIFY'}`,
        `CPU per change (mean; server process${backend.kind === 'postgres' ? ' without PostgreSQL' : ', embedded database included'} / pool processes together): ${steps
          .map((s) => `${fmtCount(s.count)}: Gradual ${meanCpu(s.gradual, 'server')} / ${meanCpu(s.gradual, 'pool')} ms, bare ${meanCpu(s.bare, 'server')} / ${meanCpu(s.bare, 'pool')} ms`)
          .join('; ')}`,
        `stream opens: ${steps
          .map((s, k) => {
            const added = s.count - (steps[k - 1]?.count ?? 0);
            return `${fmtCount(added)} in ${(s.openMs / 1000).toFixed(1)} s${s.openCpuMs !== null ? ` (server CPU ${(s.openCpuMs / added).toFixed(2)} ms each)` : ''}`;
          })
          .join(', ')}; ${OPEN_CONCURRENCY * PROCS} in flight`,
      ],
      details: {
        counts: COUNTS,
        writes: WRITES,
        procs: PROCS,
        gapMs: GAP_MS,
        memAtZero,
        steps: steps.map((s) => ({
          count: s.count,
          openMs: s.openMs,
          openCpuMs: s.openCpuMs,
          memory: s.memory,
          gradual: s.gradual.map(({ last, median, rtt, cpu }) => ({ last, median, rtt, cpu })),
          bare: s.bare.map(({ last, median, rtt, cpu }) => ({ last, median, rtt, cpu })),
        })),
        doubledAt: doubled?.count ?? null,
      },
      wallMs: elapsed(wall),
    };
  } finally {
    cdp?.close();
    pool?.close();
    await bare?.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
