import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserRequired, chromiumInstalled, closeBrowserContexts, launchBrowser, MISSING_BROWSER, screenshot } from '../support/browser.js';
import { claim, startTestServer, type TestServer } from '../support/server.js';

/**
 * docs/examples/react-ofrep (React, @openfeature/react-sdk, the OFREP web provider, a client key)
 * compiles, type-checks and bundles as a web app would; in Chromium, against a test server, it
 * renders the flag's value.
 */
const EXAMPLE = fileURLToPath(new URL('../../docs/examples/react-ofrep/', import.meta.url));

/** The example bundled for the browser, with its two Vite variables set. */
async function bundleExample(env: { url: string; key: string }) {
  return build({
    entryPoints: [`${EXAMPLE}main.tsx`],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    jsx: 'automatic',
    write: false,
    logLevel: 'silent',
    define: {
      'process.env.NODE_ENV': '"production"',
      'import.meta.env.VITE_GRADUAL_URL': JSON.stringify(env.url),
      'import.meta.env.VITE_GRADUAL_CLIENT_KEY': JSON.stringify(env.key),
    },
  });
}

describe('React example (docs/examples/react-ofrep)', () => {
  it('bundles with esbuild without an error or warning', async () => {
    const result = await bundleExample({ url: 'https://flags.example.com', key: 'pub_example' });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.outputFiles[0]!.text).toContain('/api/v1');
  });

  it('type-checks with its tsconfig', async () => {
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
    await expect(promisify(execFile)(process.execPath, [tsc, '-p', `${EXAMPLE}tsconfig.json`])).resolves.toBeDefined();
  });
});

if (!chromiumInstalled && browserRequired) {
  describe('React example in a browser', () => {
    it('needs chromium (GRADUAL_REQUIRE_BROWSER=1)', () => {
      throw new Error(MISSING_BROWSER);
    });
  });
}

describe.skipIf(!chromiumInstalled)('React example in a browser', () => {
  let t: TestServer;
  let site: Server;
  let browser: Browser;
  let origin = '';

  beforeAll(async () => {
    t = await startTestServer();
    const owner = await claim(t);
    const s = owner.session;
    const projectId = (await s.createProject({ path: { slug: owner.orgSlug }, body: { key: 'web', name: 'Web' } })).id;
    const envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await s.createFlag({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', valueType: 'string', defaultValue: 'autumn sale', clientVisible: true } });

    const config = { script: '' };
    site = createServer((req, res) => {
      if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><div id="root"></div><script type="module" src="/main.js"></script>');
      else if (req.url === '/main.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(config.script);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const key = await s.createApiKey({ path: { slug: owner.orgSlug }, body: { name: 'react app', kind: 'client', environments: [envId], allowedOrigins: [origin] } });
    config.script = (await bundleExample({ url: t.server.url, key: key.token })).outputFiles[0]!.text;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await closeBrowserContexts(browser);
    site?.close();
    await t?.close();
  });

  it('renders the flag value the server evaluates', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${origin}/`);
    await expect.poll(() => page.getByTestId('banner').textContent(), { timeout: 10_000, interval: 50 }).toBe('autumn sale');
    await expect.poll(() => page.locator('main p').textContent(), { timeout: 5000, interval: 50 }).toBe('From Gradual');
    await screenshot(page, 'react-ofrep-example');
    expect(errors).toEqual([]);
  });
});
