import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSecurityHeaderPairs } from '../../server/src/http/security-headers.js';
import { chromiumInstalled, closeBrowserContexts, ensureDashboardBuilt, launchBrowser, reportMissingBrowser, watchConsole } from '../support/browser.js';
import { scrapeMetrics } from '../support/metrics.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/** The headers server/src/http/security-headers.ts sets, by name. */
const SECURITY_HEADERS = [
  'content-security-policy',
  'x-content-type-options',
  'referrer-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'x-frame-options',
  'strict-transport-security',
];
const API_CSP = "default-src 'none';frame-ancestors 'none'";

function securityOf(res: Response): Record<string, string | null> {
  return Object.fromEntries(SECURITY_HEADERS.map((h) => [h, res.headers.get(h)]));
}

/** A CSP header as directive name → sources. */
function directives(csp: string | null): Record<string, string[]> {
  return Object.fromEntries(
    (csp ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

function expectApiHeaders(res: Response) {
  expect(securityOf(res)).toEqual({
    'content-security-policy': API_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'x-frame-options': 'DENY',
    'strict-transport-security': null,
  });
}

function expectPageHeaders(res: Response) {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe('same-origin');
  expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('strict-transport-security')).toBeNull();
  const csp = directives(res.headers.get('content-security-policy'));
  expect(csp['frame-ancestors']).toEqual(["'none'"]);
  expect(csp['script-src']).toEqual(["'self'"]);
  expect(csp['connect-src']).toEqual(["'self'"]);
  expect(csp['img-src']).toEqual(["'self'", 'data:']);
  expect(csp['object-src']).toEqual(["'none'"]);
  expect(csp['upgrade-insecure-requests']).toBeUndefined();
  return csp;
}

describe('security headers', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  let token: string;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    t = await startTestServer({}, { direct: true });
    owner = await claim(t);
    const projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    token = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'sdk', actions: ['read'] } })).token;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
  }, 180_000); // a first dashboard build on a busy machine takes a while
  afterAll(() => t?.close());

  it('gives the dashboard a CSP of its own origin (no inline script or style), and its assets nosniff', async () => {
    const page = await fetch(`${t.server.url}/app/`);
    expect(page.status).toBe(200);
    const csp = expectPageHeaders(page);
    expect(csp['style-src']).toEqual(["'self'"]);
    expect(csp['default-src']).toEqual(["'self'"]);
    const html = await page.text();
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(`${t.server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
    expect(directives(asset.headers.get('content-security-policy'))['frame-ancestors']).toEqual(["'none'"]);
    // A deep link of the app gets the page's headers too.
    expectPageHeaders(await fetch(`${t.server.url}/app/orgs/acme`));
  });

  it('gives /docs/ (Swagger UI) a CSP of its own origin, no inline script or style', async () => {
    const docs = await fetch(`${t.server.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(expectPageHeaders(docs)['style-src']).toEqual(["'self'"]);
    const init = await fetch(`${t.server.url}/docs/swagger-initializer.js`);
    expect(init.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("answers the API's JSON and its errors with default-src 'none', no-referrer and nosniff", async () => {
    const me = await fetch(`${t.server.url}/api/v1/auth/me`, { headers: { cookie: `svc_session=${owner.sessionToken}` } });
    expect(me.status).toBe(200);
    expect(me.headers.get('content-type')).toMatch(/^application\/json/);
    expectApiHeaders(me);
    const anonymous = await fetch(`${t.server.url}/api/v1/auth/me`);
    expect(anonymous.status).toBe(401);
    expectApiHeaders(anonymous);
    const missing = await fetch(`${t.server.url}/api/v1/no-such-thing`);
    expect(missing.status).toBe(404);
    expectApiHeaders(missing);
    const badJson = await fetch(`${t.server.url}/api/v1/orgs/acme/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(badJson.status).toBe(400);
    expectApiHeaders(badJson);
    expectApiHeaders(await fetch(`${t.server.url}/healthz`));
    expectApiHeaders(await fetch(`${t.server.url}/openapi.yaml`));
  });

  it('sends an event stream nosniff and CORP only (the other headers are for documents), its refusals all of them', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${t.server.url}/api/v1/envs/${envId}/ruleset/stream`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(securityOf(stream)).toEqual({
        'content-security-policy': null,
        'x-content-type-options': 'nosniff',
        'referrer-policy': null,
        'cross-origin-opener-policy': null,
        'cross-origin-resource-policy': 'same-origin',
        'x-frame-options': null,
        'strict-transport-security': null,
      });
    } finally {
      controller.abort();
    }
    const refused = await fetch(`${t.server.url}/api/v1/envs/${envId}/ruleset/stream`);
    expect(refused.status).toBe(401);
    expectApiHeaders(refused);
  });

  it('answers a 304 poll from memory with the same security headers as the route', async () => {
    const url = `${t.server.url}/api/v1/envs/${envId}/ruleset`;
    const auth = { authorization: `Bearer ${token}` };
    const tag = (await fetch(url, { headers: auth })).headers.get('etag')!;
    const fromMemory = async () => (await scrapeMetrics(t.server.url)).sample('gradual_ruleset_polls_from_memory_total');
    // The caches stay warm for a second after the route fills them: poll until one is answered from memory.
    let warm!: Response;
    let answered = false;
    for (let attempt = 0; attempt < 5 && !answered; attempt++) {
      const before = await fromMemory();
      warm = await fetch(url, { headers: { ...auth, 'if-none-match': tag } });
      expect(warm.status).toBe(304);
      answered = (await fromMemory()) === before + 1;
    }
    expect(answered).toBe(true);
    expectApiHeaders(warm);
    const full = await fetch(url, { headers: { cookie: `svc_session=${owner.sessionToken}`, 'if-none-match': tag } });
    expect(full.status).toBe(304);
    expect(securityOf(warm)).toEqual(securityOf(full));
  });
});

describe('security headers behind https (PUBLIC_URL)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ PUBLIC_URL: 'https://flags.example.com' }, { direct: true });
  });
  afterAll(() => t?.close());

  it('adds Strict-Transport-Security and upgrade-insecure-requests only then', async () => {
    const hsts = 'max-age=31536000';
    const app = await fetch(`${t.server.url}/app/`);
    expect(app.headers.get('strict-transport-security')).toBe(hsts);
    expect(directives(app.headers.get('content-security-policy'))['upgrade-insecure-requests']).toEqual([]);
    const api = await fetch(`${t.server.url}/api/v1/auth/me`);
    expect(api.headers.get('strict-transport-security')).toBe(hsts);
    expect(api.headers.get('content-security-policy')).toBe(API_CSP);
    expect((await fetch(`${t.server.url}/docs/`)).headers.get('strict-transport-security')).toBe(hsts);
    // Answers from memory carry the same pairs.
    const pairs = apiSecurityHeaderPairs({ publicUrl: 'https://flags.example.com', publicUrlConfigured: true });
    expect(pairs).toContain('Strict-Transport-Security');
    expect(pairs[pairs.indexOf('Strict-Transport-Security') + 1]).toBe(hsts);
    expect(apiSecurityHeaderPairs({ publicUrl: 'http://flags.example.com', publicUrlConfigured: true })).not.toContain('Strict-Transport-Security');
  });
});

