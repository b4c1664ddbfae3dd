import { bucket } from '@gradual/sdk/evaluation';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, closeBrowserContexts, ensureDashboardBuilt, launchBrowser, reportMissingBrowser, screenshot, watchConsole } from '../support/browser.js';
import { startMailSink, startServerWithMail, type MailSink } from '../support/mail.js';
import type { TestServer } from '../support/server.js';

/**
 * The dashboard in a real browser (Debian's chromium through playwright-core) against a real
 * server and database: a newcomer claims the instance, builds a project, rolls a flag out on a
 * plan, operates it, watches an alert roll it back, and reads the audit log; then teammates get
 * in by invitation and by magic link. Screenshots of the main screens go to
 * test-results/screenshots/.
 */
reportMissingBrowser('dashboard in a browser');

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

describe.skipIf(!chromiumInstalled)('dashboard in a browser', () => {
  let t: TestServer;
  let sink: MailSink;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: { errors: string[]; httpErrors: number[] };
  const others: { errors: string[]; httpErrors: number[] }[] = [];
  let app = '';
  let projectUrl = '';
  let envUrl = '';
  let envId = '';

  const see = (text: string | RegExp) => page.getByText(text).first().waitFor();
  const button = (name: string | RegExp) => page.getByRole('button', { name, exact: typeof name === 'string' });
  const field = (label: string) => page.getByLabel(label, { exact: true });

  beforeAll(async () => {
    await ensureDashboardBuilt();
    sink = await startMailSink();
    t = await startServerWithMail(sink);
    app = `${t.server.url}/app`;
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    problems = watchConsole(page);
  });

  afterAll(async () => {
    await closeBrowserContexts(browser);
    await t?.close();
    await sink?.close();
  });

  it('sends a fresh instance to the claim form, which signs the first owner in', async () => {
    await page.goto(`${app}/`);
    await page.waitForURL(`${app}/claim`);
    await field('Your email').fill('owner@example.com');
    await field('Your name').fill('Olive Owner');
    await field('Organization name').fill('Acme');
    expect(await field('Organization slug').inputValue()).toBe('acme');
    await screenshot(page, '01-claim');
    await button('Claim and sign in').click();
    await page.waitForURL(`${app}/o/acme`);
    await see('No projects yet');
    await see('Olive Owner');
  });

  it('creates a project, an environment and a flag', async () => {
    await button('New project').click();
    await field('Name').fill('Web shop');
    expect(await field('Key').inputValue()).toBe('web-shop');
    await button('Create project').click();
    await page.waitForURL(/\/app\/o\/acme\/p\/[0-9a-f-]{36}$/);
    projectUrl = page.url();

    await button('New environment').click();
    await field('Name').fill('Production');
    await button('Create environment').click();
    await page.waitForURL(/\/e\/[0-9a-f-]{36}$/);
    envUrl = page.url();
    envId = envUrl.split('/e/')[1]!;
    await see('No flags or configs in this project yet');

    await page.goto(projectUrl);
    await button('New flag').click();
    await field('Key').fill('new-checkout');
    await field('Name').fill('New checkout');
    await button('Create flag').click();
    await page.getByRole('cell', { name: 'new-checkout' }).waitFor();
    await screenshot(page, '02-project');
  });

  it('creates a plan, showing the server’s validation message next to the field', async () => {
    await page.getByRole('link', { name: 'Rollout plans' }).click();
    await page.waitForURL(`${projectUrl}/plans`);
    await button('New plan').click();
    await field('Key').fill('standard');
    await field('Name').fill('Standard ramp');
    await field('Cadence').selectOption('auto');
    // Tomorrow (UTC) is a blackout day, so the ramp chart has a shaded day whatever today is.
    const blackoutDay = DAYS[(new Date().getUTCDay() + 1) % 7]!;
    await page.getByLabel(blackoutDay, { exact: true }).check();
    await field('Step 2 percent').fill('0.5');
    await button('Create plan').click();

    const message = page.getByText("must be greater than the previous step's percent (1)");
    await message.waitFor();
    const describedBy = await field('Step 2 percent').getAttribute('aria-describedby');
    expect(describedBy).toContain(await message.getAttribute('id'));
    expect(await field('Step 2 percent').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, '03-plan-validation');

    await field('Step 2 percent').fill('10');
    await button('Create plan').click();
    await see('Standard ramp');
    await see(`no steps on ${blackoutDay} (UTC)`);
    await screenshot(page, '04-plans');
  });

  it('starts a rollout on the plan and answers "does this user get it?" with the shared evaluator', async () => {
    await page.goto(envUrl);
    await page.getByRole('link', { name: 'new-checkout' }).click();
    await page.waitForURL(`${envUrl}/flags/new-checkout`);
    await button('Start a rollout').click();
    await field('Percent').fill('1');
    await field('Plan').selectOption('standard');
    await field('Candidate value (JSON)').fill('true');
    await field('Reason (optional)').fill('launch');
    await button('Start rollout').click();
    await see('Rolling out');
    await page.getByLabel('1% admitted').first().waitFor();
    await page.locator('.ramp-chart svg[role="img"]').waitFor();
    expect(await page.locator('.ramp-chart rect.blackout').count()).toBeGreaterThan(0);

    await page.getByLabel('Value of userId to check').fill('user-42');
    await button('Check').first().click();
    const answer = page.getByTestId('who-answer');
    await answer.waitFor();
    const b = bucket('new-checkout:production', 'user-42');
    expect(await answer.textContent()).toContain(`Bucket ${b.toFixed(4)}`);
    expect(await answer.textContent()).toContain(b < 1 ? 'gets true' : 'gets false');
    expect(await answer.textContent()).toContain(b < 1 ? '(Rollout (admitted))' : '(Base value (not admitted by the rollout))');
    await screenshot(page, '05-rollout');
  });

  it('pauses (reachable by keyboard, with a reason), resumes and advances', async () => {
    await page.getByLabel('Reason (optional, saved in the audit log)').fill('checking metrics');
    // Tab from the reason field to the first operating button, and press it.
    await page.getByLabel('Reason (optional, saved in the audit log)').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Pause');
    await page.keyboard.press('Enter');
    await see('Paused · by a person');

    await button('Resume').click();
    await see('Rolling out');
    await button('Advance to next step').click();
    await page.getByLabel('10% admitted').first().waitFor();
  });

  it('adds target IDs, with counts, and checks membership', async () => {
    await page.getByLabel(/^Paste IDs/).fill('userId\nuser-1\nuser-2\nuser-3\nuser-2');
    await see('3 unique IDs ready');
    await button('Add').click();
    await see('Added 3 of 3 (0 were already listed). The list now has 3.');
    expect(await page.getByTestId('target-count').textContent()).toBe('3');
    await page.getByLabel('Is this ID on the list?').fill('user-2');
    await page.locator('.probe').getByRole('button', { name: 'Check' }).click();
    await see('is on the list.');
    await page.locator('.id-list').getByText('user-3').waitFor();
  });

  it('mints a rollback secret (shown once); a fire pauses the rollout and the banner names the secret and links the alert', async () => {
    await page.goto(`${envUrl}/rollback`);
    await field('New secret name').fill('grafana');
    await button('Mint secret').click();
    const token = (await page.getByTestId('minted-token').textContent())!;
    expect(token).toMatch(/^svcrb_/);
    expect(await page.getByTestId('fire-url').textContent()).toBe(`${t.server.url}/api/v1/webhooks/rollback/envs/${envId}/flags/<flag-key>`);
    await screenshot(page, '06-rollback-secret');

    const fired = await fetch(`${t.server.url}/api/v1/webhooks/rollback/envs/${envId}/flags/new-checkout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ alerts: [{ generatorURL: 'https://grafana.example.test/alerting/checkout-errors' }] }),
    });
    expect(fired.status).toBe(200);
    expect(await fired.json()).toEqual({ noop: false, currentStatus: 'active', newStatus: 'paused' });

    await button('Refresh').click();
    await page.locator('table.fires').getByText('Rolled back').waitFor();

    await page.goto(`${envUrl}/flags/new-checkout`);
    const banner = page.getByTestId('rollback-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('“grafana”');
    expect(await banner.getByRole('link', { name: 'Open the alert' }).getAttribute('href')).toBe('https://grafana.example.test/alerting/checkout-errors');
    await see('Paused · rolled back');
    await page.getByLabel('0% admitted').first().waitFor();
    await screenshot(page, '07-rolled-back');

    await page.goto(envUrl);
    await page.getByTestId('rollback-banner').waitFor();
    await screenshot(page, '08-environment');
  });

  it('shows the audit log, filtered, with a readable diff and the reasons given', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL(`${app}/o/acme/audit`);
    await field('Resource type').selectOption('rollout');
    await page.waitForURL(`${app}/o/acme/audit?resourceType=rollout`);
    const rolledBack = page.locator('li[data-action="rollout.auto_rollback"]');
    await rolledBack.waitFor();
    // The reason (rollout:auto_rollback) in words: the secret that fired; opened, the alert's link too.
    expect(await rolledBack.textContent()).toContain('“Alert via the rollback secret “grafana””');
    expect(await rolledBack.textContent()).not.toContain('rollout:auto_rollback');
    await rolledBack.getByRole('button').click();
    await rolledBack.getByText('Alert via the rollback secret “grafana”: https://grafana.example.test/alerting/checkout-errors', { exact: true }).waitFor();
    const percentRow = rolledBack.locator('table.diff tr', { hasText: /^percent/ });
    await percentRow.waitFor();
    expect(await percentRow.locator('td.before').textContent()).toBe('10');
    expect(await percentRow.locator('td.after').textContent()).toBe('0');
    expect(await page.locator('li[data-action="rollout.paused"]').textContent()).toContain('“checking metrics”');
    await screenshot(page, '09-audit');

    // The filter is in the address: a deep link shows the same list.
    await page.goto(`${app}/o/acme/audit?resourceType=rollout_plan`);
    await page.locator('li[data-action="rollout_plan.created"]').waitFor();
    expect(await page.locator('li[data-action="rollout.created"]').count()).toBe(0);
  });

  it('mints an API key shown once and invites a teammate, who accepts on the invitation page', async () => {
    await page.getByRole('link', { name: 'Admin' }).click();
    await field('Name').fill('ci');
    await button('Mint API key').click();
    expect(await page.getByTestId('minted-key').locator('code.secret').textContent()).toMatch(/^svc_[A-Za-z0-9]{32}$/);
    await field('Email').fill('teammate@example.com');
    await button('Invite').click();
    await see('Invitation mailed to teammate@example.com');
    await screenshot(page, '10-admin');

    const mail = await sink.next('teammate@example.com');
    const guest = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const invitee = await guest.newPage();
    others.push(watchConsole(invitee));
    await invitee.goto(mail.link);
    await invitee.getByTestId('invite-preview').waitFor();
    expect(await invitee.getByTestId('invite-preview').textContent()).toBe(
      'You are invited to join Acme as member, with the address teammate@example.com.',
    );
    await screenshot(invitee, '11-invitation');
    await invitee.getByLabel('Your name', { exact: true }).fill('Tess Teammate');
    await invitee.getByRole('button', { name: 'Join Acme' }).click();
    await invitee.waitForURL(`${app}/o/acme`);
    await invitee.getByText('Tess Teammate').waitFor();
    await guest.close();
  });

  it('signs out, and back in with an emailed link', async () => {
    await button('Sign out').click();
    await page.waitForURL(`${app}/signin`);
    await field('Email').fill('owner@example.com');
    await button('Email me a sign-in link').click();
    await see('a sign-in link is on its way');
    const mail = await sink.next('owner@example.com');
    await page.goto(mail.link);
    await page.waitForURL(`${app}/o/acme`);
    await see('Web shop');
  });

  it('renders deep links in a fresh browser: every sign-in error, a bad invitation, any /app/* path', async () => {
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await fresh.newPage();
    others.push(watchConsole(p));
    const expected: Record<string, string> = {
      magic_link_already_used: 'This sign-in link was already used',
      magic_link_expired: 'This sign-in link has expired',
      magic_link_invalid: 'This sign-in link is not valid',
      no_invitation: 'No account for this address',
    };
    for (const [code, title] of Object.entries(expected)) {
      await p.goto(`${app}/signin?error=${code}`);
      await p.getByTestId('signin-error').waitFor();
      expect(await p.getByTestId('signin-error').textContent()).toContain(title);
    }
    await screenshot(p, '12-signin-error');
    await p.goto(`${app}/invite/not-a-real-token`);
    await p.getByTestId('invite-error').waitFor();
    expect(await p.getByTestId('invite-error').textContent()).toContain('This invitation link is not valid');
    // A signed-out visit to a deep page lands on sign-in (the instance is claimed now).
    await p.goto(`${app}/o/acme/audit`);
    await p.waitForURL(`${app}/signin`);
    await fresh.close();
  });

  it('works at phone width without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${envUrl}/flags/new-checkout`);
    await page.getByTestId('rollback-banner').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, '13-phone-flag');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('stops at an approval gate of a plan made in the page, offers approval (not advance), and approves into the next step', async () => {
    await page.goto(projectUrl);
    await button('New flag').click();
    await field('Key').fill('gated-search');
    await field('Name').fill('Gated search');
    await button('Create flag').click();
    await page.getByRole('cell', { name: 'gated-search' }).waitFor();

    // The default ramp (1% for an hour, 10%, 50%, 100%) with sign-off before 10% and a blackout
    // day three days from now (UTC), which the hour the test clock moves never reaches.
    await page.getByRole('link', { name: 'Rollout plans' }).click();
    await button('New plan').click();
    await field('Key').fill('signed-off');
    await field('Name').fill('Ramp with sign-off');
    await field('Cadence').selectOption('auto');
    const blackoutDay = DAYS[(new Date().getUTCDay() + 3) % 7]!;
    await page.getByLabel(blackoutDay, { exact: true }).check();
    await field('Step 2 approval').check();
    await button('Create plan').click();
    const plan = page.locator('section', { hasText: 'Ramp with sign-off' }).last();
    await plan.getByText(`no steps on ${blackoutDay} (UTC)`).waitFor();
    expect(await plan.locator('ol.ramp li', { hasText: '10%' }).getByText('approval').count()).toBe(1);

    await page.goto(`${envUrl}/flags/gated-search`);
    await button('Start a rollout').click();
    await field('Percent').fill('1');
    await field('Plan').selectOption('signed-off');
    await field('Candidate value (JSON)').fill('true');
    await button('Start rollout').click();
    await see('Rolling out');
    await page.getByLabel('1% admitted').first().waitFor();
    await page.getByTestId('live-indicator').filter({ hasText: 'Live' }).waitFor();

    // The hour's hold is over: the scheduler stops before the step that needs approval, and the
    // open page shows it without a reload.
    await t.advanceClock(3601);
    const gate = page.getByTestId('approval-gate');
    await gate.waitFor();
    await see('Paused · awaiting approval');
    expect(await gate.textContent()).toContain('The next step (10%) needs someone to approve it.');
    await page.getByLabel('1% admitted').first().waitFor();
    expect(await button('Approve and continue').count()).toBe(1);
    expect(await button('Advance to next step').count()).toBe(0);
    expect(await button('Resume').count()).toBe(0);
    await screenshot(page, '14-approval-gate');

    await button('Approve and continue').click();
    await page.getByLabel('10% admitted').first().waitFor();
    await see('Rolling out');
    await gate.waitFor({ state: 'detached' });
  });

  it('logged no console errors; the only HTTP errors were the API’s expected 4xx answers', () => {
    const all = [problems, ...others];
    expect(all.flatMap((p) => p.errors)).toEqual([]);
    expect(all.flatMap((p) => p.httpErrors).filter((s) => s >= 500)).toEqual([]);
  });
});
