import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, closeBrowserContexts, ensureDashboardBuilt, launchBrowser, reportMissingBrowser } from '../support/browser.js';
import { startMailSink, startServerWithMail, type MailSink } from '../support/mail.js';
import { claim, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * Accessibility of every dashboard page in a real browser: axe-core runs in each page once its
 * data has loaded and must find no serious or critical violation (colour contrast, names,
 * labels, ARIA). The flag page shows a rollout stopped at an approval gate, and another flag's
 * page the banner of an alert rollback; the audit page shows an entry opened with its diff; the
 * sign-in page is checked before and after a link is sent, the first-install claim form blank and
 * with its errors, the invitation page with a mailed link and a broken one, and the not-found page
 * outside and inside an organization; the segment and config pages with their rule editors open,
 * the webhooks page with a delivery log.
 */
// The dashboard's CSP allows its own scripts only; the contexts bypass it to inject axe-core.
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

reportMissingBrowser('dashboard accessibility in a browser');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

function isViolationList(value: unknown): value is Violation[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'object' && v !== null && 'id' in v && 'nodes' in v);
}

/** Serious and critical violations axe-core finds in the page as it is now, one line per element. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  // A string expression: axe is a global of the page, not of this module.
  // Violations only: axe skips gathering the passes and the incomplete checks.
  const violations: unknown = await page.evaluate("axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)");
  if (!isViolationList(violations)) throw new Error('axe-core returned no violation list');
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id} (${v.help}): ${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`));
}

describe.skipIf(!chromiumInstalled)('dashboard accessibility in a browser', () => {
  let t: TestServer;
  let sink: MailSink;
  let owner: ClaimedInstance;
  let browser: Browser;
  let signedIn: BrowserContext;
  let app = '';
  let projectUrl = '';
  let envUrl = '';
  let inviteLink = '';
  /** The claim page's violations, blank and with the server's field errors: checked before the instance is claimed. */
  const claimPage: { blank: string[]; errors: string[] } = { blank: [], errors: [] };

  beforeAll(async () => {
    await ensureDashboardBuilt();
    sink = await startMailSink();
    t = await startServerWithMail(sink);
    app = `${t.server.url}/app`;
    browser = await launchBrowser();

    const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const claimForm = await fresh.newPage();
    claimForm.setDefaultTimeout(10_000);
    await claimForm.goto(`${app}/`);
    await claimForm.waitForURL(`${app}/claim`);
    await claimForm.getByLabel('Your email', { exact: true }).waitFor();
    claimPage.blank = await seriousViolations(claimForm);
    await claimForm.getByLabel('Your email', { exact: true }).fill('not an address');
    await claimForm.getByRole('button', { name: 'Claim and sign in' }).click();
    await claimForm.locator('[aria-invalid="true"]').first().waitFor();
    claimPage.errors = await seriousViolations(claimForm);
    await fresh.close();

    owner = await claim(t);
    const s = owner.session;
    const projectId = (await s.createProject({ path: { slug: owner.orgSlug }, body: { key: 'web', name: 'Web shop' } })).id;
    const envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } })).id;
    await s.createFlag({ path: { id: projectId }, body: { key: 'new-checkout', name: 'New checkout', valueType: 'boolean', defaultValue: false } });
    await s.createConfig({ path: { id: projectId }, body: { key: 'checkout.limits', name: 'Checkout limits', defaultValue: { max: 3 } } });
    await s.createRolloutPlan({
      path: { id: projectId },
      body: {
        key: 'signed-off',
        name: 'Ramp with sign-off',
        cadence: 'auto',
        rampSteps: [
          { percent: 5, holdForSeconds: 3600 },
          { percent: 50, holdForSeconds: 3600, requiresApproval: true },
          { percent: 100, holdForSeconds: 0 },
        ],
      },
    });
    await s.putFlagRollout({ path: { envId, key: 'new-checkout' }, body: { percent: 5, newValue: true, planKey: 'signed-off' }, headers: { 'x-audit-reason': 'first customers' } });
    // An alert rolls another flag back (before the clock moves: the banner shows for an hour after
    // the fire by the browser's clock).
    await s.createFlag({ path: { id: projectId }, body: { key: 'dark-mode', name: 'Dark mode', valueType: 'boolean', defaultValue: false } });
    await s.putFlagRollout({ path: { envId, key: 'dark-mode' }, body: { percent: 25, newValue: true } });
    const grafana = await s.createRollbackSecret({ path: { envId }, body: { name: 'grafana' } });
    const fired = await fetch(`${t.server.url}/api/v1/webhooks/rollback/envs/${envId}/flags/dark-mode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${grafana.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ alerts: [{ generatorURL: 'https://grafana.example.test/alerting/dark-mode-errors' }] }),
    });
    expect(fired.status).toBe(200);
    await t.advanceClock(3601);
    expect(await s.getFlagRollout({ path: { envId, key: 'new-checkout' } })).toMatchObject({ status: 'paused', pausedReason: 'approval_gate' });
    await s.createRollbackSecret({ path: { envId }, body: { name: 'alertmanager' } });
    await s.createApiKey({ path: { slug: owner.orgSlug }, body: { name: 'deploy bot' } });
    await s.createSegment({
      path: { id: projectId },
      body: { key: 'beta-testers', name: 'Beta testers', rules: [{ conditions: [{ attribute: 'country', operator: 'in', values: ['NL'] }] }] },
    });
    await s.addSegmentIncluded({ path: { id: projectId, key: 'beta-testers' }, body: { targetIds: ['user-1', 'user-2'] } });
    await s.updateFlag({ path: { id: projectId, key: 'new-checkout' }, body: { tags: ['team:checkout'], maintainer: 'checkout-team' } });
    const hook = await s.createWebhookSubscription({
      path: { id: projectId },
      body: { name: 'Ops channel', url: 'https://hooks.example.com/gradual', events: ['rollout.paused', 'flag.archived'] },
    });
    await s.testWebhookSubscription({ path: { id: projectId, subscriptionId: hook.id } });
    await s.createInvitation({ path: { slug: owner.orgSlug }, body: { email: 'teammate@example.com', role: 'member' } });
    inviteLink = (await sink.next('teammate@example.com')).link;

    projectUrl = `${app}/o/${owner.orgSlug}/p/${projectId}`;
    envUrl = `${projectUrl}/e/${envId}`;
    signedIn = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    await signedIn.addCookies([{ name: 'svc_session', value: owner.sessionToken, url: t.server.url }]);
  }, 60_000);

  afterAll(async () => {
    await closeBrowserContexts(browser);
    await t?.close();
    await sink?.close();
  });

  /** Opens a page signed in, waits until its data has loaded, optionally acts, and runs axe. */
  async function audit(url: string, ready: (page: Page) => Promise<unknown>): Promise<string[]> {
    const page = await signedIn.newPage();
    page.setDefaultTimeout(10_000);
    try {
      await page.goto(url);
      await ready(page);
      await page.waitForLoadState('networkidle');
      await page.getByText('Loading…').first().waitFor({ state: 'detached' });
      return await seriousViolations(page);
    } finally {
      await page.close();
    }
  }

  it('sign-in: the form and the "link sent" state', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${app}/signin`);
    await page.getByLabel(/email/i).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel(/email/i).first().fill('someone@example.com');
    await page.getByRole('button', { name: /sign-in link|send|continue/i }).first().click();
    await page.getByRole('button', { name: 'Use another address' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('claim: the first-install form, blank and with the server’s field errors', () => {
    expect(claimPage.blank).toEqual([]);
    expect(claimPage.errors).toEqual([]);
  });

  it('invitation: a mailed link’s preview and form, and a broken link', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(inviteLink);
    await page.getByTestId('invite-preview').waitFor();
    await page.getByLabel('Your name', { exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${app}/invite/not-a-real-token`);
    await page.getByTestId('invite-error').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('not found, outside and inside an organization', async () => {
    expect(await audit(`${app}/nowhere`, (p) => p.getByRole('heading', { name: 'Page not found' }).waitFor())).toEqual([]);
    expect(await audit(`${app}/o/${owner.orgSlug}/nowhere`, (p) => p.getByRole('heading', { name: 'Page not found' }).waitFor())).toEqual([]);
  });

  it('flag after an alert rollback, with the rollback banner', async () => {
    const violations = await audit(`${envUrl}/flags/dark-mode`, async (p) => {
      await p.getByTestId('rollback-banner').getByRole('link', { name: 'Open the alert' }).waitFor();
      await p.getByText('Paused · rolled back').first().waitFor();
    });
    expect(violations).toEqual([]);
  });

  it('projects', async () => {
    expect(await audit(`${app}/o/${owner.orgSlug}`, (p) => p.getByRole('link', { name: /Web shop/ }).first().waitFor())).toEqual([]);
  });

  it('project: the flag and config matrix', async () => {
    expect(await audit(projectUrl, (p) => p.getByText('new-checkout').first().waitFor())).toEqual([]);
  });

  it('environment', async () => {
    expect(await audit(envUrl, (p) => p.getByText('new-checkout').first().waitFor())).toEqual([]);
  });

  it('flag with a rollout waiting at an approval gate', async () => {
    expect(await audit(`${envUrl}/flags/new-checkout`, (p) => p.getByText('Waiting for approval').first().waitFor())).toEqual([]);
  });

  it('config', async () => {
    expect(await audit(`${envUrl}/configs/checkout.limits`, (p) => p.getByRole('heading', { name: 'checkout.limits' }).waitFor())).toEqual([]);
  });

  it('rollout plans', async () => {
    expect(await audit(`${projectUrl}/plans`, (p) => p.getByText('signed-off').first().waitFor())).toEqual([]);
  });

  it('audit log, with the approval gate named and an entry opened', async () => {
    const violations = await audit(`${app}/o/${owner.orgSlug}/audit`, async (p) => {
      const gate = p.locator('li[data-action="rollout.approval_gate_reached"]');
      await gate.waitFor();
      expect(await gate.textContent()).toContain('Waiting for approval');
      expect(await gate.textContent()).toContain('Approval gate at step 2 of 3 (50%)');
      await gate.getByRole('button').first().click();
      await gate.locator('table.diff').waitFor();
    });
    expect(violations).toEqual([]);
  });

  it('admin: members and API keys', async () => {
    expect(await audit(`${app}/o/${owner.orgSlug}/admin`, (p) => p.getByText('deploy bot').first().waitFor())).toEqual([]);
  });

  it('segments', async () => {
    expect(await audit(`${projectUrl}/segments`, (p) => p.getByText('beta-testers').first().waitFor())).toEqual([]);
  });

  it('segment, with its rule editor open', async () => {
    const violations = await audit(`${projectUrl}/segments/beta-testers`, async (p) => {
      await p.getByTestId('included-count').getByText('2').waitFor();
      await p.getByRole('button', { name: 'Edit rules' }).click();
      await p.getByRole('group', { name: 'Rule 1', exact: true }).waitFor();
    });
    expect(violations).toEqual([]);
  });

  it('config rules editor with a segment picker, details and usage', async () => {
    const violations = await audit(`${envUrl}/configs/checkout.limits`, async (p) => {
      await p.getByTestId('usage-table').waitFor();
      await p.getByRole('button', { name: 'Edit rules' }).click();
      await p.getByRole('button', { name: 'Add rule' }).click();
      const rule = p.getByRole('group', { name: 'Rule 1', exact: true });
      await rule.getByRole('button', { name: 'Add condition' }).click();
      await rule.getByLabel('Operator').selectOption('in_segment');
      await rule.getByLabel('Segments').waitFor();
      await p.getByRole('button', { name: 'Edit details' }).click();
    });
    expect(violations).toEqual([]);
  });

  it('stale flags', async () => {
    expect(await audit(`${projectUrl}/insights`, (p) => p.locator('tr[data-key="new-checkout"]').waitFor())).toEqual([]);
  });

  it('webhooks, with a delivery log open', async () => {
    const violations = await audit(`${projectUrl}/webhooks`, async (p) => {
      await p.getByText('Ops channel').first().waitFor();
      await p.getByRole('button', { name: 'Delivery log' }).click();
      await p.getByTestId('deliveries').waitFor();
    });
    expect(violations).toEqual([]);
  });

  it('rollback webhook', async () => {
    expect(await audit(`${envUrl}/rollback`, (p) => p.getByText('alertmanager').first().waitFor())).toEqual([]);
  });
});
