import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { rolloutOps, type Kind } from '../support/rollout-ops.js';
import { seedUser } from '../support/users.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/alerts/${name}.json`, import.meta.url), 'utf8');

describe.each<Kind>(['flag', 'config'])('automatic rollback of a %s rollout', (kind) => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let orgId: string;
  let projectId: string;
  let envId: string;
  let otherEnvId: string;
  let secret: { id: string; token: string; name: string };
  let ops: ReturnType<typeof rolloutOps>;
  const candidate = kind === 'flag' ? true : { v: 2 };

  const fireUrl = (key: string, env = envId) => `${t.url}/api/v1/webhooks/rollback/envs/${env}/${kind}s/${key}`;
  const fire = (key: string, opts: { token?: string | null; body?: string; contentType?: string; env?: string } = {}) =>
    fetch(fireUrl(key, opts.env), {
      method: 'POST',
      headers: {
        ...(opts.token === null ? {} : { authorization: `Bearer ${opts.token ?? secret.token}` }),
        ...(opts.body !== undefined ? { 'content-type': opts.contentType ?? 'application/json' } : {}),
      },
      ...(opts.body !== undefined ? { body: opts.body } : {}),
    });
  const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
  const create = async (key: string) => {
    if (kind === 'flag') await owner.session.createFlag({ path: { id: projectId }, body: { key, name: key, defaultValue: false } });
    else await owner.session.createConfig({ path: { id: projectId }, body: { key, name: key, defaultValue: { v: 1 } } });
  };
  const fires = async (query: { cursor?: string; limit?: number } = {}) => (await owner.session.listRollbackFires({ path: { envId }, query })).fires;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    orgId = (await owner.session.getOrg({ path: { slug: 'acme' } })).id;
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    otherEnvId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    ops = rolloutOps(owner.session, kind);
    for (const key of ['checkout', 'search', 'idle', 'burst']) await create(key);
  });
  afterAll(() => t?.close());

  it('mints a secret shown once, lists it without token or hash, and enforces names and roles', async () => {
    const minted = await owner.session.createRollbackSecret({ path: { envId }, body: { name: 'alertmanager' } });
    expect(minted.token).toMatch(/^svcrb_[A-Za-z0-9]{32}$/);
    expect(minted).toMatchObject({ name: 'alertmanager', tokenPrefix: minted.token.slice(0, 10), lastFiredAt: null, revokedAt: null });
    expect(minted.warning).toMatch(/only once/);
    secret = { id: minted.id, token: minted.token, name: minted.name };
    const listed = await owner.session.listRollbackSecrets({ path: { envId } });
    expect(JSON.stringify(listed)).not.toContain(minted.token);
    expect(listed[0]).not.toHaveProperty('tokenHash');
    const dup = await expectApiError(owner.session.createRollbackSecret({ path: { envId }, body: { name: 'alertmanager' } }), 409, 'key_in_use');
    expect(dup.fields).toEqual({ name: 'already in use' });
    expect((await expectApiError(owner.session.createRollbackSecret({ path: { envId }, body: { name: 'x'.repeat(65) } }), 400, 'invalid_request')).fields).toHaveProperty('name');
    const member = await seedUser(t.server.deps.db, `member-${kind}@example.com`, { orgId, role: 'member' });
    await expectApiError(t.asSession(member.sessionToken).createRollbackSecret({ path: { envId }, body: { name: 'm' } }), 403, 'insufficient_role');
    await expectApiError(t.asSession(member.sessionToken).revokeRollbackSecret({ path: { envId, id: secret.id } }), 403, 'insufficient_role');
    expect(await t.asSession(member.sessionToken).listRollbackSecrets({ path: { envId } })).toHaveLength(1);
  });

  it('spec "Limits" live rollback secrets per env: a 21st live secret answers 403 quota_exceeded (dimension rollback_webhook_secrets_per_env); a revoked name can be reused', async () => {
    const made: string[] = [];
    for (let i = 0; i < 19; i++) made.push((await owner.session.createRollbackSecret({ path: { envId }, body: { name: `s${i}` } })).id);
    const quota = await expectApiError(owner.session.createRollbackSecret({ path: { envId }, body: { name: 'one-too-many' } }), 403, 'quota_exceeded');
    expect(quota.details).toMatchObject({ dimension: 'rollback_webhook_secrets_per_env' });
    await owner.session.revokeRollbackSecret({ path: { envId, id: made[0]! } });
    await owner.session.revokeRollbackSecret({ path: { envId, id: made[0]! } }); // idempotent
    await owner.session.createRollbackSecret({ path: { envId }, body: { name: 's0' } });
    for (const id of made.slice(1)) await owner.session.revokeRollbackSecret({ path: { envId, id } });
    const listed = await owner.session.listRollbackSecrets({ path: { envId } });
    expect(listed.filter((s) => s.revokedAt === null).map((s) => s.name).sort()).toEqual(['alertmanager', 's0']);
    await expectApiError(owner.session.revokeRollbackSecret({ path: { envId, id: '00000000-0000-4000-8000-000000000000' } }), 404, 'not_found');
  });

  it('spec "Rollout status" 10: a fire on an active rollout pauses it at 0% with pausedReason auto_rollback (outcome transitioned), with the audit row, banner data and a version bump', async () => {
    await ops.put({ envId, key: 'checkout' }, { percent: 25, newValue: candidate });
    const version = (await owner.session.getEnvironment({ path: { envId } })).version;
    const body = fixture('alertmanager');
    const res = await fire('checkout', { body });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ noop: false, currentStatus: 'active', newStatus: 'paused' });
    const rollout = await ops.get({ envId, key: 'checkout' });
    expect(rollout).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', percent: 0, pausedAtPercent: 0, rolledBackFromPercent: 25 });
    expect(rollout.lastAutoRollback).toMatchObject({ secretId: secret.id, secretName: 'alertmanager', parsedMonitorUrl: expect.stringMatching(/^http:\/\/prometheus\.example\.com:9090\/graph/) });
    expect((await owner.session.getEnvironment({ path: { envId } })).version).toBe(version + 1);
    const [row] = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'checkout', limit: 1 } })).events;
    expect(row).toMatchObject({ action: 'rollout.auto_rollback', actorType: 'rollback_webhook', actorId: secret.id, actorName: 'alertmanager', reason: 'rollout:auto_rollback', version: version + 1 });
    const [record] = await fires({ limit: 1 });
    expect(record).toMatchObject({
      outcome: 'transitioned',
      rolloutId: rollout.id,
      secretId: secret.id,
      secretName: 'alertmanager',
      primitiveKind: kind,
      primitiveKey: 'checkout',
      payloadFingerprint: createHash('sha256').update(body).digest('hex'),
    });
    expect(record!.sourceIp).toMatch(/127\.0\.0\.1/);
    expect((await owner.session.listRollbackSecrets({ path: { envId } })).find((s) => s.id === secret.id)?.lastFiredAt).not.toBeNull();
  });

  it('spec "Rollback fire audit rows" 1: a transitioned fire audits reason rollout:auto_rollback', async () => {
    await create('audited');
    await ops.put({ envId, key: 'audited' }, { percent: 10, newValue: candidate });
    const alert = 'https://grafana.example.com/alerting/audited';
    expect(await json(await fire('audited', { body: JSON.stringify({ alert_url: alert }) }))).toEqual({ noop: false, currentStatus: 'active', newStatus: 'paused' });
    const [row] = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'audited', limit: 1 } })).events;
    expect(row).toMatchObject({ action: 'rollout.auto_rollback', actorType: 'rollback_webhook', actorId: secret.id, reason: 'rollout:auto_rollback' });
    // What the alert was stays with the row: the rollout it paused names the secret and the alert's link.
    const detail = await owner.session.getAuditEvent({ path: { id: row!.id } });
    expect(detail.reason).toBe('rollout:auto_rollback');
    expect(detail.newValue).toMatchObject({ pausedReason: 'auto_rollback', lastAutoRollback: { secretId: secret.id, secretName: 'alertmanager', parsedMonitorUrl: alert } });
    expect((await fires({ limit: 1 }))[0]).toMatchObject({ outcome: 'transitioned', secretName: 'alertmanager', parsedMonitorUrl: alert });
  });

  it('spec "Rollout status" 13: a fire on an auto-rolled-back rollout answers noop true (noop_already_rolled_back, no audit row); 5: resume returns to the percent it was rolled back from', async () => {
    const audits = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', limit: 200 } })).events.length;
    const res = await fire('checkout');
    expect(await json(res)).toEqual({ noop: true, currentStatus: 'paused' });
    expect((await fires({ limit: 1 }))[0]).toMatchObject({ outcome: 'noop_already_rolled_back', payloadFingerprint: createHash('sha256').update('').digest('hex') });
    expect((await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', limit: 200 } })).events.length).toBe(audits);
    expect(await ops.resume({ envId, key: 'checkout' })).toMatchObject({ status: 'active', percent: 25, rolledBackFromPercent: null });
  });

  it('spec "Rollout status" 11: a fire on a user-paused rollout rolls it back (transitioned); 14: on completed or cancelled ones it answers noop true (noop_terminal_state)', async () => {
    await ops.pause({ envId, key: 'checkout' });
    expect(await json(await fire('checkout'))).toEqual({ noop: false, currentStatus: 'paused', newStatus: 'paused' });
    expect(await ops.get({ envId, key: 'checkout' })).toMatchObject({ pausedReason: 'auto_rollback', rolledBackFromPercent: 25 });
    await ops.cancel({ envId, key: 'checkout' });
    expect(await json(await fire('checkout'))).toEqual({ noop: true, currentStatus: 'cancelled' });
    await ops.put({ envId, key: 'search' }, { percent: 100, newValue: candidate });
    expect(await json(await fire('search'))).toEqual({ noop: true, currentStatus: 'completed' });
    expect((await fires({ limit: 2 })).map((f) => f.outcome)).toEqual(['noop_terminal_state', 'noop_terminal_state']);
  });

  it('spec "Rollback fire outcomes" 5: no rollout or no primitive at the key answers 404 rollback_rollout_not_found (outcome error_not_found)', async () => {
    for (const key of ['idle', 'does-not-exist']) {
      const res = await fire(key);
      expect(res.status).toBe(404);
      expect((await json(res)).code).toBe('rollback_rollout_not_found');
    }
    expect((await fires({ limit: 2 })).map((f) => [f.outcome, f.rolloutId])).toEqual([
      ['error_not_found', null],
      ['error_not_found', null],
    ]);
  });

  it('spec "Authentication" 6: missing, invalid, revoked and wrong-environment rollback secrets all answer the same 401 rollback_unauthorized (outcome error_unauthorized)', async () => {
    const revoked = await owner.session.createRollbackSecret({ path: { envId }, body: { name: 'revoked' } });
    await owner.session.revokeRollbackSecret({ path: { envId, id: revoked.id } });
    const staging = await owner.session.createRollbackSecret({ path: { envId: otherEnvId }, body: { name: 'staging' } });
    const apiKey = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `key-${kind}` } });
    const bodies = new Set<string>();
    for (const token of [null, 'garbage', `svcrb_${'a'.repeat(32)}`, revoked.token, staging.token, apiKey.token]) {
      const res = await fire('checkout', { token });
      expect(res.status).toBe(401);
      const { requestId, ...rest } = await json(res);
      expect(requestId).toBeTruthy();
      bodies.add(JSON.stringify(rest));
    }
    expect([...bodies]).toEqual([JSON.stringify({ code: 'rollback_unauthorized', message: 'Missing, invalid, revoked or wrong-environment rollback secret.' })]);
    const recent = await fires({ limit: 6 });
    expect(recent.every((f) => f.outcome === 'error_unauthorized' && f.secretId === null && f.secretName === null)).toBe(true);
    // A secret cannot call the rest of the API.
    expect((await fetch(`${t.url}/api/v1/orgs/acme`, { headers: { authorization: `Bearer ${secret.token}` } })).status).toBe(401);
  });

  it('spec "Fire details" 3: a body over 16 KiB (16,385 bytes) or unreadable answers 400 invalid_request (outcome error_invalid_request); 16,384 bytes is accepted', async () => {
    await ops.put({ envId, key: 'idle' }, { percent: 10, newValue: candidate });
    const padded = (size: number) => {
      const base = JSON.stringify({ alert_url: 'https://status.example.com/incidents/42', pad: '' });
      return base.replace('"pad":""', `"pad":"${'x'.repeat(size - base.length)}"`);
    };
    expect(padded(16_384)).toHaveLength(16_384);
    const ok = await fire('idle', { body: padded(16_384) });
    expect(ok.status).toBe(200);
    expect((await fires({ limit: 1 }))[0]).toMatchObject({ outcome: 'transitioned', parsedMonitorUrl: 'https://status.example.com/incidents/42' });
    const big = await fire('idle', { body: padded(16_385) });
    expect(big.status).toBe(400);
    expect((await json(big)).code).toBe('invalid_request');
    const broken = await fire('idle', { body: '{"alerts": [' });
    expect(broken.status).toBe(400);
    expect((await fires({ limit: 2 })).map((f) => f.outcome)).toEqual(['error_invalid_request', 'error_invalid_request']);
    // A non-JSON body is accepted (no URL to read).
    expect((await fire('idle', { body: 'CPU high on web-3', contentType: 'text/plain' })).status).toBe(200);
  });

  it('spec "Fire details" 2: the alert URL comes from alert_url (alias link), alerts[0].generatorURL or event.data.html_url; other shapes leave parsedMonitorUrl null', async () => {
    const cases: Array<[string, string | null]> = [
      [fixture('grafana'), 'https://grafana.example.com/alerting/grafana/ddx8cq2nbq4g0c/view?orgId=1'],
      [fixture('pagerduty-v3'), 'https://acme.pagerduty.com/incidents/PGR0VU2'],
      [JSON.stringify({ alert_url: 'https://monitor.example.com/a/1' }), 'https://monitor.example.com/a/1'],
      [JSON.stringify({ link: 'https://monitor.example.com/legacy/2' }), 'https://monitor.example.com/legacy/2'],
      [JSON.stringify({ alert_url: 'javascript:alert(1)' }), null],
      [JSON.stringify({ hello: 'world' }), null],
    ];
    for (const [body, url] of cases) {
      await fire('idle', { body });
      expect((await fires({ limit: 1 }))[0]!.parsedMonitorUrl).toBe(url);
    }
  });

  it('spec "Limits" rollback fires per rollout: the 61st fire in a minute answers 429 rollback_rate_limited with Retry-After (outcome error_rate_limited)', async () => {
    await ops.put({ envId, key: 'burst' }, { percent: 10, newValue: candidate });
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await fire('burst')).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const limited = await fire('burst');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = await json(limited);
    expect(body.code).toBe('rollback_rate_limited');
    expect((body.details as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    expect((await fires({ limit: 1 }))[0]).toMatchObject({ outcome: 'error_rate_limited', primitiveKey: 'burst' });
  });

  it('spec "Fire details" 4: the four fire histories page with default limit 50, maximum 200, nextCursor only on full pages; the per-rollout one by primitive key', async () => {
    const all = await owner.session.listRollbackFires({ path: { envId }, query: { limit: 200 } });
    expect(all.fires.length).toBeGreaterThan(50);
    expect(all.nextCursor).toBeUndefined();
    const first = await owner.session.listRollbackFires({ path: { envId } });
    expect(first.fires).toHaveLength(50);
    expect(first.nextCursor).toBeDefined();
    const second = await owner.session.listRollbackFires({ path: { envId }, query: { cursor: first.nextCursor!, limit: 200 } });
    expect([...first.fires, ...second.fires].map((f) => f.id)).toEqual(all.fires.map((f) => f.id));
    await expectApiError(owner.session.listRollbackFires({ path: { envId }, query: { limit: 201 } }), 400, 'invalid_request');
    const bySecret = await owner.session.listRollbackSecretFires({ path: { envId, id: secret.id }, query: { limit: 200 } });
    expect(bySecret.fires.every((f) => f.secretId === secret.id)).toBe(true);
    const byKey = kind === 'flag'
      ? await owner.session.listFlagRollbackFires({ path: { envId, flagKey: 'checkout' }, query: { limit: 200 } })
      : await owner.session.listConfigRollbackFires({ path: { envId, configKey: 'checkout' }, query: { limit: 200 } });
    expect(byKey.fires.length).toBeGreaterThan(0);
    expect(byKey.fires.every((f) => f.primitiveKey === 'checkout' && f.primitiveKind === kind)).toBe(true);
    // Rollouts come and go; the per-primitive history spans them.
    expect(new Set(byKey.fires.map((f) => f.rolloutId)).size).toBeGreaterThanOrEqual(1);
    await expectApiError(owner.session.listRollbackSecretFires({ path: { envId: otherEnvId, id: secret.id } }), 404, 'not_found');
  });

  const auditCount = async () => (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200 } })).events.length;
  const fireCount = async () => (await owner.session.listRollbackFires({ path: { envId }, query: { limit: 200 } })).fires.length;

  it('spec "Rollback fire audit rows" 2: noop and error fires are recorded in the fire history only (one record each), never in the audit log', async () => {
    await create('quiet');
    await ops.put({ envId, key: 'quiet' }, { percent: 10, newValue: candidate });
    expect((await fire('quiet')).status).toBe(200); // transitioned
    const audits = await auditCount();
    const records = await fireCount();
    expect(await json(await fire('quiet'))).toEqual({ noop: true, currentStatus: 'paused' });
    expect((await fire('quiet', { token: 'garbage' })).status).toBe(401);
    expect((await fire('no-such-key')).status).toBe(404);
    expect((await fire('quiet', { body: '{' })).status).toBe(400);
    expect(await fireCount()).toBe(records + 4);
    expect((await fires({ limit: 4 })).map((f) => f.outcome)).toEqual(['error_invalid_request', 'error_not_found', 'error_unauthorized', 'noop_already_rolled_back']);
    expect(await auditCount()).toBe(audits);
  });

  it('spec "Fire details" 1: the fire URL is stable across pauses, resumes and new rollouts of the same primitive', async () => {
    await create('stable');
    const path = { envId, key: 'stable' };
    const first = await ops.put(path, { percent: 10, newValue: candidate });
    expect(await json(await fire('stable'))).toEqual({ noop: false, currentStatus: 'active', newStatus: 'paused' });
    await ops.resume(path);
    await ops.pause(path);
    await ops.resume(path);
    expect(await json(await fire('stable'))).toEqual({ noop: false, currentStatus: 'active', newStatus: 'paused' });
    await ops.cancel(path);
    const second = await ops.put(path, { percent: 20, newValue: candidate });
    expect(second.id).not.toBe(first.id);
    expect(await json(await fire('stable'))).toEqual({ noop: false, currentStatus: 'active', newStatus: 'paused' });
    expect(await ops.get(path)).toMatchObject({ id: second.id, status: 'paused', pausedReason: 'auto_rollback', percent: 0 });
    expect((await fires({ limit: 3 })).map((f) => [f.outcome, f.rolloutId])).toEqual([
      ['transitioned', second.id],
      ['transitioned', first.id],
      ['transitioned', first.id],
    ]);
  });

  it('spec "Rollout status" 12: a fire on a rollout paused at an approval gate pauses it at 0% with pausedReason auto_rollback (outcome transitioned)', async () => {
    await create('gated');
    await owner.session.createRolloutPlan({
      path: { id: projectId },
      body: { key: `gate-${kind}`, name: 'Gate', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 60, requiresApproval: true }, { percent: 100, holdForSeconds: 0 }] },
    });
    await ops.put({ envId, key: 'gated' }, { percent: 10, newValue: candidate, planKey: `gate-${kind}` });
    await t.advanceClock(61);
    expect(await ops.get({ envId, key: 'gated' })).toMatchObject({ status: 'paused', pausedReason: 'approval_gate', percent: 10 });
    expect(await json(await fire('gated'))).toEqual({ noop: false, currentStatus: 'paused', newStatus: 'paused' });
    expect(await ops.get({ envId, key: 'gated' })).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', percent: 0, pausedAtPercent: 0 });
    expect((await fires({ limit: 1 }))[0]).toMatchObject({ outcome: 'transitioned', primitiveKey: 'gated' });
  });

  it('spec "Rollback webhooks" 1: minting answers 201 with the one-time token; name is required and at most 64 characters; an unknown env answers 404 not_found', async () => {
    const { data, response } = await owner.session.withResponse.createRollbackSecret({ path: { envId: otherEnvId }, body: { name: 'n'.repeat(64) } });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ name: 'n'.repeat(64), token: expect.stringMatching(/^svcrb_[A-Za-z0-9]{32}$/) });
    expect(Object.keys((await expectApiError(owner.session.createRollbackSecret({ path: { envId: otherEnvId }, body: {} as never }), 400, 'invalid_request')).fields ?? {})).toEqual(['name']);
    expect(Object.keys((await expectApiError(owner.session.createRollbackSecret({ path: { envId: otherEnvId }, body: { name: 'n'.repeat(65) } }), 400, 'invalid_request')).fields ?? {})).toEqual(['name']);
    await expectApiError(owner.session.createRollbackSecret({ path: { envId: '00000000-0000-4000-8000-000000000000' }, body: { name: 'x' } }), 404, 'not_found');
  });

  it('spec "Rollback webhooks" 3: DELETE of a secret answers 204, also when it is already revoked', async () => {
    const minted = await owner.session.createRollbackSecret({ path: { envId: otherEnvId }, body: { name: 'short-lived' } });
    const del = () => fetch(`${t.url}/api/v1/envs/${otherEnvId}/rollback-webhook-secrets/${minted.id}`, { method: 'DELETE', headers: { cookie: `svc_session=${owner.sessionToken}` } });
    expect((await del()).status).toBe(204);
    expect((await del()).status).toBe(204);
    expect((await owner.session.listRollbackSecrets({ path: { envId: otherEnvId } })).find((s) => s.id === minted.id)?.revokedAt).not.toBeNull();
  });

  it('spec "Limits" rollback fires per secret: the 301st fire of one secret in a minute answers 429 rollback_rate_limited with Retry-After', async () => {
    const busy = await owner.session.createRollbackSecret({ path: { envId }, body: { name: `busy-${kind}` } });
    const keys = Array.from({ length: 6 }, (_, i) => `busy-${i}`);
    for (const key of keys) {
      await create(key);
      await ops.put({ envId, key }, { percent: 10, newValue: candidate });
    }
    await t.advanceClock(61); // a fresh minute for every bucket
    const statuses: number[] = [];
    for (const key of keys) for (let i = 0; i < 50; i++) statuses.push((await fire(key, { token: busy.token })).status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const limited = await fire('stable', { token: busy.token });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await json(limited)).code).toBe('rollback_rate_limited');
    expect((await fires({ limit: 1 }))[0]).toMatchObject({ outcome: 'error_rate_limited', secretId: busy.id });
  });

  it('spec "Rollout status": once paused by auto_rollback a rollout stays paused as time passes (no automatic resume)', async () => {
    await create('stays');
    await owner.session.createRolloutPlan({
      path: { id: projectId },
      body: { key: `quick-${kind}`, name: 'Quick', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] },
    });
    await ops.put({ envId, key: 'stays' }, { percent: 10, newValue: candidate, planKey: `quick-${kind}` });
    expect(await json(await fire('stays'))).toEqual({ noop: false, currentStatus: 'active', newStatus: 'paused' });
    for (let i = 0; i < 3; i++) await t.advanceClock(3600);
    expect(await ops.get({ envId, key: 'stays' })).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', percent: 0 });
  });

  it('spec "RollbackWebhookSecret": lastFiredAt is updated at most once a minute per secret', async () => {
    const minted = await owner.session.createRollbackSecret({ path: { envId }, body: { name: `clock-${kind}` } });
    const lastFiredAt = async () => (await owner.session.listRollbackSecrets({ path: { envId } })).find((s) => s.id === minted.id)!.lastFiredAt;
    await t.advanceClock(61);
    await fire('stays', { token: minted.token });
    const first = await lastFiredAt();
    expect(first).not.toBeNull();
    await t.advanceClock(30);
    await fire('stays', { token: minted.token });
    expect(await lastFiredAt()).toBe(first);
    await t.advanceClock(31);
    await fire('stays', { token: minted.token });
    const later = await lastFiredAt();
    expect(new Date(later!).getTime()).toBeGreaterThanOrEqual(new Date(first!).getTime() + 60_000);
  });

  it('spec "Rollback webhooks" 1: a name used by a live secret in the env answers 409 key_in_use (fields.name); another env may use it', async () => {
    await owner.session.createRollbackSecret({ path: { envId }, body: { name: `taken-${kind}` } });
    const err = await expectApiError(owner.session.createRollbackSecret({ path: { envId }, body: { name: `taken-${kind}` } }), 409, 'key_in_use');
    expect(Object.keys(err.fields ?? {})).toEqual(['name']);
    expect((await owner.session.createRollbackSecret({ path: { envId: otherEnvId }, body: { name: `taken-${kind}` } })).name).toBe(`taken-${kind}`);
  });

  it('spec "Rollback webhooks" 2: the secret list includes revoked secrets (revokedAt set) and never a token or its hash', async () => {
    const minted = await owner.session.createRollbackSecret({ path: { envId: otherEnvId }, body: { name: `listed-${kind}` } });
    await owner.session.revokeRollbackSecret({ path: { envId: otherEnvId, id: minted.id } });
    const listed = await owner.session.listRollbackSecrets({ path: { envId: otherEnvId } });
    const row = listed.find((s) => s.id === minted.id);
    expect(row).toMatchObject({ name: `listed-${kind}`, tokenPrefix: minted.token.slice(0, 10), revokedAt: expect.any(String) });
    expect(row).not.toHaveProperty('token');
    expect(row).not.toHaveProperty('tokenHash');
    expect(JSON.stringify(listed)).not.toContain(minted.token);
  });
});

