import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page, Response as PageResponse } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, closeBrowserContexts, launchBrowser, reportMissingBrowser, screenshot } from '../support/browser.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * The OpenFeature web SDK with the published OFREP web provider, unmodified, in a real browser on
 * a page of another origin than the server: it evaluates with a client key through CORS, follows
 * a rollout change over the OFREP event stream without a reload, revalidates with If-None-Match
 * (304), sees only client-visible flags, and a page of an origin the key does not allow reads
 * nothing.
 */
reportMissingBrowser('OFREP web provider in a browser');

/** How long a change may take to reach an open page (event, debounce, refetch), with room for a loaded CI machine. */
const WITHIN_MS = 5000;

/** The page's script (ofrep-web/page.ts) bundled for the browser, as a web app would ship it. */
async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./ofrep-web/page.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/**
 * A tiny static site on its own port (its own origin): the page, with the server's address and the
 * key as `config` holds them when the page is asked for, and its script.
 */
async function servePage(script: string, config: { baseUrl: string; token: string }): Promise<{ origin: string; server: Server }> {
  const html = () =>
    '<!doctype html><html><head><meta charset="utf-8"><title>OFREP page</title></head><body>' +
    '<p>status: <span id="status">loading</span></p><p>banner: <span id="banner"></span></p>' +
    '<p>internal-only: <span id="hidden"></span></p><p>raw: <span id="raw"></span></p>' +
    `<script>window.ofrep = ${JSON.stringify(config)};</script><script src="/page.js"></script></body></html>`;
  const server = createServer((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html());
    else if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe.skipIf(!chromiumInstalled)('OFREP web provider in a browser', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId = '';
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let allowed: { origin: string; server: Server };
  let stranger: { origin: string; server: Server };
  let navigations = 0;
  /** The page's bulk evaluations as the browser received them: status, If-None-Match sent, flag keys of a 200. */
  const bulk: Array<{ status: number; ifNoneMatch: string | undefined; keys: string[] | null }> = [];
  /** The page's OFREP event streams as the browser received them: status and the origin granted. */
  const streams: Array<{ status: number; allowOrigin: string | undefined }> = [];

  const text = (selector: string) => page.locator(selector).textContent();
  const waitForText = async (selector: string, expected: string) => {
    await expect.poll(() => text(selector), { timeout: WITHIN_MS, interval: 50 }).toBe(expected);
  };

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    const s = owner.session;
    const slug = owner.orgSlug;
    const projectId = (await s.createProject({ path: { slug }, body: { key: 'web', name: 'Web shop' } })).id;
    envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } })).id;
    await s.createFlag({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', valueType: 'string', defaultValue: 'classic', clientVisible: true } });
    await s.createFlag({ path: { id: projectId }, body: { key: 'internal-only', name: 'Internal only', valueType: 'string', defaultValue: 'secret' } });
    await s.putFlagRollout({ path: { envId, key: 'banner' }, body: { percent: 0, newValue: 'fresh' } });

    const script = await bundlePage();
    // The key names the allowed page's origin, known once that page listens; the pages read the key when loaded.
    const config = { baseUrl: `${t.server.url}/api/v1`, token: '' };
    allowed = await servePage(script, config);
    stranger = await servePage(script, config);
    config.token = (
      await s.createApiKey({ path: { slug }, body: { name: 'web shop', kind: 'client', environments: [envId], allowedOrigins: [allowed.origin] } })
    ).token;

    browser = await launchBrowser();
    context = await browser.newContext();
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });
    page.on('response', (res: PageResponse) => void recordBulk(res));
  });

  const recordBulk = async (res: PageResponse) => {
    if (new URL(res.url()).pathname === '/api/v1/ofrep/v1/events') {
      streams.push({ status: res.status(), allowOrigin: res.headers()['access-control-allow-origin'] });
      return;
    }
    if (!/\/ofrep\/v1\/evaluate\/flags$/.test(new URL(res.url()).pathname) || res.request().method() !== 'POST') return;
    const headers = await res.request().allHeaders();
    let keys: string[] | null = null;
    if (res.status() === 200) keys = ((await res.json()) as { flags: Array<{ key: string }> }).flags.map((f) => f.key);
    bulk.push({ status: res.status(), ifNoneMatch: headers['if-none-match'], keys });
  };

  afterAll(async () => {
    await closeBrowserContexts(browser);
    allowed?.server.close();
    stranger?.server.close();
    await t?.close();
  });

  it('loads the client-visible flags on a page of an allowed origin', async () => {
    await page.goto(`${allowed.origin}/`);
    await waitForText('#status', 'ready');
    expect(await text('#banner')).toBe('classic');
    // Not client-visible: not in the answer, so the page gets its own default.
    expect(await text('#hidden')).toBe('absent');
    await waitForText('#raw', 'readable 200');
    // The page's own fetch and the provider's load: both answers, as recorded once their bodies are read.
    await expect.poll(() => bulk.filter((b) => b.status === 200).length, { timeout: WITHIN_MS, interval: 50 }).toBeGreaterThanOrEqual(2);
    const loaded = bulk.filter((b) => b.status === 200);
    for (const b of loaded) {
      expect(b.keys).toContain('banner');
      expect(b.keys).not.toContain('internal-only');
    }
    await screenshot(page, 'ofrep-web-loaded');
  });

  it('revalidates the bulk evaluation with If-None-Match and gets 304 while nothing changed', async () => {
    // The event stream announces the current version on connect; the provider refetches conditionally.
    await expect.poll(() => bulk.some((b) => b.status === 304), { timeout: WITHIN_MS, interval: 50 }).toBe(true);
    const revalidated = bulk.find((b) => b.status === 304)!;
    expect(revalidated.ifNoneMatch).toMatch(/^"/);
    expect(await text('#banner')).toBe('classic');
  });

  it('shows a rollout change through the event stream, without a reload', async () => {
    const before = navigations;
    const answersBefore = bulk.length;
    await owner.session.putFlagRollout({ path: { envId, key: 'banner' }, body: { percent: 100, newValue: 'fresh' } });
    await waitForText('#banner', 'fresh');
    expect(navigations).toBe(before);
    expect(streams).toContainEqual({ status: 200, allowOrigin: allowed.origin });
    // The change came as a new bulk answer, fetched after the stream's event.
    await expect.poll(() => bulk.slice(answersBefore).some((b) => b.status === 200), { timeout: WITHIN_MS, interval: 50 }).toBe(true);

    // A rollout at 100% completes: the value is then 'fresh'. A plain value change follows the same way.
    await owner.session.setFlagValue({ path: { envId, key: 'banner' }, body: { value: 'winter' } });
    await waitForText('#banner', 'winter');
    expect(navigations).toBe(before);
  });

  it('reads nothing on a page of an origin the key does not allow', async () => {
    const other = await context.newPage();
    try {
      await other.goto(`${stranger.origin}/`);
      await expect.poll(() => other.locator('#status').textContent(), { timeout: WITHIN_MS, interval: 50 }).toMatch(/^error: /);
      await expect.poll(() => other.locator('#raw').textContent(), { timeout: WITHIN_MS, interval: 50 }).toBe('blocked');
      expect(await other.locator('#banner').textContent()).toBe('unset');
    } finally {
      await other.close();
    }
  });
});
