/**
 * A production start of the server in a child process (`node scripts/start.mjs`, the bundle
 * `npm start` runs), for load benchmarks and multi-process tests: the load generator must not
 * share an event loop with the server it measures.
 *
 * Embedded: a fresh DATA_DIR in the temp dir (removed on stop). PostgreSQL: a fresh database
 * `gradual_load_…` on the admin server, dropped on stop. Extra env (REDIS_URL, rate limits, …)
 * is passed through; LOG_LEVEL defaults to warn so logging does not dominate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable } from 'node:stream';
import { createClient, type GradualClient } from '@gradual/sdk';
import { databaseUrlFor, withAdminConnection } from '../../server/src/db/admin.js';
import { freePort } from './prism.js';
import { sessionTokenFrom } from './server.js';

export { freePort };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ProductionServer {
  url: string;
  pid: number;
  child: ChildProcess;
  /** The PostgreSQL database it runs on (absent: embedded). */
  databaseUrl?: string;
  /** Resident set size of the server process, in MiB (from /proc). */
  rssMiB(): number;
  /** SIGKILL: no shutdown handler runs (a crash, an OOM kill). Resolves once the process is gone. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

export async function waitReady(url: string, child?: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode} before it was ready`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

export interface ProductionOptions {
  /** PostgreSQL admin URL; absent: embedded PGlite. */
  adminUrl?: string;
  /** Use this database URL as is (shared by several instances); wins over adminUrl. */
  databaseUrl?: string;
  /** Embedded: use (and keep) this DATA_DIR, e.g. to restart on it after a crash. */
  dataDir?: string;
  env?: Record<string, string>;
  /** Print the server's output (debugging). */
  inheritOutput?: boolean;
  /** Hands the server's stdout to the caller (e.g. a GC trace, bench/gc-probe.ts). */
  stdout?: (stream: Readable) => void;
}

/** Creates a fresh PostgreSQL database and returns its URL and a dropper. */
export async function createScratchDatabase(adminUrl: string, prefix = 'gradual_load'): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${Date.now()}_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  await withAdminConnection(adminUrl, (execute) => execute(`create database "${name}"`));
  return {
    url: databaseUrlFor(adminUrl, name),
    drop: () => withAdminConnection(adminUrl, (execute) => execute(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}

export async function startProduction(opts: ProductionOptions = {}): Promise<ProductionServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const cleanups: Array<() => Promise<void> | void> = [];
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  delete env.GRADUAL_TEST_VIA_PRISM;
  if (opts.databaseUrl) {
    env.DATABASE_URL = opts.databaseUrl;
  } else if (opts.adminUrl) {
    const db = await createScratchDatabase(opts.adminUrl);
    env.DATABASE_URL = db.url;
    cleanups.push(() => db.drop());
  } else if (opts.dataDir) {
    delete env.DATABASE_URL;
    env.DATA_DIR = opts.dataDir;
  } else {
    delete env.DATABASE_URL;
    const dir = mkdtempSync(join(tmpdir(), 'gradual-load-'));
    env.DATA_DIR = join(dir, 'data');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  }
  // Diagnosis: BENCH_SERVER_CPU_PROF=<dir> profiles the server; BENCH_SERVER_NODE_ARGS adds node flags (e.g. --trace-gc).
  const nodeArgs = [
    '--enable-source-maps',
    ...(process.env.BENCH_SERVER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_CPU_PROF}`] : []),
    ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  ];
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env,
    stdio: opts.inheritOutput ? 'inherit' : ['ignore', opts.stdout ? 'pipe' : 'ignore', 'pipe'],
  });
  if (opts.stdout && child.stdout) opts.stdout(child.stdout);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    for (const c of cleanups.reverse()) await c();
  };
  try {
    await waitReady(url, child);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${stderr}`);
  }
  return {
    url,
    pid: child.pid!,
    child,
    ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
    rssMiB: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
      return kb / 1024;
    },
    crash: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    },
    stop,
  };
}

/** Claims a fresh process's instance for `slug`; the owner's SDK client and session token. */
export async function claimProcess(server: ProductionServer, slug = 'acme'): Promise<{ owner: GradualClient; sessionToken: string }> {
  const { response } = await createClient({ baseUrl: server.url }).withResponse.claimInstall({
    body: { email: 'ops@example.com', displayName: 'Ops', orgName: slug, orgSlug: slug },
  });
  const sessionToken = sessionTokenFrom(response);
  return { owner: createClient({ baseUrl: server.url, sessionToken }), sessionToken };
}

/** Pins a process's clock (SERVICE_TEST_CLOCK=1); each move runs one scheduler tick. */
export function setProcessClock(server: ProductionServer, at: string): Promise<Response> {
  return fetch(`${server.url}/__test__/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ now: at }) });
}
