import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { LiveOrgChangeEvent } from '@gradual/sdk';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { loadConfig } from '../../server/src/config.js';
import { openDatabase } from '../../server/src/db/database.js';
import { startServer } from '../../server/src/server.js';

interface Change {
  envId: string;
  version: number;
  changes: Array<{ resourceType: string; resourceKey: string | null; action: string }>;
}

/** A server-sent event stream read over fetch: its `ready` data and each `change` event's data, in order. */
async function openEvents(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers } });
  if (res.status !== 200) return { ok: false as const, status: res.status, body: (await res.json()) as { code: string } };
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const events: Array<{ event: string; data: unknown }> = [];
  /** The one read in flight (a read outlives a timed-out wait and is taken up by the next). */
  let reading: Promise<void> | undefined;
  const pump = async (): Promise<void> => {
    const { value, done } = await reader.read();
    if (done) throw new Error('stream ended');
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) events.push({ event, data: JSON.parse(data) });
    }
  };
  /** The next event (of any name), within `timeoutMs`. */
  const next = async (timeoutMs = 1000) => {
    const deadline = Date.now() + timeoutMs;
    while (events.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      reading ??= pump().finally(() => (reading = undefined));
      await Promise.race([reading, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), left)))]).finally(() => clearTimeout(timer));
    }
    return events.shift()!;
  };
  const nextChange = async (timeoutMs?: number) => {
    const e = await next(timeoutMs);
    expect(e.event).toBe('change');
    return e.data as Change;
  };
  /** Nothing arrives within `ms`. */
  const quiet = async (ms: number) => {
    await expect(next(ms)).rejects.toThrow(/no event/);
  };
  /** The next `org-change` event, within `timeoutMs` (events of other names before it are skipped). */
  const nextOrgChange = async (timeoutMs = 1000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await next(Math.max(1, deadline - Date.now()));
      if (e.event === 'org-change') return e.data as LiveOrgChangeEvent;
    }
  };
  /** Every event until none arrives for `quietMs`. */
  const drain = async (quietMs = 300) => {
    const seen: Array<{ event: string; data: unknown }> = [];
    for (;;) {
      try {
        seen.push(await next(quietMs));
      } catch (err) {
        if (err instanceof Error && /no event/.test(err.message)) return seen;
        throw err;
      }
    }
  };
  return { ok: true as const, status: 200, next, nextChange, nextOrgChange, quiet, drain, close: () => void reader.cancel().catch(() => {}) };
}

