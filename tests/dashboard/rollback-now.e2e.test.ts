import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, closeBrowserContexts, ensureDashboardBuilt, launchBrowser, reportMissingBrowser, screenshot, watchConsole } from '../support/browser.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * Roll back now in a real browser: from the environment's flag list and from the flag page, each
 * behind a confirmation with a required reason; the rolled-back rollout offers resume and no
 * advance, and resume returns it to its percent.
 */
reportMissingBrowser('Roll back now in a browser');

// The dashboard's CSP allows its own scripts only; the context bypasses it to inject axe-core.
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** The ids of serious and critical axe-core violations inside `selector`. */
async function seriousViolations(page: Page, selector: string): Promise<unknown> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  // A string expression: axe is a global of the page, not of this module.
  return page.evaluate(
    `axe.run(${JSON.stringify(selector)}).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`,
  );
}

describe.skipIf(!chromiumInstalled)('Roll back now in a browser', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let browser: Browser;
  let page: Page;
  let problems: { errors: string[]; httpErrors: number[] };
  let envUrl = '';
  let envId = '';
  const path = () => ({ envId, key: 'new-checkout' });

  beforeAll(async () => {
    await ensureDashboardBuilt();
    t = await startTestServer();
    owner = await claim(t);
    const s = owner.session;
    const projectId = (await s.createProject({ path: { slug: owner.orgSlug }, body: { key: 'web', name: 'Web shop' } })).id;
    envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } })).id;
    await s.createFlag({ path: { id: projectId }, body: { key: 'new-checkout', name: 'New checkout', valueType: 'boolean', defaultValue: false } });
    await s.createRolloutPlan({
      path: { id: projectId },
      body: { key: 'ramp', name: 'Ramp', cadence: 'manual', rampSteps: [{ percent: 20, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] },
    });
    await s.putFlagRollout({ path: path(), body: { percent: 20, newValue: true, planKey: 'ramp' } });

    envUrl = `${t.server.url}/app/o/${owner.orgSlug}/p/${projectId}/e/${envId}`;
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    await context.addCookies([{ name: 'svc_session', value: owner.sessionToken, url: t.server.url }]);
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    problems = watchConsole(page);
  });

  afterAll(async () => {
    await closeBrowserContexts(browser);
    await t?.close();
  });

  const button = (name: string) => page.getByRole('button', { name, exact: true });
  const reasonField = () => page.getByLabel('Reason (required, saved in the audit log)');

  it('rolls back from the environment list after a confirmation with a reason', async () => {
    await page.goto(envUrl);
    await button('Roll back now').click();
    const confirm = button('Roll back to 0%');
    expect(await confirm.isDisabled()).toBe(true);
    await reasonField().fill('checkout errors');
    await screenshot(page, 'rollback-now-01-confirm');
    expect(await seriousViolations(page, '.rollback-now')).toEqual([]);
    await confirm.click();
    // Exactly: "20% admitted", the meter before the rollback, contains "0% admitted".
    await page.locator('.primitives').getByLabel('0% admitted', { exact: true }).waitFor();
    await button('Roll back now').waitFor({ state: 'detached' });

    // The fields asserted, projected, so that a failure prints the one that differs.
    const rollout = await owner.session.getFlagRollout({ path: path() });
    const { status, percent, rolledBackFromPercent, allowedActions, pausedReason } = rollout;
    expect({ status, percent, rolledBackFromPercent, allowedActions, pausedReason }).toEqual({
      status: 'paused',
      percent: 0,
      rolledBackFromPercent: 20,
      allowedActions: ['resume', 'cancel'],
      pausedReason: 'auto_rollback',
    });
    const { events } = await owner.session.listAuditEvents({ path: { slug: owner.orgSlug }, query: { limit: 3 } });
    expect(events[0]).toMatchObject({ action: 'rollout.rolled_back', resourceKey: 'new-checkout', reason: 'checkout errors' });
  });

  it('offers resume and no advance on the flag page; resume returns to 20%; Roll back now again', async () => {
    await page.goto(`${envUrl}/flags/new-checkout`);
    await page.getByText('Rolled back to 0%.').waitFor();
    expect(await button('Advance to next step').count()).toBe(0);
    expect(await button('Roll back now').count()).toBe(0);
    await button('Resume').click();
    await page.getByLabel('20% admitted').first().waitFor();
    expect(await button('Advance to next step').count()).toBe(1);

    await button('Roll back now').click();
    await reasonField().fill('second look');
    await button('Roll back to 0%').click();
    await page.getByText('Rolled back to 0%.').waitFor();
    await screenshot(page, 'rollback-now-02-flag-page');
    expect(await owner.session.getFlagRollout({ path: path() })).toMatchObject({ percent: 0, rolledBackFromPercent: 20 });
    expect(problems.errors).toEqual([]);
  });
});
