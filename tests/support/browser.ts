import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { describe, it } from 'vitest';
import { buildDashboard, dashboardIsFresh } from '../../scripts/dashboard-build.mjs';

/**
 * Browser end-to-end support: Debian's chromium driven by playwright-core (its own browser
 * download is impossible here). Without chromium the browser tests skip with a message, unless
 * GRADUAL_REQUIRE_BROWSER=1 (CI), where they fail.
 */
export const CHROMIUM_PATH = process.env.GRADUAL_CHROMIUM ?? '/usr/lib/chromium/chromium';
export const chromiumInstalled = existsSync(CHROMIUM_PATH);
export const browserRequired = process.env.GRADUAL_REQUIRE_BROWSER === '1';
export const MISSING_BROWSER =
  `chromium not found at ${CHROMIUM_PATH}: browser tests skipped. ` +
  'Install it with `apt-get install -y chromium` (or set GRADUAL_CHROMIUM); GRADUAL_REQUIRE_BROWSER=1 makes this a failure.';

/**
 * What a browser suite does without chromium: with GRADUAL_REQUIRE_BROWSER=1 (CI) a failing test
 * named after `suite`; otherwise a warning, and the suite's own tests skip.
 */
export function reportMissingBrowser(suite: string): void {
  if (chromiumInstalled) return;
  if (!browserRequired) {
    console.warn(MISSING_BROWSER);
    return;
  }
  describe(suite, () => {
    it('needs chromium (GRADUAL_REQUIRE_BROWSER=1)', () => {
      throw new Error(MISSING_BROWSER);
    });
  });
}

export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'screenshots');

/** Builds dashboard/dist when it is missing or older than its sources (as npm start does). */
export async function ensureDashboardBuilt(): Promise<void> {
  if (dashboardIsFresh()) return;
  if (!(await buildDashboard({ quiet: true })) || !dashboardIsFresh()) throw new Error('could not build the dashboard (see the output above)');
}

/** Chromium with the flags STACK.md lists; playwright gives every launch a fresh temporary profile. */
async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

let shared: Promise<Browser> | undefined;

/**
 * The worker's Chromium, launched by the first browser test file it runs and shared by the next
 * ones (`isolate: false` keeps this module loaded from file to file), which saves a launch and a
 * close (about a second) per file. Each file opens contexts of its own, so no cookie, storage or
 * page crosses files, and closes them with closeBrowserContexts(). A browser that crashed or was
 * closed is launched again. At the worker's exit playwright kills it and deletes its profile; the
 * SIGTERM vitest stops a worker with exits at once, so that this runs before vitest's SIGKILL.
 */
export function launchBrowser(): Promise<Browser> {
  if (!shared) {
    const launching = launchChromium();
    shared = launching;
    launching.then(
      (browser) => {
        browser.on('disconnected', () => {
          if (shared === launching) shared = undefined;
        });
        process.once('SIGTERM', () => process.exit(143));
      },
      () => {
        if (shared === launching) shared = undefined;
      },
    );
  }
  return shared;
}

/** Closes every context (and so every page) a test file opened in the shared browser; the browser stays up. */
export async function closeBrowserContexts(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((context) => context.close()));
}

/**
 * Everything a page reports that is a problem: uncaught exceptions and console errors. Chromium
 * also logs each HTTP error answer ("Failed to load resource: … status of 401"); those are the
 * API speaking (a signed-out /auth/me, a forged invitation token), kept apart in `httpErrors`
 * and checked by status, so `errors` holds only what the app itself got wrong.
 */
export function watchConsole(page: Page): { errors: string[]; httpErrors: number[] } {
  const errors: string[] = [];
  const httpErrors: number[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg: ConsoleMessage) => {
    if (msg.type() !== 'error' && msg.type() !== 'warning') return;
    const http = /^Failed to load resource: the server responded with a status of (\d+)/.exec(msg.text());
    if (http) httpErrors.push(Number(http[1]));
    else if (msg.type() === 'error') errors.push(`console.error: ${msg.text()}`);
  });
  return { errors, httpErrors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