describe('event streams', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let prod: string;
  let staging: string;
  const cookie = () => ({ cookie: `svc_session=${owner.sessionToken}` });
  const envUrl = (envId: string) => `${t.url}/api/v1/envs/${envId}/events`;
  const orgUrl = `/api/v1/orgs/acme/events`;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    prod = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    staging = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    for (const key of ['checkout', 'search']) await owner.session.createFlag({ path: { id: projectId }, body: { key, name: key, defaultValue: false } });
    await owner.session.createRolloutPlan({
      path: { id: projectId },
      body: { key: 'gated', name: 'Gated', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 60, requiresApproval: true }, { percent: 100, holdForSeconds: 0 }] },
    });
  });
  afterAll(() => t?.close());

  it('announces a write, a scheduler step, an approval gate and an alert rollback, each with what changed', async () => {
    const env = await owner.session.getEnvironment({ path: { envId: prod } });
    const stream = await openEvents(envUrl(prod), cookie());
    if (!stream.ok) throw new Error(`status ${stream.status}`);
    try {
      expect(await stream.next()).toEqual({ event: 'ready', data: { envId: prod, version: env.version } });

      await owner.session.putFlagRollout({ path: { envId: prod, key: 'checkout' }, body: { percent: 10, newValue: true, planKey: 'gated' } });
      const created = await stream.nextChange();
      expect(created).toMatchObject({ envId: prod, version: env.version + 1 });
      expect(created.changes).toContainEqual({ resourceType: 'rollout', resourceKey: 'checkout', action: 'rollout.created' });

      // The scheduler's step (10% → the gate before 50%): it pauses at the approval gate.
      await t.advanceClock(61);
      const gated = await stream.nextChange();
      expect(gated.version).toBe(env.version + 2);
      expect(gated.changes.map((c) => c.action)).toContain('rollout.approval_gate_reached');

      await owner.session.resumeFlagRollout({ path: { envId: prod, key: 'checkout' } });
      expect((await stream.nextChange()).changes.map((c) => c.action)).toContain('rollout.approval_resolved');

      const secret = (await owner.session.createRollbackSecret({ path: { envId: prod }, body: { name: 'alerts' } })).token;
      const fired = await fetch(`${t.url}/api/v1/webhooks/rollback/envs/${prod}/flags/checkout`, { method: 'POST', headers: { authorization: `Bearer ${secret}` } });
      expect(fired.status).toBe(200);
      const rolledBack = await stream.nextChange();
      expect(rolledBack.changes).toContainEqual(expect.objectContaining({ resourceType: 'rollout', resourceKey: 'checkout' }));
      expect((await owner.session.getFlagRollout({ path: { envId: prod, key: 'checkout' } })).status).toBe('paused');

      // A write in another environment is not this stream's news.
      await owner.session.putFlagRollout({ path: { envId: staging, key: 'search' }, body: { percent: 5, newValue: true } });
      await stream.quiet(300);
    } finally {
      stream.close();
    }
  });

  it('a scheduler step reaches the stream', async () => {
    await owner.session.putFlagRollout({ path: { envId: staging, key: 'checkout' }, body: { percent: 10, newValue: true, planKey: 'gated' } });
    const stream = await openEvents(envUrl(staging), cookie());
    if (!stream.ok) throw new Error(`status ${stream.status}`);
    try {
      const { data } = await stream.next();
      await t.advanceClock(61);
      const step = await stream.nextChange();
      expect(step.version).toBe((data as { version: number }).version + 1);
      expect(step.changes).toContainEqual({ resourceType: 'rollout', resourceKey: 'checkout', action: 'rollout.approval_gate_reached' });
    } finally {
      stream.close();
    }
  });

  it('refuses a caller without credentials (401) and a key restricted to another environment', async () => {
    const anonymous = await openEvents(envUrl(prod), {});
    expect(anonymous.status).toBe(401);
    const org = await openEvents(`${t.url}${orgUrl}`, {});
    expect(org.status).toBe(401);

    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'staging only', actions: ['read'], environments: [staging] } });
    const refused = await openEvents(envUrl(prod), { authorization: `Bearer ${token}` });
    expect(refused.status).toBe(403);
    expect(!refused.ok && refused.body.code).toBe('token_env_out_of_scope');
  });

  it('gives a restricted key only the changes of its environments and resources', async () => {
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'search in staging', actions: ['read'], environments: [staging], resources: ['search'] } });
    const auth = { authorization: `Bearer ${token}` };
    const org = await openEvents(`${t.url}${orgUrl}`, auth);
    const env = await openEvents(envUrl(staging), auth);
    const full = await openEvents(`${t.url}${orgUrl}`, cookie());
    if (!org.ok || !env.ok || !full.ok) throw new Error('not streams');
    try {
      expect((await org.next()).event).toBe('ready');
      expect((await env.next()).event).toBe('ready');
      expect((await full.next()).event).toBe('ready');

      // Another environment: the session's org stream hears it, the key's streams hear nothing.
      await owner.session.pauseFlagRollout({ path: { envId: prod, key: 'checkout' } }).catch(() => undefined);
      await owner.session.putFlagRollout({ path: { envId: prod, key: 'search' }, body: { percent: 30, newValue: true } });
      let heard = await full.nextChange();
      while (!heard.changes.some((c) => c.resourceKey === 'search')) heard = await full.nextChange();
      expect(heard.envId).toBe(prod);
      await org.quiet(300);
      await env.quiet(10);

      // Its environment, another flag: the environment stream announces the version without the change.
      await owner.session.cancelFlagRollout({ path: { envId: staging, key: 'checkout' } });
      expect(await env.nextChange()).toMatchObject({ envId: staging, changes: [] });
      await org.quiet(300);

      // Its environment and resource: both carry it.
      await owner.session.putFlagRollout({ path: { envId: staging, key: 'search' }, body: { percent: 40, newValue: true } });
      const seen = await env.nextChange();
      expect(seen.changes.length).toBeGreaterThan(0);
      expect(seen.changes.every((c) => c.resourceKey === 'search')).toBe(true);
      expect(await org.nextChange()).toEqual(seen);
    } finally {
      org.close();
      env.close();
      full.close();
    }
  });

  describe('org-change', () => {
    const opened = async (url: string, headers: Record<string, string>) => {
      const stream = await openEvents(url, headers);
      if (!stream.ok) throw new Error(`status ${stream.status}`);
      expect((await stream.next()).event).toBe('ready');
      return stream;
    };

    it('announces each write outside any environment on the organization stream', async () => {
      const org = await opened(`${t.url}${orgUrl}`, cookie());
      try {
        const change = (resourceType: string, resourceKey: string | null, action: string) => ({ projectId, envId: null, changes: [{ resourceType, resourceKey, action }] });
        await owner.session.createFlag({ path: { id: projectId }, body: { key: 'oc-new', name: 'New', defaultValue: false } });
        expect(await org.nextOrgChange()).toEqual(change('flag', 'oc-new', 'flag.created'));
        await owner.session.updateFlag({ path: { id: projectId, key: 'oc-new' }, body: { name: 'Renamed' } });
        expect(await org.nextOrgChange()).toEqual(change('flag', 'oc-new', 'flag.updated'));
        await owner.session.archiveFlag({ path: { id: projectId, key: 'oc-new' } });
        expect(await org.nextOrgChange()).toEqual(change('flag', 'oc-new', 'flag.archived'));
        await owner.session.createSegment({ path: { id: projectId }, body: { key: 'oc-beta', name: 'Beta' } });
        expect(await org.nextOrgChange()).toEqual(change('segment', 'oc-beta', 'segment.created'));
        await owner.session.createRolloutPlan({ path: { id: projectId }, body: { key: 'oc-plan', name: 'Plan', cadence: 'auto', rampSteps: [{ percent: 50, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] } });
        expect(await org.nextOrgChange()).toMatchObject({ projectId, envId: null, changes: [{ resourceType: 'rollout_plan', action: 'rollout_plan.created' }] });
        await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'oc key', actions: ['read'] } });
        expect(await org.nextOrgChange()).toMatchObject({ projectId: null, changes: [{ action: 'api_token.created' }] });
        await owner.session.createInvitation({ path: { slug: 'acme' }, body: { email: 'oc-teammate@example.com', role: 'member' } });
        expect(await org.nextOrgChange()).toMatchObject({ projectId: null, changes: [{ action: 'invitation.created' }] });
      } finally {
        org.close();
      }
    });

    it('lists the flag a write created or archived on the change of every environment it moved', async () => {
      const env = await opened(envUrl(prod), cookie());
      try {
        await owner.session.createFlag({ path: { id: projectId }, body: { key: 'oc-env', name: 'Env', defaultValue: false } });
        expect((await env.nextChange()).changes).toContainEqual({ resourceType: 'flag', resourceKey: 'oc-env', action: 'flag.created' });
        await owner.session.archiveFlag({ path: { id: projectId, key: 'oc-env' } });
        expect((await env.nextChange()).changes).toContainEqual({ resourceType: 'flag', resourceKey: 'oc-env', action: 'flag.archived' });
        await owner.session.restoreFlag({ path: { id: projectId, key: 'oc-env' } });
        expect((await env.nextChange()).changes).toContainEqual({ resourceType: 'flag', resourceKey: 'oc-env', action: 'flag.restored' });
      } finally {
        env.close();
      }
    });

    it('gives a key restricted to environments none of the rows outside them, and one restricted to resources only its own', async () => {
      const envKey = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'oc staging', actions: ['read'], environments: [staging] } })).token;
      const resKey = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'oc mine', actions: ['read'], resources: ['oc-mine-*'] } })).token;
      const byEnv = await opened(`${t.url}${orgUrl}`, { authorization: `Bearer ${envKey}` });
      const byRes = await opened(`${t.url}${orgUrl}`, { authorization: `Bearer ${resKey}` });
      const envStream = await opened(envUrl(staging), { authorization: `Bearer ${envKey}` });
      try {
        await owner.session.createFlag({ path: { id: projectId }, body: { key: 'oc-other', name: 'Other', defaultValue: false } });
        await owner.session.createSegment({ path: { id: projectId }, body: { key: 'oc-mine-segment', name: 'Not a flag' } });
        await owner.session.createFlag({ path: { id: projectId }, body: { key: 'oc-mine-1', name: 'Mine', defaultValue: false } });
        expect(await byRes.nextOrgChange()).toEqual({ projectId, envId: null, changes: [{ resourceType: 'flag', resourceKey: 'oc-mine-1', action: 'flag.created' }] });
        await byRes.quiet(300);
        await byEnv.quiet(10);
        // The environment stream of a key restricted to environments: the versions, without the project-level rows.
        for (let i = 0; i < 2; i++) expect(await envStream.nextChange()).toMatchObject({ envId: staging, changes: [] });
      } finally {
        byEnv.close();
        byRes.close();
        envStream.close();
      }
    });

    it('announces the writes of an environment that move no version, with the environment', async () => {
      const org = await opened(`${t.url}${orgUrl}`, cookie());
      try {
        const row = (resourceType: string, resourceKey: string, action: string) => ({ resourceType, resourceKey, action });
        // An environment created in a project without flags stays at version 0.
        const emptyId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'oc-empty', name: 'Empty' } })).id;
        expect(await org.nextOrgChange()).toMatchObject({ envId: null, changes: [{ action: 'project.created' }] });
        const dev = await owner.session.createEnvironment({ path: { id: emptyId }, body: { key: 'oc-dev', name: 'Dev' } });
        expect(dev.version).toBe(0);
        expect(await org.nextOrgChange()).toEqual({ projectId: emptyId, envId: dev.id, changes: [row('environment', 'oc-dev', 'environment.created')] });

        const secret = await owner.session.createRollbackSecret({ path: { envId: prod }, body: { name: 'oc-alerts' } });
        expect(await org.nextOrgChange()).toEqual({ projectId, envId: prod, changes: [row('rollback_secret', 'oc-alerts', 'rollback_secret.created')] });
        await owner.session.revokeRollbackSecret({ path: { envId: prod, id: secret.id } });
        expect(await org.nextOrgChange()).toEqual({ projectId, envId: prod, changes: [row('rollback_secret', 'oc-alerts', 'rollback_secret.revoked')] });

        const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'oc approval', requiresApproval: true } });
        expect(await org.nextOrgChange()).toMatchObject({ envId: null, changes: [{ action: 'api_token.created' }] });
        const asked = await t.asToken(token).putFlagRollout({ path: { envId: prod, key: 'search' }, body: { percent: 60, newValue: true } });
        if (asked.kind !== 'proposed') throw new Error('expected a proposal');
        expect(await org.nextOrgChange()).toEqual({ projectId, envId: prod, changes: [row('proposal', 'search', 'proposal.created')] });
        await owner.session.cancelProposal({ path: { id: asked.proposal.id } });
        expect(await org.nextOrgChange()).toEqual({ projectId, envId: prod, changes: [row('proposal', 'search', 'proposal.cancelled')] });

        await owner.session.deleteEnvironment({ path: { envId: dev.id }, body: { confirm: 'oc-dev' } });
        expect(await org.nextOrgChange()).toEqual({ projectId: emptyId, envId: dev.id, changes: [row('environment', 'oc-dev', 'environment.deleted')] });
        await org.quiet(300);
      } finally {
        org.close();
      }
    });

    it('announces a rollback fire that moved no rollout (refused, already rolled back, no rollout) with its environment', async () => {
      await owner.session.createFlag({ path: { id: projectId }, body: { key: 'oc-fire', name: 'Fire', defaultValue: false } });
      await owner.session.putFlagRollout({ path: { envId: staging, key: 'oc-fire' }, body: { percent: 20, newValue: true } });
      const secret = (await owner.session.createRollbackSecret({ path: { envId: staging }, body: { name: 'oc-fire-alerts' } })).token;
      const org = await opened(`${t.url}${orgUrl}`, cookie());
      const fire = (key: string, token: string) => fetch(`${t.url}/api/v1/webhooks/rollback/envs/${staging}/flags/${key}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      const fired = (resourceKey: string) => ({ projectId, envId: staging, changes: [{ resourceType: 'rollout', resourceKey, action: 'rollback.fired' }] });
      try {
        expect((await fire('oc-fire', 'rbk_wrong')).status).toBe(401);
        expect(await org.nextOrgChange()).toEqual(fired('oc-fire'));
        // The fire that rolls back moves the version: a `change`, and no org-change.
        expect((await fire('oc-fire', secret)).status).toBe(200);
        expect((await fire('oc-fire', secret)).status).toBe(200);
        expect(await org.nextOrgChange()).toEqual(fired('oc-fire'));
        expect((await fire('oc-none', secret)).status).toBe(404);
        expect(await org.nextOrgChange()).toEqual(fired('oc-none'));
        expect((await org.drain()).filter((e) => e.event === 'org-change')).toEqual([]);
        const history = await owner.session.listRollbackFires({ path: { envId: staging } });
        expect(history.fires.slice(0, 4).map((f) => f.outcome)).toEqual(['error_not_found', 'noop_already_rolled_back', 'transitioned', 'error_unauthorized']);
      } finally {
        org.close();
      }
    });

    it('announces each change of a write once: a moved version’s as `change`, the rest as `org-change`', async () => {
      const org = await opened(`${t.url}${orgUrl}`, cookie());
      const named = (events: Array<{ event: string; data: unknown }>, name: string) => events.filter((e) => e.event === name).map((e) => e.data);
      try {
        // A flag created: its row as an org-change; the environments' changes do not repeat it.
        await owner.session.createFlag({ path: { id: projectId }, body: { key: 'oc-once', name: 'Once', defaultValue: false } });
        let heard = await org.drain();
        expect(named(heard, 'org-change')).toEqual([{ projectId, envId: null, changes: [{ resourceType: 'flag', resourceKey: 'oc-once', action: 'flag.created' }] }]);
        for (const c of named(heard, 'change') as Change[]) expect(c.changes.map((x) => x.action)).not.toContain('flag.created');

        // A rollout: one change, no org-change.
        const before = (await owner.session.getEnvironment({ path: { envId: prod } })).version;
        await owner.session.putFlagRollout({ path: { envId: prod, key: 'oc-once' }, body: { percent: 10, newValue: true } });
        heard = await org.drain();
        expect(heard).toEqual([{ event: 'change', data: { envId: prod, version: before + 1, changes: [{ resourceType: 'rollout', resourceKey: 'oc-once', action: 'rollout.created' }] } }]);

        // A proposal applied: its row carries the version it produced, so it comes with the rollout's.
        const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'oc approval once', requiresApproval: true } });
        const asked = await t.asToken(token).putFlagRollout({ path: { envId: prod, key: 'oc-once' }, body: { percent: 20, newValue: true } });
        if (asked.kind !== 'proposed') throw new Error('expected a proposal');
        expect(named(await org.drain(), 'org-change')).toHaveLength(2); // the key's creation, the proposal
        await owner.session.applyProposal({ path: { id: asked.proposal.id } });
        heard = await org.drain();
        expect(heard).toHaveLength(1);
        expect(heard[0]).toMatchObject({ event: 'change', data: { envId: prod, version: before + 2 } });
        expect((heard[0]!.data as Change).changes.map((c) => c.action).sort()).toEqual(['proposal.applied', 'rollout.updated']);

        // An environment created with the project's flags in it moves to version 1: its row is that version's.
        const qa = await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'oc-qa', name: 'QA' } });
        heard = await org.drain();
        expect(heard).toEqual([{ event: 'change', data: { envId: qa.id, version: 1, changes: [{ resourceType: 'environment', resourceKey: 'oc-qa', action: 'environment.created' }] } }]);
        await owner.session.deleteEnvironment({ path: { envId: qa.id }, body: { confirm: 'oc-qa' } });
        expect(named(await org.drain(), 'org-change')).toEqual([{ projectId, envId: qa.id, changes: [{ resourceType: 'environment', resourceKey: 'oc-qa', action: 'environment.deleted' }] }]);
      } finally {
        org.close();
      }
    });

    it('gives a key restricted to environments the org-changes of those environments only', async () => {
      const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'oc staging secrets', actions: ['read'], environments: [staging] } });
      const byEnv = await opened(`${t.url}${orgUrl}`, { authorization: `Bearer ${token}` });
      try {
        await owner.session.createRollbackSecret({ path: { envId: prod }, body: { name: 'oc-prod-alerts' } });
        await owner.session.createRollbackSecret({ path: { envId: staging }, body: { name: 'oc-staging-alerts' } });
        expect(await byEnv.drain()).toEqual([
          { event: 'org-change', data: { projectId, envId: staging, changes: [{ resourceType: 'rollback_secret', resourceKey: 'oc-staging-alerts', action: 'rollback_secret.created' }] } },
        ]);
      } finally {
        byEnv.close();
      }
    });

    it('announces a proposal expired, as the read that finds it past its expiry records it', async () => {
      const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'oc approval expiring', requiresApproval: true } });
      const asked = await t.asToken(token).putFlagRollout({ path: { envId: staging, key: 'search' }, body: { percent: 70, newValue: true } });
      if (asked.kind !== 'proposed') throw new Error('expected a proposal');
      const org = await opened(`${t.url}${orgUrl}`, cookie());
      try {
        await t.advanceClock(7 * 24 * 3600 + 1);
        await owner.session.listProposals({ path: { slug: 'acme' } });
        let heard = await org.nextOrgChange(3000);
        while (!heard.changes.some((c) => c.action === 'proposal.expired')) heard = await org.nextOrgChange(3000);
        expect(heard).toEqual({ projectId, envId: staging, changes: [{ resourceType: 'proposal', resourceKey: 'search', action: 'proposal.expired' }] });
      } finally {
        org.close();
      }
    });

    it.runIf(!!process.env.DATABASE_URL)('reaches an organization stream on another instance (PostgreSQL LISTEN/NOTIFY)', async () => {
      const db = await openDatabase({ ...t.databaseOptions, migrate: false });
      const second = await startServer({ config: loadConfig({ PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'test', LOG_LEVEL: 'silent' }), db, logger: pino({ level: 'silent' }) });
      try {
        const org = await opened(`${second.url}${orgUrl}`, cookie());
        const env = await opened(`${second.url}/api/v1/envs/${prod}/events`, cookie());
        try {
          await owner.session.createFlag({ path: { id: projectId }, body: { key: 'oc-remote', name: 'Remote', defaultValue: false } }); // through the first instance
          expect(await org.nextOrgChange()).toEqual({ projectId, envId: null, changes: [{ resourceType: 'flag', resourceKey: 'oc-remote', action: 'flag.created' }] });
          expect((await env.nextChange()).changes).toContainEqual({ resourceType: 'flag', resourceKey: 'oc-remote', action: 'flag.created' });
          await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'oc remote key', actions: ['read'] } });
          expect(await org.nextOrgChange()).toMatchObject({ projectId: null, envId: null, changes: [{ action: 'api_token.created' }] });
          await owner.session.createRollbackSecret({ path: { envId: prod }, body: { name: 'oc-remote-alerts' } });
          expect(await org.nextOrgChange()).toEqual({ projectId, envId: prod, changes: [{ resourceType: 'rollback_secret', resourceKey: 'oc-remote-alerts', action: 'rollback_secret.created' }] });
          await org.quiet(300); // each change once
        } finally {
          org.close();
          env.close();
        }
      } finally {
        await second.close();
        await db.close();
      }
    });
  });
});
