import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, closeBrowserContexts, ensureDashboardBuilt, launchBrowser, reportMissingBrowser, screenshot, watchConsole } from '../support/browser.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * Getting around flags across environments in a real browser: the project's flag × environment
 * matrix, a cell to that flag in that environment, its history, and the rollback webhook page
 * prefilled for it, whose fire URL and secret pause the rollout.
 */
reportMissingBrowser('dashboard navigation in a browser');

describe.skipIf(!chromiumInstalled)('dashboard navigation in a browser', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let browser: Browser;
  let page: Page;
  let problems: { errors: string[]; httpErrors: number[] };
  let app = '';
  let projectId = '';
  let prodId = '';
  let stagingId = '';

  /** The link of `key` in the environment `env`: the matrix row of the key, the link named by the environment. */
  const cell = (key: string, env: string) =>
    page
      .getByTestId('flag-matrix')
      .getByRole('row')
      .filter({ has: page.locator('td:first-child code', { hasText: new RegExp(`^${key.replace('.', '\\.')}$`) }) })
      .getByRole('link', { name: new RegExp(`^${env}:`) });

  beforeAll(async () => {
    await ensureDashboardBuilt();
    t = await startTestServer();
    owner = await claim(t);
    const s = owner.session;
    projectId = (await s.createProject({ path: { slug: owner.orgSlug }, body: { key: 'web', name: 'Web shop' } })).id;
    stagingId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    prodId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } })).id;
    await s.createFlag({ path: { id: projectId }, body: { key: 'new-checkout', name: 'New checkout', valueType: 'boolean', defaultValue: false } });
    await s.createConfig({ path: { id: projectId }, body: { key: 'checkout.limits', name: 'Checkout limits', defaultValue: { max: 3 } } });
    await s.setFlagValue({ path: { envId: stagingId, key: 'new-checkout' }, body: { value: true } });
    await s.putFlagRollout({ path: { envId: prodId, key: 'new-checkout' }, body: { percent: 20, newValue: true }, headers: { 'x-audit-reason': 'first customers' } });

    app = `${t.server.url}/app`;
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies([{ name: 'svc_session', value: owner.sessionToken, url: t.server.url }]);
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    problems = watchConsole(page);
  });

  afterAll(async () => {
    await closeBrowserContexts(browser);
    await t?.close();
  });

  it('shows each flag and config in every environment side by side on the project page', async () => {
    await page.goto(`${app}/o/${owner.orgSlug}/p/${projectId}`);
    const matrix = page.getByTestId('flag-matrix');
    await matrix.waitFor();
    const headers = await matrix.getByRole('columnheader').allTextContents();
    expect(headers).toEqual(['Key', 'Default value', 'Staging', 'Production']);

    const prod = cell('new-checkout', 'Production');
    const describedBy = await prod.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe('new-checkout');
    await prod.getByText('20%').waitFor();
    expect(await prod.textContent()).toContain('Rolling out');
    const staging = cell('new-checkout', 'Staging');
    expect(await staging.locator('code').textContent()).toBe('true');
    expect(await cell('checkout.limits', 'Production').locator('code').textContent()).toBe('{"max":3}');
    await screenshot(page, 'nav-01-matrix');
  });

  it('opens the flag in the environment of the cell, with the rollout start in its history', async () => {
    await cell('new-checkout', 'Production').click();
    await page.waitForURL(`${app}/o/${owner.orgSlug}/p/${projectId}/e/${prodId}/flags/new-checkout`);
    await page.getByRole('heading', { name: 'new-checkout' }).waitFor();

    const history = page.getByTestId('flag-history');
    const started = history.locator('tr[data-action="rollout.created"]');
    await started.waitFor();
    expect(await started.textContent()).toContain('“first customers”');
    expect(await started.textContent()).toContain('owner@example.com');
    // Staging's value change is that environment's history, not this one's.
    expect(await history.locator('tr[data-action="flag.update_value"]').count()).toBe(0);
    await screenshot(page, 'nav-02-flag-history');
  });

  it('opens the rollback webhook page prefilled for the flag; its URL and a minted secret pause the rollout', async () => {
    await page.getByRole('link', { name: 'Rollback webhooks' }).click();
    await page.waitForURL(`${app}/o/${owner.orgSlug}/p/${projectId}/e/${prodId}/rollback?flag=new-checkout`);
    const url = `${t.server.url}/api/v1/webhooks/rollback/envs/${prodId}/flags/new-checkout`;
    expect(await page.getByTestId('target-fire-url').textContent()).toBe(url);
    expect(await page.getByTestId('target-curl').textContent()).toBe(`curl -X POST -H "Authorization: Bearer $GRADUAL_ROLLBACK_SECRET" \\\n  '${url}'`);

    await page.getByLabel('New secret name', { exact: true }).fill('grafana');
    await page.getByRole('button', { name: 'Mint secret', exact: true }).click();
    const token = (await page.getByTestId('minted-token').textContent())!;
    expect(await page.getByTestId('fire-url').textContent()).toBe(url);
    expect(await page.getByTestId('target-curl').textContent()).toBe(`curl -X POST -H "Authorization: Bearer ${token}" \\\n  '${url}'`);
    await screenshot(page, 'nav-03-rollback-prefilled');

    const fired = await fetch((await page.getByTestId('target-fire-url').textContent())!, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(fired.status).toBe(200);
    expect(await fired.json()).toMatchObject({ noop: false, newStatus: 'paused' });

    const flagPath = `/app/o/${owner.orgSlug}/p/${projectId}/e/${prodId}/flags/new-checkout`;
    expect(await page.getByRole('link', { name: 'Back to new-checkout' }).getAttribute('href')).toBe(flagPath);
    // The fire is listed with its key linking to the flag.
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    const fires = page.locator('table.fires');
    await fires.getByText('Rolled back').waitFor();
    await fires.getByRole('link', { name: 'new-checkout' }).click();
    await page.waitForURL(`${app}/o/${owner.orgSlug}/p/${projectId}/e/${prodId}/flags/new-checkout`);
    await page.getByTestId('flag-history').locator('tr[data-action="rollout.auto_rollback"]').waitFor();
    expect(problems.errors).toEqual([]);
    expect(problems.httpErrors).toEqual([]);
  });
});