describe('concurrent rollback fires', () => {
  let t: TestServer;
  let owner: ClaimedInstance;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
  });
  afterAll(() => t?.close());

  it('100 concurrent fires on one rollout: one transition, one audit row, 100 records', async () => {
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'p', name: 'P' } });
    const env = await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } });
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'hot', name: 'Hot', defaultValue: false } });
    await owner.session.putFlagRollout({ path: { envId: env.id, key: 'hot' }, body: { percent: 50, newValue: true } });
    const { token } = await owner.session.createRollbackSecret({ path: { envId: env.id }, body: { name: 'pagerduty' } });
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${t.url}/api/v1/webhooks/rollback/envs/${env.id}/flags/hot`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { noop?: boolean; code?: string },
        })),
      ),
    );
    const transitioned = results.filter((r) => r.status === 200 && r.body.noop === false);
    const noops = results.filter((r) => r.status === 200 && r.body.noop === true);
    const limited = results.filter((r) => r.status === 429);
    expect(transitioned).toHaveLength(1);
    expect(noops.length + limited.length).toBe(99);
    expect(limited.length).toBe(40); // 60 per minute per rollout
    const audit = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', envId: env.id, limit: 200 } });
    expect(audit.events.filter((e) => e.action === 'rollout.auto_rollback')).toHaveLength(1);
    const history = await owner.session.listRollbackFires({ path: { envId: env.id }, query: { limit: 200 } });
    expect(history.fires).toHaveLength(100);
    const outcomes = history.fires.reduce<Record<string, number>>((acc, f) => ({ ...acc, [f.outcome]: (acc[f.outcome] ?? 0) + 1 }), {});
    expect(outcomes).toEqual({ transitioned: 1, noop_already_rolled_back: 59, error_rate_limited: 40 });
  });
});
