#!/usr/bin/env node
/**
 * Start-up time of `npm start`, as the product target defines it: wall time from spawning
 * `npm start` to the first `GET /readyz` answering 200.
 *
 *   node scripts/measure-startup.mjs [runs=7] [--new-only|--existing-only] [--show-output] [--root=DIR …]
 *
 * "new": a fresh empty DATA_DIR per run (initdb + all migrations).
 * "existing": one DATA_DIR created by an untimed warm-up run, then reopened by each run.
 * Runs alternate between the two cases so machine noise hits both alike. Each run uses a free
 * PORT, polls /readyz every 20 ms, then sends SIGTERM to npm (which forwards it to the server)
 * and waits for the process to exit and the data dir lock to be released before the next run.
 * Extra environment (e.g. DATABASE_URL, LOG_LEVEL) is passed through to the server.
 *
 * `--root=DIR` (repeatable) measures the checkout in DIR instead of this one; with several, runs
 * alternate between them too, for a fair before/after comparison on a noisy machine (e.g. a copy
 * of the tree with the old start-up code, sharing this node_modules through a symlink).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const roots = args.filter((a) => a.startsWith('--root=')).map((a) => a.slice('--root='.length));
if (roots.length === 0) roots.push(fileURLToPath(new URL('../', import.meta.url)));
const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 7);
const cases = args.includes('--new-only') ? ['new'] : args.includes('--existing-only') ? ['existing'] : ['new', 'existing'];
const showOutput = args.includes('--show-output');
const POLL_MS = 20;
const TIMEOUT_MS = 60_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function readyz(port) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One start: ms from spawn to the first 200 from /readyz, plus the server's own startupMs log field. */
async function startOnce(root, dataDir) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: npm does not forward SIGTERM to the script when its stdio is not a
    // terminal, so the signal goes to the whole group (npm, sh, node), like a terminal's Ctrl-C.
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  // 'close' waits for the server too: it holds the inherited stdout/stderr pipes until it exits.
  const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  let exitInfo = null;
  void exited.then((e) => (exitInfo = e));

  let ms;
  let failed = false;
  let failure;
  try {
    for (;;) {
      if (exitInfo) throw new Error(`npm start exited early (${JSON.stringify(exitInfo)}):\n${output}`);
      if (performance.now() - started > TIMEOUT_MS) throw new Error(`not ready after ${TIMEOUT_MS} ms:\n${output}`);
      if (await readyz(port)) {
        ms = performance.now() - started;
        break;
      }
      await sleep(POLL_MS);
    }
  } catch (err) {
    failed = true;
    failure = err;
  }
  // Stop the server whether or not it became ready; a failed shutdown outranks a failed start.
  if (!exitInfo && child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch (err) {
      if (err.code !== 'ESRCH') throw err;
    }
  }
  const e = await exited;
  // The lock file going away shows that the server closed the database cleanly.
  const lock = join(dataDir, 'gradual.lock');
  for (let i = 0; i < 250 && existsSync(lock); i++) await sleep(20);
  if (existsSync(lock)) throw new Error(`data dir lock still present after shutdown (exit ${JSON.stringify(e)}):\n${output}`);
  if (ms !== undefined && !/"msg":"shutting down"/.test(output)) {
    throw new Error(`the server did not shut down gracefully (exit ${JSON.stringify(e)}):\n${output}`);
  }
  if (failed) throw failure;
  if (showOutput) process.stderr.write(output);
  const serverMs = /"startupMs":(\d+)/.exec(output)?.[1];
  const phases = /"phases":(\{[^}]*\})/.exec(output)?.[1];
  return { ms, serverMs: serverMs ? Number(serverMs) : undefined, phases };
}

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median: Math.round(median), min: Math.round(s[0]), max: Math.round(s[s.length - 1]) };
}

const tmp = mkdtempSync(join(tmpdir(), 'gradual-startup-'));
const label = (r, kind) => (roots.length > 1 ? `${kind} @ ${r}` : kind);
const results = new Map();
try {
  for (const [ri, r] of roots.entries()) {
    if (!cases.includes('existing')) break;
    const warm = await startOnce(r, join(tmp, `existing-${ri}`)); // creates the database (untimed), warms the fs cache
    console.log(`warm-up of ${r} (creates its existing dir): ${Math.round(warm.ms)} ms`);
  }
  for (let i = 0; i < runs; i++) {
    for (const kind of cases) {
      for (const [ri, r] of roots.entries()) {
        const dir = kind === 'new' ? join(tmp, `new-${ri}-${i}`) : join(tmp, `existing-${ri}`);
        const res = await startOnce(r, dir);
        const key = label(r, kind);
        results.set(key, [...(results.get(key) ?? []), res.ms]);
        console.log(
          `${key.padEnd(8)} run ${i + 1}/${runs}: ${Math.round(res.ms)} ms (server startupMs ${res.serverMs ?? '?'}${res.phases ? `, db phases ${res.phases}` : ''})`,
        );
        if (kind === 'new') rmSync(dir, { recursive: true, force: true });
      }
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log('');
for (const [key, ms] of results) {
  const { median, min, max } = stats(ms);
  console.log(`${key} dir: median ${median} ms, min ${min} ms, max ${max} ms (n=${ms.length})`);
}