reportMissingBrowser('pages under their CSP in a browser');

describe.skipIf(!chromiumInstalled)('pages under their CSP in a browser', () => {
  let t: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    t = await startTestServer({}, { direct: true });
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await closeBrowserContexts(browser);
    await t?.close();
  });

  /** Opens `path` and reports every CSP violation (the DOM event) and console error on it. */
  async function open(path: string, ready: (page: Page) => Promise<unknown>) {
    const page = await browser.newPage();
    page.setDefaultTimeout(45_000);
    const problems = watchConsole(page);
    await page.addInitScript(() => {
      const seen: string[] = [];
      Object.assign(window, { __violations: seen });
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(`${t.server.url}${path}`);
    await ready(page);
    const violations = await page.evaluate(() => (window as Window & { __violations?: string[] }).__violations ?? []);
    await page.close();
    return { violations, errors: problems.errors };
  }

  it('renders the dashboard with no CSP violation', async () => {
    const { violations, errors } = await open('/app/', (page) => page.getByRole('button', { name: 'Claim and sign in' }).waitFor());
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  it('renders the API reference (Swagger UI) with no CSP violation', async () => {
    const { violations, errors } = await open('/docs/', async (page) => {
      await page.locator('.opblock').first().waitFor();
      // An operation opened and "Try it out" pressed: more of Swagger UI rendered under the policy.
      await page.locator('.opblock-summary').first().click();
      await page.getByRole('button', { name: 'Try it out' }).first().click();
      await page.getByRole('button', { name: 'Execute' }).first().waitFor();
    });
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  }, 90_000); // Swagger UI's bundle is large: seconds to load and render on a busy machine
});
