import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'vitest';

/**
 * A real Prometheus for the guard metrics' Prometheus source: Debian's `prometheus` and `promtool`
 * (`apt-get install prometheus`). Its database is filled, before it starts, from an exporter's
 * exposition with timestamps (`promtool tsdb create-blocks-from openmetrics`), so the samples sit at
 * the test clock's times and the test never waits for scrapes in real time.
 */
export const PROMETHEUS_PATH = process.env.GRADUAL_PROMETHEUS ?? '/usr/bin/prometheus';
export const PROMTOOL_PATH = join(PROMETHEUS_PATH, '..', 'promtool');
export const prometheusInstalled = existsSync(PROMETHEUS_PATH) && existsSync(PROMTOOL_PATH);
export const MISSING_PROMETHEUS = `prometheus or promtool not found at ${PROMETHEUS_PATH}: the Prometheus source tests are skipped. Install them with \`apt-get install -y prometheus\` (or set GRADUAL_PROMETHEUS).`;

/**
 * What a suite does without Prometheus: with GRADUAL_REQUIRE_PROMETHEUS=1 (CI) a failing test named
 * after `suite`; otherwise a warning, and the suite's own tests skip.
 */
export function reportMissingPrometheus(suite: string): void {
  if (prometheusInstalled) return;
  if (process.env.GRADUAL_REQUIRE_PROMETHEUS !== '1') {
    console.warn(MISSING_PROMETHEUS);
    return;
  }
  describe(suite, () => {
    it('needs prometheus (GRADUAL_REQUIRE_PROMETHEUS=1)', () => {
      throw new Error(MISSING_PROMETHEUS);
    });
  });
}

export interface RunningPrometheus {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts Prometheus on a free port with the OpenMetrics text `exposition` (timestamps in seconds, ending in `# EOF`) in its database. */
export async function startPrometheus(exposition: string): Promise<RunningPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'gradual-prometheus-'));
  const data = join(dir, 'data');
  await writeFile(join(dir, 'input.om'), exposition);
  await writeFile(join(dir, 'prometheus.yml'), 'global: {}\n');
  await promisify(execFile)(PROMTOOL_PATH, ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', join(dir, 'input.om'), data]);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    PROMETHEUS_PATH,
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${data}`, '--storage.tsdb.retention.time=3650d', `--web.listen-address=127.0.0.1:${port}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited with ${child.exitCode}:\n${log}`);
    }
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) return { url, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within 20 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
