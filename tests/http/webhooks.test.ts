import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type GradualClient } from '@gradual/sdk';
import { loadConfig } from '../../server/src/config.js';
import { openDatabase, type Database } from '../../server/src/db/database.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { SettableClock } from '../../server/src/clock.js';
import { RETRY_DELAYS_SECONDS } from '../../server/src/features/webhooks/worker.js';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/** What the receiver got: each request verified with the independent standardwebhooks library. */
interface Received {
  path: string;
  id: string;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

interface Receiver {
  url: string;
  received: Received[];
  /** Requests whose signature did not verify (must stay empty). */
  unverified: string[];
  /** The signing secret of the subscription posting to `path`. */
  secrets: Map<string, string>;
  /** The status to answer the nth request (1-based) to `path`; 200 when unset. */
  answers: Map<string, (n: number) => number>;
  /** Paths whose requests get no answer until release() (a tarpit, when never released). */
  holding: Set<string>;
  /** Requests held unanswered now. */
  held(): number;
  /** Whether a request to `path` is held unanswered now. */
  holds(path: string): boolean;
  /** Answers every held request. */
  release(): void;
  /** The most requests to `path` that were open at once. */
  maxOpen(path: string): number;
  on(path: string): Received[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const unverified: string[] = [];
  const secrets = new Map<string, string>();
  const answers = new Map<string, (n: number) => number>();
  const counts = new Map<string, number>();
  const holding = new Set<string>();
  const held: Array<{ path: string; answer: () => void }> = [];
  const open = new Map<string, number>();
  const maxOpen = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    open.set(path, (open.get(path) ?? 0) + 1);
    maxOpen.set(path, Math.max(maxOpen.get(path) ?? 0, open.get(path)!));
    res.on('close', () => open.set(path, open.get(path)! - 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const secret = secrets.get(path);
      try {
        if (!secret) throw new Error(`no secret for ${path}`);
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        const body = new Webhook(secret).verify(raw, headers) as Record<string, unknown>;
        received.push({
          path,
          id: String(req.headers['webhook-id']),
          body,
          headers: req.headers,
        });
      } catch (err) {
        unverified.push(`${path}: ${(err as Error).message}`);
      }
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const answer = () => {
        res.statusCode = answers.get(path)?.(n) ?? 200;
        res.end(res.statusCode >= 300 ? 'receiver says no' : 'ok');
      };
      if (holding.has(path)) held.push({ path, answer });
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    unverified,
    secrets,
    answers,
    holding,
    held: () => held.length,
    holds: (path) => held.some((h) => h.path === path),
    release: () => held.splice(0).forEach((h) => h.answer()),
    maxOpen: (path) => maxOpen.get(path) ?? 0,
    on: (path) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const ALLOW_LOCAL = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
  WEBHOOK_ALLOW_HTTP: '1',
};

async function moveClock(url: string, body: object): Promise<Date> {
  const res = await fetch(`${url}/__test__/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`clock move failed: ${res.status}`);
  return new Date(((await res.json()) as { now: string }).now);
}

/** Waits for something a receiver sees (never for the worker's schedule, which the clock drives); fails after `ms`. */
async function until(what: string, condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Another server on the same database (PGlite: the same Database object), with its own test clock. */
async function secondServer(db: Database, env: Record<string, string> = {}): Promise<RunningServer> {
  return startServer({
    config: loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      SERVICE_TEST_CLOCK: '1',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      ...env,
    }),
    db,
    logger: pino({ level: 'silent' }),
  });
}

describe('outbound webhooks', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let receiver: Receiver;
  let projectId: string;
  let envId: string;
  let api: GradualClient;

  /** A subscription posting to the receiver's `path`; its secret is handed to the receiver. */
  const subscribe = async (path: string, body: Partial<Parameters<GradualClient['createWebhookSubscription']>[0]['body']> = {}) => {
    const created = await api.createWebhookSubscription({
      path: { id: projectId },
      body: {
        name: path,
        url: `${receiver.url}${path}`,
        events: ['rollout.created'],
        ...body,
      },
    });
    receiver.secrets.set(path, created.secret);
    return created;
  };
  const deliveries = (
    subscriptionId: string,
    query: {
      status?: 'pending' | 'succeeded' | 'failed' | 'dropped';
      cursor?: string;
      limit?: number;
    } = {}
  ) =>
    api.listWebhookDeliveries({
      path: { id: projectId, subscriptionId },
      query,
    });
  const deliver = () => t.advanceClock(0);

  beforeAll(async () => {
    t = await startTestServer(ALLOW_LOCAL);
    await t.setClock(new Date()); // pinned: the log's times are exact
    owner = await claim(t);
    api = owner.session;
    receiver = await startReceiver();
    const project = await api.createProject({
      path: { slug: 'acme' },
      body: { key: 'web', name: 'Web' },
    });
    projectId = project.id;
    envId = (
      await api.createEnvironment({
        path: { id: projectId },
        body: { key: 'production', name: 'Production' },
      })
    ).id;
    await api.createFlag({
      path: { id: projectId },
      body: { key: 'new-checkout', name: 'New checkout', defaultValue: false },
    });
    await api.createRolloutPlan({
      path: { id: projectId },
      body: {
        key: 'ramp',
        name: 'Ramp',
        cadence: 'auto',
        rampSteps: [
          { percent: 5, holdForSeconds: 60 },
          { percent: 25, holdForSeconds: 60 },
          { percent: 100, holdForSeconds: 0 },
        ],
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('creates, lists, reads, changes and deletes subscriptions; the secret is shown once and never audited', async () => {
    const created = await subscribe('/crud', {
      events: ['rollout.paused', 'rollout.paused'],
      format: 'slack',
    });
    expect(created).toMatchObject({
      projectId,
      name: '/crud',
      url: `${receiver.url}/crud`,
      events: ['rollout.paused'],
      format: 'slack',
      enabled: true,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    const { secret: _secret, ...dto } = created;
    expect(
      await api.getWebhookSubscription({
        path: { id: projectId, subscriptionId: created.id },
      })
    ).toEqual(dto);
    expect((await api.listWebhookSubscriptions({ path: { id: projectId } })).map((s) => s.id)).toContain(created.id);

    const updated = await api.updateWebhookSubscription({
      path: { id: projectId, subscriptionId: created.id },
      body: { enabled: false, events: ['rollout.resumed'] },
    });
    expect(updated).toMatchObject({
      enabled: false,
      events: ['rollout.resumed'],
      format: 'slack',
    });
    // The same values again: nothing changes, nothing is audited.
    await api.updateWebhookSubscription({
      path: { id: projectId, subscriptionId: created.id },
      body: { enabled: false },
    });
    await api.deleteWebhookSubscription({
      path: { id: projectId, subscriptionId: created.id },
    });
    await expectApiError(
      api.getWebhookSubscription({
        path: { id: projectId, subscriptionId: created.id },
      }),
      404,
      'not_found'
    );

    const { events } = await api.listAuditEvents({
      path: { slug: 'acme' },
      query: { resourceType: 'webhook' },
    });
    expect(events.map((e) => e.action)).toEqual(['webhook.deleted', 'webhook.updated', 'webhook.created']);
    for (const e of events) {
      const detail = JSON.stringify(await api.getAuditEvent({ path: { id: e.id } }));
      expect(detail).not.toContain(created.secret);
      expect(detail).not.toContain('whsec_');
    }
  });

  it('refuses bad URLs and unknown ids with precise errors', async () => {
    const create = (url: string) =>
      api.createWebhookSubscription({
        path: { id: projectId },
        body: { name: 'x', url, events: ['rollout.created'] },
      });
    expect((await expectApiError(create('ftp://example.com/x'), 400, 'invalid_request')).fields).toHaveProperty('url');
    expect((await expectApiError(create('https://user:pw@example.com/x'), 400, 'invalid_request')).fields).toHaveProperty('url');
    await expectApiError(
      api.getWebhookSubscription({
        path: { id: projectId, subscriptionId: 'nope' },
      }),
      404,
      'not_found'
    );
    await expectApiError(
      api.listWebhookDeliveries({
        path: {
          id: projectId,
          subscriptionId: '00000000-0000-4000-8000-000000000000',
        },
      }),
      404,
      'not_found'
    );
    // A subscription is found only under its own project.
    const other = await api.createProject({ path: { slug: 'acme' }, body: { key: 'other', name: 'Other' } });
    const sub = await subscribe('/elsewhere');
    await expectApiError(api.getWebhookSubscription({ path: { id: other.id, subscriptionId: sub.id } }), 404, 'not_found');
    await expectApiError(api.testWebhookSubscription({ path: { id: other.id, subscriptionId: sub.id } }), 404, 'not_found');
    await expectApiError(api.deleteWebhookSubscription({ path: { id: other.id, subscriptionId: sub.id } }), 404, 'not_found');
    await api.deleteWebhookSubscription({ path: { id: projectId, subscriptionId: sub.id } });
  });

  it('sends signed rollout events in order, with their data, as the rollout moves; Slack gets its one-line summary', async () => {
    const all = await subscribe('/rollouts', {
      events: ['rollout.created', 'rollout.advanced', 'rollout.paused', 'rollout.resumed', 'rollout.completed', 'rollout.rolled_back'],
    });
    await subscribe('/slack', {
      events: ['rollout.advanced'],
      format: 'slack',
    });
    const off = await subscribe('/disabled', {
      events: ['rollout.created'],
      enabled: false,
    });

    const path = { envId, key: 'new-checkout' };
    await api.putFlagRollout({
      path,
      body: { percent: 5, newValue: true, planKey: 'ramp' },
    });
    // Queued with the change, sent later: nothing arrives before the worker runs.
    expect(receiver.on('/rollouts')).toHaveLength(0);
    expect((await deliveries(all.id)).items).toMatchObject([{ eventType: 'rollout.created', status: 'pending', attempts: 0 }]);
    await t.advanceClock(61); // the scheduler's step to 25 %, then the worker
    await api.pauseFlagRollout({
      path,
      headers: { 'x-audit-reason': 'errors up' },
    });
    await deliver();
    await api.resumeFlagRollout({ path });
    await deliver();
    await api.rollbackFlagRollout({
      path,
      headers: { 'x-audit-reason': 'alert fired' },
    });
    await deliver();

    const got = receiver.on('/rollouts');
    expect(receiver.unverified).toEqual([]);
    expect(got.map((r) => r.body.type)).toEqual(['rollout.created', 'rollout.advanced', 'rollout.paused', 'rollout.resumed', 'rollout.rolled_back']);
    const data = got.map(
      (r) =>
        r.body.data as Record<string, unknown> & {
          rollout: Record<string, unknown>;
          version: number;
        }
    );
    for (const d of data) {
      expect(d).toMatchObject({
        orgSlug: 'acme',
        projectId,
        projectKey: 'web',
        envId,
        envKey: 'production',
        resourceType: 'rollout',
        resourceKey: 'new-checkout',
      });
      expect(typeof d.version).toBe('number');
    }
    expect(data.map((d) => d.version)).toEqual([...data.map((d) => d.version)].sort((a, b) => a - b));
    expect(data[0]).toMatchObject({
      action: 'rollout.created',
      actor: { type: 'user', id: owner.userId, email: 'owner@example.com' },
      rollout: { percent: 5, status: 'active' },
    });
    expect(data[1]).toMatchObject({
      action: 'rollout.advanced',
      actor: { type: 'system' },
      rollout: { percent: 25 },
    });
    expect(data[2]).toMatchObject({
      action: 'rollout.paused',
      pausedReason: 'user',
      reason: 'errors up',
      rollout: { status: 'paused' },
    });
    expect(data[3]).toMatchObject({
      action: 'rollout.resumed',
      rollout: { status: 'active', percent: 25 },
    });
    expect(data[4]).toMatchObject({
      action: 'rollout.rolled_back',
      reason: 'alert fired',
      rollout: { percent: 0, rolledBackFromPercent: 25 },
    });
    // Headers per Standard Webhooks; the id is the delivery's, and the log says delivered.
    const log = (await deliveries(all.id)).items;
    expect(log.map((d) => d.id).reverse()).toEqual(got.map((r) => r.id));
    expect(log.every((d) => d.status === 'succeeded' && d.attempts === 1 && d.responseStatus === 200 && d.nextAttemptAt === null)).toBe(true);
    expect(got[0]!.headers['content-type']).toBe('application/json');
    expect(got[0]!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    expect(receiver.on('/slack').map((r) => r.body)).toEqual([
      {
        text: 'Rollout of new-checkout in production advanced to 25%',
        blocks: [
          {
            type: 'section',
            text: {
              type: 'mrkdwn',
              text: '*Rollout of new-checkout in production advanced to 25%*',
            },
          },
          {
            type: 'context',
            elements: [{ type: 'mrkdwn', text: 'acme / web · by the scheduler' }],
          },
        ],
      },
    ]);
    expect(receiver.on('/disabled')).toHaveLength(0);
    expect((await deliveries(off.id)).items).toEqual([]);
    await api.deleteFlagRollout({ path });
  });

  it('sends proposal events (recorded through the unit of work) in the same transaction as the proposal', async () => {
    const sub = await subscribe('/proposals', {
      events: ['proposal.created', 'proposal.approved', 'proposal.rejected'],
    });
    const key = await api.createApiKey({
      path: { slug: 'acme' },
      body: { name: 'needs-approval', requiresApproval: true },
    });
    const agent = t.asToken(key.token);
    const path = { envId, key: 'new-checkout' };
    const first = await agent.withResponse.putFlagRollout({
      path,
      body: { percent: 10, newValue: true },
    });
    const second = await agent.withResponse.putFlagRollout({
      path,
      body: { percent: 20, newValue: true },
    });
    if (first.data.kind !== 'proposed' || second.data.kind !== 'proposed') throw new Error('expected proposals');
    await api.applyProposal({ path: { id: first.data.proposal.id } });
    await api.cancelProposal({ path: { id: second.data.proposal.id } });
    await deliver();
    const got = receiver.on('/proposals');
    expect(got.map((r) => r.body.type)).toEqual(['proposal.created', 'proposal.created', 'proposal.approved', 'proposal.rejected']);
    expect(got[2]!.body.data).toMatchObject({
      action: 'proposal.applied',
      resourceType: 'proposal',
      resourceKey: 'new-checkout',
      proposal: { id: first.data.proposal.id },
    });
    expect((await deliveries(sub.id, { status: 'succeeded' })).items).toHaveLength(4);
    // An approval-required key cannot manage webhooks.
    await expectApiError(
      agent.createWebhookSubscription({
        path: { id: projectId },
        body: {
          name: 'k',
          url: `${receiver.url}/k`,
          events: ['rollout.created'],
        },
      }),
      403,
      'approval_not_supported'
    );
    await api.deleteFlagRollout({ path });
  });

  it('sends flag lifecycle events (archived, deleted) with the definition', async () => {
    await subscribe('/lifecycle', { events: ['flag.archived', 'flag.deleted', 'config.archived'] });
    await api.createFlag({ path: { id: projectId }, body: { key: 'old-banner', name: 'Old banner', defaultValue: false } });
    await api.archiveFlag({ path: { id: projectId, key: 'old-banner' } });
    await api.deleteFlag({ path: { id: projectId, key: 'old-banner' }, body: { confirm: 'old-banner' } });
    await deliver();
    const got = receiver.on('/lifecycle');
    expect(got.map((r) => r.body.type)).toEqual(['flag.archived', 'flag.deleted']);
    expect(got[0]!.body.data).toMatchObject({
      resourceType: 'flag',
      resourceKey: 'old-banner',
      envId: null,
      projectKey: 'web',
      flag: { archivedAt: expect.any(String) },
    });
    expect(got[1]!.body.data).toMatchObject({ action: 'flag.deleted', flag: { key: 'old-banner', name: 'Old banner' } });
  });

  it('retries a failing receiver with backoff until it answers 2xx, recording every attempt', async () => {
    const sub = await subscribe('/flaky');
    receiver.answers.set('/flaky', (n) => (n <= 2 ? 500 : 204));
    const queued = await api.testWebhookSubscription({
      path: { id: projectId, subscriptionId: sub.id },
    });
    expect(queued).toMatchObject({
      status: 'pending',
      eventType: 'webhook.test',
    });
    const now = await deliver();
    let [d] = (await deliveries(sub.id)).items;
    expect(d).toMatchObject({
      id: queued.id,
      status: 'pending',
      attempts: 1,
      responseStatus: 500,
      lastError: 'HTTP 500: receiver says no',
    });
    const due = Date.parse(d!.nextAttemptAt!) - now.getTime();
    expect(due).toBeGreaterThanOrEqual(RETRY_DELAYS_SECONDS[0] * 1000);
    expect(due).toBeLessThanOrEqual(RETRY_DELAYS_SECONDS[0] * 1200);
    await t.advanceClock(1); // not due yet
    expect((await deliveries(sub.id)).items[0]!.attempts).toBe(1);
    await t.advanceClock(RETRY_DELAYS_SECONDS[0] * 1.2);
    [d] = (await deliveries(sub.id)).items;
    expect(d).toMatchObject({
      status: 'pending',
      attempts: 2,
      responseStatus: 500,
    });
    await t.advanceClock(RETRY_DELAYS_SECONDS[1] * 1.2);
    [d] = (await deliveries(sub.id)).items;
    expect(d).toMatchObject({
      status: 'succeeded',
      attempts: 3,
      responseStatus: 204,
      lastError: null,
      nextAttemptAt: null,
    });
    // The same webhook-id on every attempt, each one signed.
    expect(receiver.on('/flaky').map((r) => r.id)).toEqual([queued.id, queued.id, queued.id]);
    expect(receiver.unverified).toEqual([]);
  });

  it('gives up after the last attempt: failed, no further retries', async () => {
    const sub = await subscribe('/down');
    receiver.answers.set('/down', () => 503);
    await api.testWebhookSubscription({
      path: { id: projectId, subscriptionId: sub.id },
    });
    await deliver();
    for (const delay of RETRY_DELAYS_SECONDS) await t.advanceClock(delay * 1.2 + 1);
    const [d] = (await deliveries(sub.id)).items;
    expect(d).toMatchObject({
      status: 'failed',
      attempts: RETRY_DELAYS_SECONDS.length + 1,
      responseStatus: 503,
      nextAttemptAt: null,
    });
    await t.advanceClock(86_400);
    expect(receiver.on('/down')).toHaveLength(RETRY_DELAYS_SECONDS.length + 1);
    expect((await deliveries(sub.id, { status: 'failed' })).items).toHaveLength(1);
  });

  it('a disabled subscription sends none of its pending retries: they are dropped, logged, and not sent when it is enabled again', async () => {
    const sub = await subscribe('/switched-off');
    receiver.answers.set('/switched-off', () => 500);
    const path = { envId, key: 'new-checkout' };
    await api.putFlagRollout({ path, body: { percent: 5, newValue: true } });
    await deliver();
    const [failed] = (await deliveries(sub.id)).items;
    expect(failed).toMatchObject({ eventType: 'rollout.created', status: 'pending', attempts: 1, responseStatus: 500 });

    await api.updateWebhookSubscription({ path: { id: projectId, subscriptionId: sub.id }, body: { enabled: false } });
    expect((await deliveries(sub.id)).items).toMatchObject([
      { id: failed!.id, status: 'dropped', attempts: 1, nextAttemptAt: null, responseStatus: 500, lastError: 'dropped: the subscription was disabled' },
    ]);
    expect((await deliveries(sub.id, { status: 'dropped' })).items.map((d) => d.id)).toEqual([failed!.id]);
    for (const delay of RETRY_DELAYS_SECONDS.slice(0, 3)) await t.advanceClock(delay * 1.2 + 1);
    await api.updateWebhookSubscription({ path: { id: projectId, subscriptionId: sub.id }, body: { enabled: true } });
    await t.advanceClock(RETRY_DELAYS_SECONDS[3] * 1.2 + 1);
    expect(receiver.on('/switched-off')).toHaveLength(1);
    expect((await deliveries(sub.id)).items.map((d) => d.status)).toEqual(['dropped']);
    await api.deleteFlagRollout({ path });
  });

  it('a re-pointed subscription sends its pending retries to its new URL, signed with its secret; the old URL gets nothing more', async () => {
    const sub = await subscribe('/before');
    receiver.answers.set('/before', () => 500);
    const queued = await api.testWebhookSubscription({ path: { id: projectId, subscriptionId: sub.id } });
    await deliver();
    expect(receiver.on('/before').map((r) => r.id)).toEqual([queued.id]);

    await api.updateWebhookSubscription({ path: { id: projectId, subscriptionId: sub.id }, body: { url: `${receiver.url}/after` } });
    receiver.secrets.set('/after', receiver.secrets.get('/before')!);
    await t.advanceClock(RETRY_DELAYS_SECONDS[0] * 1.2 + 1);
    expect(receiver.on('/after').map((r) => r.id)).toEqual([queued.id]);
    expect(receiver.on('/before')).toHaveLength(1);
    expect((await deliveries(sub.id)).items).toMatchObject([{ id: queued.id, status: 'succeeded', attempts: 2, responseStatus: 200 }]);
    expect(receiver.unverified).toEqual([]);
  });

  it('pages the delivery log newest first, filters it by status and refuses a forged cursor', async () => {
    const sub = await subscribe('/log');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await api.testWebhookSubscription({
            path: { id: projectId, subscriptionId: sub.id },
          })
        ).id
      );
      if (i === 2) await deliver(); // the first three are delivered, the last two stay pending
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    do {
      const page = await deliveries(sub.id, {
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      sizes.push(page.items.length);
      seen.push(...page.items.map((d) => d.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    expect(sizes.slice(0, 3)).toEqual([2, 2, 1]);
    expect((await deliveries(sub.id, { status: 'pending' })).items.map((d) => d.id)).toEqual([ids[4], ids[3]]);
    expect((await deliveries(sub.id, { status: 'succeeded' })).items.map((d) => d.id)).toEqual([ids[2], ids[1], ids[0]]);
    await expectApiError(deliveries(sub.id, { cursor: 'bm90LWEtY3Vyc29y' }), 400, 'invalid_request');
    await deliver();
  });

  it('caps subscriptions per project at 20', async () => {
    const existing = (await api.listWebhookSubscriptions({ path: { id: projectId } })).length;
    for (let i = existing; i < 20; i++) await subscribe(`/quota-${i}`);
    const err = await expectApiError(subscribe('/quota-over'), 403, 'quota_exceeded');
    expect(err.details).toMatchObject({
      dimension: 'webhook_subscriptions_per_project',
      limit: 20,
    });
  });
});

describe('outbound webhooks: private networks refused unless the operator allows them', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let receiver: Receiver;
  let strict: RunningServer | undefined;

  beforeAll(async () => {
    t = await startTestServer(ALLOW_LOCAL);
    owner = await claim(t);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await strict?.close();
    await t?.close();
    await receiver?.close();
  });

  it('refuses literal private addresses at create time, and any private address at delivery (after DNS)', async () => {
    const projectId = (
      await owner.session.createProject({
        path: { slug: 'acme' },
        body: { key: 'p', name: 'P' },
      })
    ).id;
    // A server with the default policy.
    strict = await secondServer(t.server.deps.db);
    const strictApi = createClient({
      baseUrl: strict.url,
      sessionToken: owner.sessionToken,
    });
    const create = (url: string) =>
      strictApi.createWebhookSubscription({
        path: { id: projectId },
        body: { name: 'x', url, events: ['rollout.created'] },
      });
    for (const url of [
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest',
      'https://127.0.0.1:9/x',
      'https://[::1]/x',
      'https://[::ffff:192.168.0.1]/x',
      'https://localhost/x',
    ]) {
      const err = await expectApiError(create(url), 400, 'invalid_request');
      expect(err.fields?.url).toMatch(/private|loopback/);
    }
    // Plain http only where the operator allows it.
    expect((await expectApiError(create('http://example.com/hook'), 400, 'invalid_request')).fields?.url).toMatch(/https/);
    expect(await create('https://example.com/hook')).toMatchObject({
      url: 'https://example.com/hook',
    });

    // Saved where allowed, then delivered by the strict server: refused on connection.
    const sub = await owner.session.createWebhookSubscription({
      path: { id: projectId },
      body: {
        name: 'local',
        url: `${receiver.url}/ssrf`,
        events: ['rollout.created'],
      },
    });
    receiver.secrets.set('/ssrf', sub.secret);
    const queued = await owner.session.testWebhookSubscription({
      path: { id: projectId, subscriptionId: sub.id },
    });
    await moveClock(strict.url, {
      now: (await moveClock(t.server.url, { advanceSeconds: 0 })).toISOString(),
    });
    expect(receiver.received).toHaveLength(1); // the allowing server delivered it
    const again = await owner.session.testWebhookSubscription({
      path: { id: projectId, subscriptionId: sub.id },
    });
    await moveClock(strict.url, { advanceSeconds: 1 });
    const log = await owner.session.listWebhookDeliveries({
      path: { id: projectId, subscriptionId: sub.id },
    });
    const refused = log.items.find((d) => d.id === again.id)!;
    expect(refused).toMatchObject({
      status: 'pending',
      attempts: 1,
      responseStatus: null,
    });
    expect(refused.lastError).toMatch(/not allowed/i);
    expect(log.items.find((d) => d.id === queued.id)).toMatchObject({
      status: 'succeeded',
    });
    expect(receiver.received).toHaveLength(1);
  });
});

describe('outbound webhooks: durable across restarts', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let receiver: Receiver;
  let restarted: RunningServer | undefined;

  beforeAll(async () => {
    t = await startTestServer(ALLOW_LOCAL);
    owner = await claim(t);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await restarted?.close();
    await t?.close();
    await receiver?.close();
  });

  it('delivers what was queued before a restart, and claims again a delivery whose lease a crash left behind', async () => {
    const projectId = (
      await owner.session.createProject({
        path: { slug: 'acme' },
        body: { key: 'p', name: 'P' },
      })
    ).id;
    const sub = await owner.session.createWebhookSubscription({
      path: { id: projectId },
      body: {
        name: 'r',
        url: `${receiver.url}/restart`,
        events: ['rollout.created'],
      },
    });
    receiver.secrets.set('/restart', sub.secret);
    const pending = await owner.session.testWebhookSubscription({
      path: { id: projectId, subscriptionId: sub.id },
    });
    const crashed = await owner.session.testWebhookSubscription({
      path: { id: projectId, subscriptionId: sub.id },
    });
    const now = new Date(crashed.createdAt);
    const db = t.server.deps.db;
    // A crash in mid-delivery: leased for a minute, never recorded.
    await db
      .em()
      .getConnection()
      .execute(`update webhook_deliveries set locked_until = ? where id = ?`, [new Date(now.getTime() + 60_000), crashed.id]);
    await t.server.close();
    expect(receiver.received).toEqual([]);

    restarted = await secondServer(db, ALLOW_LOCAL);
    // The crashed attempt may still be in flight as far as anyone knows: its subscription waits
    // for the lease (one attempt in flight per subscription), then sends both, in order.
    await moveClock(restarted.url, { now: now.toISOString() });
    expect(receiver.received).toEqual([]);
    await moveClock(restarted.url, { advanceSeconds: 61 });
    expect(receiver.received.map((r) => r.id)).toEqual([pending.id, crashed.id]);
    expect(receiver.unverified).toEqual([]);
  });
});

describe('outbound webhooks: one lane per subscription', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let receiver: Receiver;
  const TIMEOUT_MS = 3000;

  beforeAll(async () => {
    t = await startTestServer({ ...ALLOW_LOCAL, WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
    await t.setClock(new Date());
    owner = await claim(t);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('a tarpit receiver holds only its own lane: another organization\'s delivery queued after 60 to the tarpit arrives at once', async () => {
    const api = owner.session;
    const tarpitProject = (await api.createProject({ path: { slug: 'acme' }, body: { key: 'tarpit', name: 'Tarpit' } })).id;
    const tarpits: Array<{ id: string }> = [];
    for (let i = 0; i < 3; i++) {
      const sub = await api.createWebhookSubscription({
        path: { id: tarpitProject },
        body: { name: `tarpit-${i}`, url: `${receiver.url}/tarpit-${i}`, events: ['rollout.created'] },
      });
      receiver.secrets.set(`/tarpit-${i}`, sub.secret);
      receiver.holding.add(`/tarpit-${i}`); // never answered: every attempt runs into the timeout
      tarpits.push(sub);
    }
    for (let n = 0; n < 20; n++) {
      await Promise.all(tarpits.map((sub) => api.testWebhookSubscription({ path: { id: tarpitProject, subscriptionId: sub.id } })));
    }
    await api.createOrg({ body: { slug: 'healthy', name: 'Healthy' } });
    const healthyProject = (await api.createProject({ path: { slug: 'healthy' }, body: { key: 'web', name: 'Web' } })).id;
    const healthy = await api.createWebhookSubscription({
      path: { id: healthyProject },
      body: { name: 'healthy', url: `${receiver.url}/healthy`, events: ['rollout.created'] },
    });
    receiver.secrets.set('/healthy', healthy.secret);
    const queued = await api.testWebhookSubscription({ path: { id: healthyProject, subscriptionId: healthy.id } });

    const started = Date.now();
    const pass = t.advanceClock(0); // not awaited: the tarpits' queues keep this pass busy for minutes
    await until('the healthy delivery', () => receiver.on('/healthy').length > 0, 10 * TIMEOUT_MS);
    const elapsed = Date.now() - started;
    expect(receiver.on('/healthy').map((r) => r.id)).toEqual([queued.id]);
    expect(elapsed).toBeLessThan(TIMEOUT_MS / 2);
    // Each tarpit has one attempt in flight, never more.
    await until('an attempt to each tarpit', () => tarpits.every((_, i) => receiver.on(`/tarpit-${i}`).length > 0));
    expect(tarpits.map((_, i) => receiver.maxOpen(`/tarpit-${i}`))).toEqual([1, 1, 1]);

    // Deleting the tarpits ends the pass once the attempts in flight have timed out.
    for (const sub of tarpits) await api.deleteWebhookSubscription({ path: { id: tarpitProject, subscriptionId: sub.id } });
    await pass;
    expect(receiver.unverified).toEqual([]);
  });
});

describe('outbound webhooks: pending deliveries capped per subscription', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let receiver: Receiver;
  const CAP = 5;

  beforeAll(async () => {
    t = await startTestServer({ ...ALLOW_LOCAL, WEBHOOK_MAX_PENDING_PER_SUBSCRIPTION: String(CAP) });
    await t.setClock(new Date());
    owner = await claim(t);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('drops the oldest pending deliveries beyond the cap and says so in the delivery log, however many test calls arrive at once', async () => {
    const api = owner.session;
    const projectId = (await api.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    const envId = (await api.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } })).id;
    await api.createFlag({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', defaultValue: false } });
    const sub = await api.createWebhookSubscription({
      path: { id: projectId },
      body: { name: 'capped', url: `${receiver.url}/capped`, events: ['rollout.created'] },
    });
    receiver.secrets.set('/capped', sub.secret);
    const log = (status: 'pending' | 'succeeded' | 'dropped') =>
      api.listWebhookDeliveries({ path: { id: projectId, subscriptionId: sub.id }, query: { status, limit: 200 } });

    // 12 test calls at once: the subscription's lock makes them take turns, so 5 stay pending.
    const queued = await Promise.all(Array.from({ length: 12 }, () => api.testWebhookSubscription({ path: { id: projectId, subscriptionId: sub.id } })));
    const ids = queued.map((d) => d.id).sort(); // msg_ and a time-ordered UUID: oldest first
    expect((await log('pending')).items.map((d) => d.id)).toEqual(ids.slice(7).reverse());
    const dropped = (await log('dropped')).items;
    expect(dropped.map((d) => d.id)).toEqual(ids.slice(0, 7).reverse());
    for (const d of dropped) {
      expect(d).toMatchObject({ status: 'dropped', attempts: 0, nextAttemptAt: null });
      expect(d.lastError).toBe(`dropped: more than ${CAP} deliveries were pending for this subscription; the oldest are dropped`);
    }

    // Events queued by changes (in the change's transaction) are held to the cap by the worker's sweep before it sends.
    const path = { envId, key: 'banner' };
    for (let i = 0; i < 3; i++) {
      await api.putFlagRollout({ path, body: { percent: 5, newValue: true } });
      await api.deleteFlagRollout({ path });
    }
    await t.advanceClock(10);
    expect((await log('pending')).items).toEqual([]);
    expect((await log('dropped')).items.map((d) => d.id)).toEqual(ids.slice(0, 10).reverse());
    const sent = receiver.on('/capped');
    expect(sent.map((r) => r.body.type)).toEqual(['webhook.test', 'webhook.test', 'rollout.created', 'rollout.created', 'rollout.created']);
    expect(sent.slice(0, 2).map((r) => r.id)).toEqual(ids.slice(10));
    expect((await log('succeeded')).items).toHaveLength(CAP);
  });
});

describe('outbound webhooks: two instances on one database', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let receiver: Receiver;
  let db: Database | undefined;
  let second: RunningServer | undefined;

  beforeAll(async () => {
    t = await startTestServer(ALLOW_LOCAL);
    owner = await claim(t);
    receiver = await startReceiver();
    // PostgreSQL: a pool of its own, as another process would have; embedded: the one database.
    db = process.env.DATABASE_URL ? await openDatabase({ ...t.databaseOptions, migrate: false }) : undefined;
    second = await secondServer(db ?? t.server.deps.db, ALLOW_LOCAL);
  });
  afterAll(async () => {
    await second?.close();
    await db?.close();
    await t?.close();
    await receiver?.close();
  });

  it('deliver each event once', async () => {
    const api = owner.session;
    const projectId = (await api.createProject({ path: { slug: 'acme' }, body: { key: 'p', name: 'P' } })).id;
    const subs: Array<{ id: string }> = [];
    for (let i = 0; i < 4; i++) {
      const sub = await api.createWebhookSubscription({
        path: { id: projectId },
        body: { name: `two-${i}`, url: `${receiver.url}/two-${i}`, events: ['rollout.created'] },
      });
      receiver.secrets.set(`/two-${i}`, sub.secret);
      subs.push(sub);
    }
    const ids: string[] = [];
    for (let n = 0; n < 30; n++) {
      const queued = await Promise.all(subs.map((sub) => api.testWebhookSubscription({ path: { id: projectId, subscriptionId: sub.id } })));
      ids.push(...queued.map((d) => d.id));
    }
    // Both instances' workers at once, twice each: every delivery is due on both.
    const now = new Date(Date.now() + 60_000).toISOString();
    await Promise.all([moveClock(t.server.url, { now }), moveClock(second!.url, { now }), moveClock(t.server.url, { now }), moveClock(second!.url, { now })]);
    const got = receiver.received.filter((r) => r.path.startsWith('/two-')).map((r) => r.id);
    expect(got.sort()).toEqual([...ids].sort());
    expect(receiver.unverified).toEqual([]);
  });

  it('two instances send N events with no duplicate, while each attempt takes a while: a lease covers its attempt, not a batch', async () => {
    const api = owner.session;
    const servers = [t.server, second!];
    const clocks = servers.map((s) => s.deps.clock).filter((c): c is SettableClock => c instanceof SettableClock);
    expect(clocks).toHaveLength(2);
    const projectId = (await api.createProject({ path: { slug: 'acme' }, body: { key: 'slow', name: 'Slow' } })).id;
    const start = new Date(Date.now() + 3_600_000);
    await Promise.all(servers.map((s) => moveClock(s.url, { now: start.toISOString() })));
    const queues = new Map<string, string[]>();
    const subscriptions = new Map<string, string>();
    for (let i = 0; i < 4; i++) {
      const sub = await api.createWebhookSubscription({
        path: { id: projectId },
        body: { name: `slow-${i}`, url: `${receiver.url}/slow-${i}`, events: ['rollout.created'] },
      });
      receiver.secrets.set(`/slow-${i}`, sub.secret);
      receiver.holding.add(`/slow-${i}`);
      subscriptions.set(`/slow-${i}`, sub.id);
      const queued: string[] = [];
      for (let n = 0; n < 6; n++) queued.push((await api.testWebhookSubscription({ path: { id: projectId, subscriptionId: sub.id } })).id);
      queues.set(`/slow-${i}`, queued);
    }
    // Every answered attempt is in the delivery log: a real one is recorded within its lease's margin.
    const recorded = async () => {
      for (const [path, subscriptionId] of subscriptions) {
        const { items } = await api.listWebhookDeliveries({ path: { id: projectId, subscriptionId }, query: { status: 'succeeded', limit: 200 } });
        // A subscription has one attempt in flight at most: the one the receiver holds, if any.
        if (items.length < new Set(receiver.on(path).map((r) => r.id)).size - (receiver.holds(path) ? 1 : 0)) return false;
      }
      return true;
    };
    const ids = [...queues.values()].flat();
    const sent = () => receiver.received.filter((r) => r.path.startsWith('/slow-'));
    const delivered = () => new Set(sent().map((r) => r.id)).size === ids.length;
    // Subscriptions with an event the receiver has not seen yet: each has an attempt on its way.
    const waiting = () => [...queues].filter(([path, queued]) => queued.some((id) => !receiver.on(path).some((r) => r.id === id))).map(([path]) => path);

    // Each round, once the attempts answered in the last one are recorded, time moves 20 s on both
    // instances and both workers run; once every attempt on its way has reached the receiver, it
    // answers them all. So each attempt spans one round at most (20 s of service time, under its
    // 40 s lease), as a real one ends within its 10 s timeout and is recorded within the margin.
    const passes: Array<Promise<void>> = [];
    for (let round = 0; round < 30 && !delivered(); round++) {
      for (const deadline = Date.now() + 10_000; !(await recorded()); ) {
        if (Date.now() > deadline) throw new Error('timed out waiting for the answered attempts to be recorded');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      for (const clock of clocks) clock.advance(20);
      passes.push(...servers.map((s) => s.webhooks.tick()));
      await until('every attempt on its way', () => waiting().every((path) => receiver.holds(path)));
      receiver.release();
    }
    receiver.holding.clear();
    receiver.release();
    await Promise.all(passes);

    const counts = new Map<string, number>();
    for (const r of sent()) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
    expect(receiver.unverified).toEqual([]);
  });
});
