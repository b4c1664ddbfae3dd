import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, closeBrowserContexts, ensureDashboardBuilt, launchBrowser, reportMissingBrowser, screenshot, watchConsole } from '../support/browser.js';
import { freePort } from '../support/prism.js';

/**
 * The README's first five minutes, as printed: `npm start` from the repository root, then the
 * dashboard link the server prints, followed in Chromium through claiming the instance and
 * creating a project. Only PORT (a free one) and DATA_DIR (a fresh directory) are set, so runs
 * are isolated; everything else is the default a newcomer gets, PUBLIC_URL included.
 *
 * Always the embedded database: DATABASE_URL is removed from the child's environment even when
 * the suite runs against PostgreSQL, because the README's first run has none.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 180_000;

reportMissingBrowser('first run from the README');

/** The environment of a newcomer's shell: none of the test runner's or the suite's settings. */
function newcomerEnv(port: number, dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir };
  for (const name of [
    'DATABASE_URL',
    'PUBLIC_URL',
    'HOST',
    'NODE_ENV',
    'LOG_LEVEL',
    'LOG_FORMAT',
    'SERVICE_TEST_CLOCK',
    'SERVICE_TOPOLOGY',
    'SERVICE_PUBLIC_SIGNUP',
    'REDIS_URL',
    'SMTP_URL',
    'GRADUAL_TEST_VIA_PRISM',
  ]) {
    delete env[name];
  }
  return env;
}

/** Whether any process of the group led by `pid` is still alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `npm start` runs in a process group of its own (npm → sh → node scripts/start.mjs): stopping
 * signals the whole group, SIGTERM first (the server shuts down gracefully), SIGKILL after 10 s.
 */
async function stopGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + 10_000;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(pid)) {
    signal('SIGKILL');
    while (groupAlive(pid)) await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Resolves with the dashboard address from the server's output: the line
 * `Gradual listening on …; dashboard <url>/app/ and API reference …`, which is a JSON log line
 * when stdout is not a terminal (as here) and a human-readable one on a terminal.
 */
function printedDashboardLink(child: ChildProcess, output: { text: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no dashboard link printed within ${START_TIMEOUT_MS} ms:\n${output.text}`)), START_TIMEOUT_MS);
    const onData = () => {
      const link = /\bdashboard (https?:\/\/[^\s"]+\/app\/)/.exec(output.text)?.[1];
      if (!link) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolve(link);
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code ?? signal}) before printing the dashboard link:\n${output.text}`));
    });
  });
}

describe.skipIf(!chromiumInstalled)('first run from the README', () => {
  let dir: string;
  let port: number;
  let child: ChildProcess | undefined;
  const output = { text: '' };
  let link = '';
  let browser: Browser | undefined;
  let page: Page;
  let problems: { errors: string[]; httpErrors: number[] };

  beforeAll(async () => {
    // npm start builds a stale dashboard itself; building first keeps two browser test files
    // from running Vite into the same dist at once.
    await ensureDashboardBuilt();
    dir = mkdtempSync(join(tmpdir(), 'gradual-first-run-'));
    port = await freePort();
    child = spawn('npm', ['start'], {
      cwd: ROOT,
      env: newcomerEnv(port, join(dir, 'data')),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // a process group of its own, so teardown reaches the node process npm spawns
    });
    const collect = (d: Buffer) => {
      output.text += d.toString();
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    link = await printedDashboardLink(child, output);
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
    problems = watchConsole(page);
  }, START_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await closeBrowserContexts(browser);
    if (child) await stopGroup(child);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('prints the PUBLIC_URL default, http://localhost:PORT/app/, as the dashboard address, in JSON lines when stdout is not a terminal', () => {
    expect(link).toBe(`http://localhost:${port}/app/`);
    const line = output.text.split('\n').find((l) => l.includes('"dashboard"'));
    expect(JSON.parse(line!)).toMatchObject({ level: 30, dashboard: link, database: 'embedded' });
  });

  it('follows the printed link to the claim form, claims the instance and creates a project', async () => {
    const button = (name: string) => page.getByRole('button', { name, exact: true });
    const field = (label: string) => page.getByLabel(label, { exact: true });
    const app = link.replace(/\/$/, '');

    await page.goto(link);
    await page.waitForURL(`${app}/claim`);
    await field('Your email').fill('owner@example.com');
    await field('Your name').fill('Olive Owner');
    await field('Organization name').fill('Acme');
    await button('Claim and sign in').click();
    await page.waitForURL(`${app}/o/acme`);
    await page.getByText('No projects yet').first().waitFor();

    await button('New project').click();
    await field('Name').fill('Web shop');
    await button('Create project').click();
    await page.waitForURL(/\/app\/o\/acme\/p\/[0-9a-f-]{36}$/);

    await page.goto(`${app}/o/acme`);
    await page.getByRole('link', { name: /Web shop/ }).waitFor();
    await screenshot(page, 'first-run-project');
    expect(await page.getByText('refused').count()).toBe(0);
    expect(problems.errors).toEqual([]);
    expect(problems.httpErrors.filter((s) => s !== 401)).toEqual([]);
  });
});
