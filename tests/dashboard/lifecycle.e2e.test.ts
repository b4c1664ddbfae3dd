import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, closeBrowserContexts, ensureDashboardBuilt, launchBrowser, reportMissingBrowser, screenshot, watchConsole } from '../support/browser.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * Segments, flag lifecycle, stale flags and outbound webhooks through the dashboard in Chromium,
 * against a real server: a segment with included IDs is used by three flags' rules and decides
 * "does this user get it?"; its delete is refused while flags use it, and a rule closing a cycle
 * is refused with the cycle; a flag's details are edited under If-Match (a change made meanwhile
 * asks for a reload); a flag is archived, found again with "Show archived" and deleted with its
 * key typed; a flag with a live rollout cannot be archived and says why; the stale-flags view
 * moves a flag from new to not evaluated as the clock moves, and a flag's page says it is safe to
 * remove once nobody evaluated it for 30 days and a code check found no use; a webhook subscription is created,
 * its secret shown once, a test event sent and seen delivered in the log (and verified by the
 * receiver with that secret); an environment and then the project are deleted from their danger
 * zones.
 */
reportMissingBrowser('dashboard lifecycle in a browser');

const DAY = 86_400;

interface Receiver {
  url: string;
  bodies: string[];
  headers: Record<string, string>[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const bodies: string[] = [];
  const headers: Record<string, string>[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      headers.push(Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/gradual`,
    bodies,
    headers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!chromiumInstalled)('dashboard lifecycle in a browser', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  let problems: { errors: string[]; httpErrors: number[] };
  let projectId = '';
  let projectUrl = '';
  let envUrl = '';
  let stagingId = '';

  const see = (text: string | RegExp) => page.getByText(text).first().waitFor();
  const button = (name: string | RegExp) => page.getByRole('button', { name, exact: typeof name === 'string' });
  const field = (label: string) => page.getByLabel(label, { exact: true });

  beforeAll(async () => {
    await ensureDashboardBuilt();
    receiver = await startReceiver();
    // The receiver listens on the loopback address over plain HTTP, which deliveries refuse unless allowed.
    t = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_ALLOW_HTTP: '1' });
    owner = await claim(t);
    const s = owner.session;
    projectId = (await s.createProject({ path: { slug: owner.orgSlug }, body: { key: 'web', name: 'Web shop' } })).id;
    const envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } })).id;
    stagingId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    for (const key of ['beta-search', 'beta-export', 'beta-themes', 'old-banner', 'new-checkout']) {
      await s.createFlag({ path: { id: projectId }, body: { key, name: key.replace('-', ' '), valueType: 'boolean', defaultValue: false } });
    }
    await s.putFlagRollout({ path: { envId, key: 'new-checkout' }, body: { percent: 10, newValue: true } });

    projectUrl = `${t.server.url}/app/o/${owner.orgSlug}/p/${projectId}`;
    envUrl = `${projectUrl}/e/${envId}`;
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: 'svc_session', value: owner.sessionToken, url: t.server.url }]);
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    problems = watchConsole(page);
  }, 120_000);

  afterAll(async () => {
    await closeBrowserContexts(browser);
    await t?.close();
    await receiver?.close();
  });

  it('creates a segment and adds included IDs', async () => {
    await page.goto(projectUrl);
    await page.getByRole('link', { name: 'Segments', exact: true }).click();
    await page.waitForURL(`${projectUrl}/segments`);
    await see('No segments yet');
    await button('New segment').click();
    await field('Name').fill('Beta testers');
    expect(await field('Key').inputValue()).toBe('beta-testers');
    await button('Create segment').click();
    await page.waitForURL(`${projectUrl}/segments/beta-testers`);

    await page.getByLabel(/^Paste IDs for Included/).fill('userId\nuser-1\nuser-2\nuser-2');
    await see('2 unique IDs ready');
    await button('Add to included').click();
    await see('Added 2 of 2 (0 were already listed). The list now has 2.');
    expect(await page.getByTestId('included-count').textContent()).toBe('2');
    expect(await page.getByTestId('excluded-count').textContent()).toBe('0');
    await see('No flag, config or segment uses it.');

    await page.getByRole('link', { name: 'Segments', exact: true }).click();
    const row = page.getByTestId('segments').getByRole('row', { name: /beta-testers/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('Beta testers');
    await screenshot(page, 'lifecycle-01-segments');
  });

  it('uses the segment in three flags’ rules; "does this user get it?" answers by membership', async () => {
    for (const key of ['beta-search', 'beta-export', 'beta-themes']) {
      await page.goto(`${envUrl}/flags/${key}`);
      await button('Edit rules').click();
      await button('Add rule').click();
      const rule = page.getByRole('group', { name: 'Rule 1', exact: true });
      await rule.getByRole('button', { name: 'Add condition' }).click();
      await rule.getByLabel('Operator').selectOption('in_segment');
      // A segment condition tests the project's target-ID field unless told otherwise.
      expect(await rule.getByLabel('Attribute').inputValue()).toBe('userId');
      await rule.getByLabel('Segments').selectOption(['beta-testers']);
      await rule.getByLabel('Value (JSON)').fill('true');
      await button('Save rules').click();
      await page.getByRole('heading', { name: 'Rules (1)' }).waitFor();
      await page.locator('ol.rules').getByText('is in segment').waitFor();
    }

    // The last flag page: user-1 is included, user-9 is not.
    await page.getByLabel('Value of userId to check').fill('user-1');
    await button('Check').click();
    const answer = page.getByTestId('who-answer');
    await answer.waitFor();
    expect(await answer.textContent()).toContain('user-1 gets true');
    expect(await page.getByTestId('who-reason').textContent()).toBe('(Rule 1)');
    await page.getByLabel('Value of userId to check').fill('user-9');
    await button('Check').click();
    await page.getByText('user-9 gets false').waitFor();
    expect(await page.getByTestId('who-reason').textContent()).toBe('(Base value (no rule matched))');
    await screenshot(page, 'lifecycle-02-segment-rule');

    // The server agrees for the same contexts.
    const evaluated = await owner.session.evaluate({ path: { envId: envUrl.split('/e/')[1]! }, body: { context: { userId: 'user-1' }, keys: ['beta-themes'] } });
    expect(evaluated.results['beta-themes']?.value).toBe(true);
  });

  it('lists the segment’s referrers and refuses its delete with them; a rule closing a cycle is refused with the cycle', async () => {
    await owner.session.createSegment({
      path: { id: projectId },
      body: { key: 'staff', name: 'Staff', rules: [{ conditions: [{ attribute: 'userId', operator: 'in_segment', values: ['beta-testers'] }] }] },
    });
    await page.goto(`${projectUrl}/segments/beta-testers`);
    const referrers = page.getByTestId('referrers');
    await referrers.getByText('beta-themes').waitFor();
    expect((await referrers.getByRole('listitem').allTextContents()).sort()).toEqual(['flag beta-export', 'flag beta-search', 'flag beta-themes', 'segment staff']);

    await button('Delete segment…').click();
    await page.getByLabel('Type beta-testers to confirm').fill('beta-testers');
    await button('Delete segment for good').click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Still in use by' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('flag beta-search');
    expect(await refusal.textContent()).toContain('segment staff');
    await button('Cancel').click();

    await button('Edit rules').click();
    await button('Add rule').click();
    const rule = page.getByRole('group', { name: 'Rule 1', exact: true });
    await rule.getByLabel('Operator').selectOption('in_segment');
    await rule.getByLabel('Segments').selectOption(['staff']);
    await button('Save rules').click();
    const cycle = page.getByRole('alert').filter({ hasText: 'The cycle' });
    await cycle.waitFor();
    expect(await cycle.textContent()).toContain('beta-testers → staff → beta-testers');
    await screenshot(page, 'lifecycle-03-segment-refusals');
    await button('Cancel').click();
  });

  it('edits a flag’s details under If-Match: a change made meanwhile asks for a reload', async () => {
    await page.goto(`${envUrl}/flags/beta-search`);
    await button('Edit details').click();
    await owner.session.updateFlag({ path: { id: projectId, key: 'beta-search' }, body: { description: 'Changed by someone else' } });
    await field('Tags').fill('team:search, beta');
    await field('Maintainer').fill('search-team');
    await button('Save details').click();
    await see('Someone else changed this flag since you opened it.');
    expect(problems.httpErrors).toContain(412);

    await button('Reload it').click();
    await see('Changed by someone else');
    await button('Edit details').click();
    await field('Tags').fill('team:search, beta');
    await field('Maintainer').fill('search-team');
    await button('Save details').click();
    await page.getByRole('list', { name: 'Tags' }).getByText('team:search').waitFor();
    await see('search-team');
    const flag = await owner.session.getFlag({ path: { id: projectId, key: 'beta-search' } });
    expect(flag).toMatchObject({ tags: ['team:search', 'beta'], maintainer: 'search-team', description: 'Changed by someone else' });

    // The project's list shows tags and filters by one.
    await page.goto(projectUrl);
    await page.getByRole('list', { name: 'Tags of beta-search' }).waitFor();
    await page.getByLabel('Filter by tag').selectOption('team:search');
    await page.waitForURL(/tag=team%3Asearch/);
    await page.getByTestId('flag-matrix').getByRole('link', { name: 'beta-search' }).waitFor();
    expect(await page.getByTestId('flag-matrix').getByRole('link', { name: /^beta-/ }).count()).toBe(1);
    await page.getByLabel('Filter by tag').selectOption('');
    await page.getByRole('cell', { name: /beta-export/ }).first().waitFor();
  });

  it('refuses to archive a flag with a live rollout, naming it', async () => {
    await page.goto(`${envUrl}/flags/new-checkout`);
    await button('Archive flag').click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Still in use by' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('a live rollout in production');
    expect(await button('Archive flag').isDisabled()).toBe(true);
    expect(problems.httpErrors).toContain(409);
  });

  it('archives a flag, hides it unless "Show archived", and deletes it with its key typed', async () => {
    await page.goto(`${envUrl}/flags/old-banner`);
    await button('Archive flag').click();
    await see('This flag is archived');
    await page.getByLabel('Value of userId to check').fill('user-1');
    await button('Check').click();
    expect(await page.getByTestId('who-reason').textContent()).toBe('(Base value (archived))');

    await page.goto(projectUrl);
    await page.getByRole('cell', { name: /beta-search/ }).first().waitFor();
    expect(await page.getByText('old-banner').count()).toBe(0);
    await page.getByLabel('Show archived').check();
    const archivedRow = page.getByTestId('flag-matrix').getByRole('row', { name: /old-banner/ });
    await archivedRow.waitFor();
    expect(await archivedRow.textContent()).toContain('Archived');
    await screenshot(page, 'lifecycle-04-show-archived');

    await archivedRow.getByRole('link', { name: 'old-banner' }).click();
    await page.waitForURL(/\/flags\/old-banner$/);
    await button('Delete flag…').click();
    const confirm = page.getByLabel('Type old-banner to confirm');
    await confirm.fill('old-banne');
    expect(await button('Delete flag for good').isDisabled()).toBe(true);
    await confirm.fill('old-banner');
    await button('Delete flag for good').click();
    await page.waitForURL(projectUrl);
    await page.getByRole('cell', { name: /beta-search/ }).first().waitFor();
    expect(await page.getByText('old-banner').count()).toBe(0);
    const listed = await owner.session.listFlags({ path: { id: projectId }, query: { archived: 'include' } });
    expect(listed.map((f) => f.key)).not.toContain('old-banner');
  });

  it('shows stale flags: new at first, not evaluated once the clock has moved on', async () => {
    await page.goto(projectUrl);
    await page.getByRole('link', { name: 'Stale flags' }).click();
    await page.waitForURL(`${projectUrl}/insights`);
    const row = page.locator('tr[data-key="beta-export"]');
    await row.waitFor();
    expect(await row.getByTestId('insight-status').textContent()).toBe('New');
    expect(await row.textContent()).toContain('never');

    await t.advanceClock(8 * DAY);
    await page.reload();
    await row.getByTestId('insight-status').filter({ hasText: 'Not evaluated' }).waitFor();
    await page.getByLabel('Status').selectOption('not_evaluated');
    await page.waitForURL(/status=not_evaluated/);
    await page.locator('tr[data-key="beta-search"]').waitFor();
    const statuses = await page.getByTestId('insight-status').allTextContents();
    expect(new Set(statuses)).toEqual(new Set(['Not evaluated']));
    await screenshot(page, 'lifecycle-05-stale-flags');
  });

  it('shows a flag nobody evaluated for 30 days and no code uses as safe to remove, with each repository\'s check', async () => {
    // 8 days have passed: 23 more, in steps shorter than a session's 14 days (each request renews it).
    await t.advanceClock(12 * DAY);
    await page.reload();
    await owner.session.whoami();
    await t.advanceClock(11 * DAY);
    await owner.session.reportCodeReferences({
      path: { id: projectId },
      body: {
        repository: 'acme/web',
        commit: 'abc123def456',
        checks: [
          { kind: 'flag', key: 'beta-export', references: 0, locations: [] },
          { kind: 'flag', key: 'beta-search', references: 2, locations: ['src/search.ts:12', 'src/app.ts:40'] },
        ],
      },
    });
    await page.goto(`${envUrl}/flags/beta-export`);
    const evidence = page.getByTestId('removal-evidence');
    await evidence.filter({ hasText: 'Safe to remove.' }).waitFor();
    expect(await evidence.textContent()).toMatch(/No evaluation in any environment for 30 days.*acme\/web at abc123def456, type-checked .*: no use/);
    await screenshot(page, 'lifecycle-06-safe-to-remove');
    await page.goto(`${envUrl}/flags/beta-search`);
    await evidence.filter({ hasText: 'not proven unused' }).waitFor();
    expect(await evidence.textContent()).toContain('2 uses (src/search.ts:12, src/app.ts:40)');
  });

  it('creates a webhook subscription (secret shown once), sends a test event and sees it delivered in the log', async () => {
    await page.goto(projectUrl);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.waitForURL(`${projectUrl}/webhooks`);
    await see('No webhook subscriptions yet.');
    await button('New subscription').click();
    await field('Name').fill('Ops receiver');
    await field('URL').fill(receiver.url);
    await page.getByRole('checkbox', { name: /Flag archived/ }).check();
    await button('Create subscription').click();
    const secret = (await page.getByTestId('webhook-secret').locator('code.secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await button('Copy secret').waitFor();
    await screenshot(page, 'lifecycle-06-webhook-secret');

    const card = page.getByTestId('webhook-subscription').filter({ hasText: 'Ops receiver' });
    expect(await card.textContent()).toContain('Flag archived');
    await card.getByRole('button', { name: 'Send test event' }).click();
    await card.getByText('Test event queued').waitFor();
    await card.getByTestId('deliveries').getByText('webhook.test').waitFor();

    await t.advanceClock(0); // the delivery worker's turn
    await card.getByRole('button', { name: 'Refresh' }).click();
    const delivered = card.locator('tr[data-event="webhook.test"]');
    await delivered.getByText('Delivered').waitFor();
    expect(await delivered.textContent()).toContain('200');
    await screenshot(page, 'lifecycle-07-delivery-log');

    // The receiver got it signed with the secret the page showed.
    expect(receiver.bodies.length).toBe(1);
    const event = new Webhook(secret).verify(receiver.bodies[0]!, receiver.headers[0]!) as { type: string };
    expect(event.type).toBe('webhook.test');

    // Disable, then delete with confirmation.
    await card.getByRole('button', { name: 'Disable' }).click();
    await card.getByText('Disabled').waitFor();
    await card.getByRole('button', { name: 'Delete…' }).click();
    await card.getByRole('button', { name: 'Delete “Ops receiver” and its log' }).click();
    await see('No webhook subscriptions yet.');
  });

  it('deletes an environment from its danger zone with its key typed, then shows the project', async () => {
    await page.goto(`${projectUrl}/e/${stagingId}`);
    await button('Delete environment…').click();
    await page.getByLabel('Type staging to confirm').fill('staging');
    await button('Delete environment for good').click();
    await page.waitForURL(projectUrl);
    await page.getByRole('link', { name: /Production/ }).first().waitFor();
    expect(await page.getByRole('link', { name: /Staging/ }).count()).toBe(0);
  });

  it('deletes the project from its danger zone with its key typed, then shows the organization’s projects', async () => {
    await page.goto(projectUrl);
    await button('Delete project…').click();
    await page.getByLabel('Type web to confirm').fill('web');
    await button('Delete project for good').click();
    await page.waitForURL(`${t.server.url}/app/o/${owner.orgSlug}`);
    await see('No projects yet');
    expect(await owner.session.listProjects({ path: { slug: owner.orgSlug } })).toEqual([]);
  });

  it('logged no page errors', () => {
    expect(problems.errors).toEqual([]);
  });
});
