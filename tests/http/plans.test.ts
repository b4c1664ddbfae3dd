import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { rolloutOps } from '../support/rollout-ops.js';
import { seedUser } from '../support/users.js';

const DAY = 86_400;

describe('rollout plans', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;
  const plans = () => ({ path: { id: projectId } });

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    await owner.session.createConfig({ path: { id: projectId }, body: { key: 'limits', name: 'Limits', defaultValue: 1 } });
  });
  afterAll(() => t?.close());

  it('creates a plan with the documented defaults and reads it back with an ETag', async () => {
    const plan = await owner.session.createRolloutPlan({
      ...plans(),
      body: { key: 'standard', name: 'Standard ramp', rampSteps: [{ percent: 1, holdForSeconds: 3600 }, { percent: 10, holdForSeconds: DAY }, { percent: 100, holdForSeconds: 0 }] },
    });
    expect(plan).toMatchObject({ projectId, key: 'standard', cadence: 'manual', blackoutDaysOfWeek: [], blackoutTimezone: 'UTC' });
    expect(plan).not.toHaveProperty('description');
    const { data, response } = await owner.session.withResponse.getRolloutPlan({ path: { id: projectId, planKey: 'standard' } });
    expect(data).toEqual(plan);
    const etag = response.headers.get('etag')!;
    const cached = await fetch(`${t.url}/api/v1/projects/${projectId}/rollout-plans/standard`, { headers: { cookie: `svc_session=${owner.sessionToken}`, 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    expect((await owner.session.listRolloutPlans(plans())).map((p) => p.key)).toEqual(['standard']);
    const audit = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout_plan' } });
    expect(audit.events[0]).toMatchObject({ action: 'rollout_plan.created', resourceKey: 'standard', envId: null });
  });

  it('spec "Create validation" 5: ramp failures (count, ordering, hold range, approval on manual) answer 400 rollout_plan_invalid_ramp naming each step', async () => {
    const ramp = (rampSteps: Array<{ percent: number; holdForSeconds: number; requiresApproval?: boolean }>, extra: object = {}) =>
      expectApiError(owner.session.createRolloutPlan({ ...plans(), body: { key: 'bad', name: 'Bad', rampSteps, ...extra } }), 400, 'rollout_plan_invalid_ramp');
    expect((await ramp([])).fields).toHaveProperty('rampSteps');
    expect((await ramp(Array.from({ length: 33 }, (_, i) => ({ percent: i + 1, holdForSeconds: i === 32 ? 0 : 60 })))).fields).toHaveProperty('rampSteps');
    expect((await ramp([{ percent: 10, holdForSeconds: 60 }, { percent: 5, holdForSeconds: 0 }])).fields).toHaveProperty(['rampSteps.1.percent']);
    expect((await ramp([{ percent: 0, holdForSeconds: 60 }, { percent: 5, holdForSeconds: 0 }])).fields).toHaveProperty(['rampSteps.0.percent']);
    expect((await ramp([{ percent: 10, holdForSeconds: 59 }, { percent: 50, holdForSeconds: 0 }])).fields).toHaveProperty(['rampSteps.0.holdForSeconds']);
    expect((await ramp([{ percent: 10, holdForSeconds: 2_592_001 }, { percent: 50, holdForSeconds: 0 }])).fields).toHaveProperty(['rampSteps.0.holdForSeconds']);
    expect((await ramp([{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 60 }])).fields).toHaveProperty(['rampSteps.1.holdForSeconds']);
    expect((await ramp([{ percent: 10, holdForSeconds: 60, requiresApproval: true }, { percent: 50, holdForSeconds: 0 }])).fields).toHaveProperty(['rampSteps.0.requiresApproval']);
    await owner.session.createRolloutPlan({ ...plans(), body: { key: 'gated', name: 'Gated', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: 60, requiresApproval: true }, { percent: 50, holdForSeconds: 0 }] } });
  });

  it('spec "Create validation" 2: 1 to 32 ramp steps, holds 60 to 2,592,000 s; 33 steps answer 400 rollout_plan_invalid_ramp, and openapi.yaml states maxItems 32', async () => {
    const ramp = (count: number, hold = 60) => Array.from({ length: count }, (_, i) => ({ percent: i + 1, holdForSeconds: i === count - 1 ? 0 : hold }));
    const refused = (rampSteps: Array<{ percent: number; holdForSeconds: number }>) =>
      expectApiError(owner.session.createRolloutPlan({ ...plans(), body: { key: 'long', name: 'Long', rampSteps } }), 400, 'rollout_plan_invalid_ramp');
    expect(Object.keys((await refused(ramp(33))).fields ?? {})).toEqual(['rampSteps']);
    expect(Object.keys((await refused([])).fields ?? {})).toEqual(['rampSteps']);
    expect(Object.keys((await refused(ramp(2, 59))).fields ?? {})).toEqual(['rampSteps.0.holdForSeconds']);
    expect(Object.keys((await refused(ramp(2, 2_592_001))).fields ?? {})).toEqual(['rampSteps.0.holdForSeconds']);
    const longest = await owner.session.createRolloutPlan({ ...plans(), body: { key: 'longest', name: 'Longest', rampSteps: ramp(32, 2_592_000) } });
    expect(longest.rampSteps).toHaveLength(32);
    const patched = owner.session.updateRolloutPlan({ path: { id: projectId, planKey: 'longest' }, body: { rampSteps: ramp(33) } });
    expect(Object.keys((await expectApiError(patched, 400, 'rollout_plan_invalid_ramp')).fields ?? {})).toEqual(['rampSteps']);
    await owner.session.deleteRolloutPlan({ path: { id: projectId, planKey: 'longest' } });

    const spec = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as {
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    };
    for (const request of ['CreateRolloutPlanRequest', 'UpdateRolloutPlanRequest']) {
      expect(spec.components.schemas[request]!.properties.rampSteps).toMatchObject({ minItems: 1, maxItems: 32 });
    }
    expect(spec.components.schemas.RampStepInput!.properties.holdForSeconds).toMatchObject({ minimum: 0, maximum: 2_592_000 });
  });

  it('validates key, name, days and timezone with invalid_request, and keys with rollout_plan_key_conflict', async () => {
    const steps = [{ percent: 100, holdForSeconds: 0 }];
    const bad = (body: object) => expectApiError(owner.session.createRolloutPlan({ ...plans(), body: { key: 'k', name: 'N', rampSteps: steps, ...body } }), 400, 'invalid_request');
    expect((await bad({ key: 'x'.repeat(65) })).fields).toHaveProperty('key');
    expect((await bad({ key: 'has space' })).fields).toHaveProperty('key');
    expect((await bad({ name: undefined })).fields).toHaveProperty('name');
    expect((await bad({ blackoutDaysOfWeek: [7] })).fields).toHaveProperty(['blackoutDaysOfWeek.0']);
    expect((await bad({ blackoutDaysOfWeek: [6], blackoutTimezone: 'Mars/Olympus' })).fields).toHaveProperty('blackoutTimezone');
    expect((await bad({ cadence: 'weekly' })).fields).toHaveProperty('cadence');
    const sorted = await owner.session.createRolloutPlan({ ...plans(), body: { key: 'weekends', name: 'W', rampSteps: steps, blackoutDaysOfWeek: [6, 0, 6], blackoutTimezone: 'Europe/Berlin' } });
    expect(sorted.blackoutDaysOfWeek).toEqual([0, 6]);
    await expectApiError(owner.session.createRolloutPlan({ ...plans(), body: { key: 'weekends', name: 'Again', rampSteps: steps } }), 409, 'rollout_plan_key_conflict');
  });

  it('spec "Rollout plans" 4: PATCH edits a plan (If-Match honoured, key immutable) and leaves the snapshot of attached rollouts', async () => {
    const ops = rolloutOps(owner.session, 'flag');
    const path = { envId, key: 'checkout' };
    const attached = await ops.put(path, { percent: 1, newValue: true, planKey: 'standard' });
    expect(attached).toMatchObject({ planKey: 'standard', cadence: 'manual', rampStepIdx: 0, planRampStepsSnapshot: [{ percent: 1 }, { percent: 10 }, { percent: 100 }] });

    const { response } = await owner.session.withResponse.getRolloutPlan({ path: { id: projectId, planKey: 'standard' } });
    await expectApiError(
      owner.session.updateRolloutPlan({ path: { id: projectId, planKey: 'standard' }, body: { name: 'x' }, headers: { 'if-match': '"old"' } }),
      412,
      'precondition_failed',
    );
    const patched = await owner.session.updateRolloutPlan({
      path: { id: projectId, planKey: 'standard' },
      body: { rampSteps: [{ percent: 5, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] },
      headers: { 'if-match': response.headers.get('etag')! },
    });
    expect(patched.rampSteps).toHaveLength(2);
    expect((await expectApiError(owner.session.updateRolloutPlan({ path: { id: projectId, planKey: 'standard' }, body: { key: 'renamed' } as never }), 400, 'invalid_request')).fields).toBeDefined();
    await expectApiError(
      owner.session.updateRolloutPlan({ path: { id: projectId, planKey: 'standard' }, body: { rampSteps: [{ percent: 5, holdForSeconds: 1 }, { percent: 100, holdForSeconds: 0 }] } }),
      400,
      'rollout_plan_invalid_ramp',
    );
    // The live rollout keeps its snapshot; re-sending the same planKey does not re-snapshot.
    expect((await ops.get(path)).planRampStepsSnapshot).toHaveLength(3);
    expect((await ops.put(path, { percent: 1, planKey: 'standard' })).planRampStepsSnapshot).toHaveLength(3);
  });

  it('advances a manual plan step by step and stops at the final step', async () => {
    const ops = rolloutOps(owner.session, 'flag');
    const path = { envId, key: 'checkout' };
    expect(await ops.advance(path)).toMatchObject({ percent: 10, rampStepIdx: 1, nextStepAt: null });
    const done = await ops.advance(path);
    expect(done).toMatchObject({ percent: 100, rampStepIdx: 2, status: 'completed' });
    await expectApiError(ops.advance(path), 409, 'rollout_already_at_final_step');
    const actions = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', limit: 4 } })).events.map((e) => e.action);
    expect(actions).toEqual(['rollout.completed', 'rollout.advanced', 'rollout.advanced', 'rollout.created']);
  });

  it('attaches a plan at a percent between steps (step still to be reached), and refuses a percent above the final step', async () => {
    const ops = rolloutOps(owner.session, 'config');
    const path = { envId, key: 'limits' };
    await owner.session.createRolloutPlan({ ...plans(), body: { key: 'half', name: 'Half', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 0 }] } });
    expect((await expectApiError(ops.put(path, { percent: 60, newValue: 2, planKey: 'half' }), 400, 'invalid_request')).fields).toHaveProperty('percent');
    expect((await expectApiError(ops.put(path, { percent: 5, newValue: 2, planKey: 'missing' }), 400, 'invalid_request')).fields).toHaveProperty('planKey');
    const r = await ops.put(path, { percent: 5, newValue: 2, planKey: 'half' });
    expect(r).toMatchObject({ percent: 5, rampStepIdx: 0 });
    expect(await ops.advance(path)).toMatchObject({ percent: 10, rampStepIdx: 0 });
    expect(await ops.advance(path)).toMatchObject({ percent: 50, rampStepIdx: 1, status: 'active' });
    // planKey: null detaches.
    expect(await ops.put(path, { percent: 50, planKey: null })).toMatchObject({ planKey: null, rampStepIdx: null, planRampStepsSnapshot: null, cadence: null });
  });

  it('spec "Rollout plans" 5: DELETE answers 409 rollout_plan_in_use while a live rollout references the plan, else 204, idempotent on a deleted plan', async () => {
    const ops = rolloutOps(owner.session, 'config');
    const path = { envId, key: 'limits' };
    await ops.put(path, { percent: 50, planKey: 'half' });
    await expectApiError(owner.session.deleteRolloutPlan({ path: { id: projectId, planKey: 'half' } }), 409, 'rollout_plan_in_use');
    await ops.cancel(path);
    await owner.session.deleteRolloutPlan({ path: { id: projectId, planKey: 'half' } });
    await owner.session.deleteRolloutPlan({ path: { id: projectId, planKey: 'half' } });
    await expectApiError(owner.session.getRolloutPlan({ path: { id: projectId, planKey: 'half' } }), 404, 'not_found');
    await expectApiError(owner.session.deleteRolloutPlan({ path: { id: projectId, planKey: 'never-existed' } }), 404, 'not_found');
    const actions = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout_plan', resourceKey: 'half' } })).events.map((e) => e.action);
    expect(actions).toEqual(['rollout_plan.deleted', 'rollout_plan.created']);
    // The key can be used again.
    await owner.session.createRolloutPlan({ ...plans(), body: { key: 'half', name: 'Half again', rampSteps: [{ percent: 100, holdForSeconds: 0 }] } });
  });

  it('spec "Migration warnings": legacy per-rule percentages become env-scoped rollouts; the warnings name the flag, the rule indices and the hoisted rule', async () => {
    const staging = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    await owner.session.createFlag({
      path: { id: projectId },
      body: {
        key: 'legacy',
        name: 'Legacy',
        defaultValue: false,
        rules: [
          { conditions: [{ attribute: 'plan', operator: 'in', values: ['free'] }], value: false },
          { conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: true, rolloutPercent: 25 },
          { conditions: [{ attribute: 'plan', operator: 'in', values: ['team'] }], value: true, rolloutPercent: 50 },
        ],
      },
    });
    const state = await owner.session.getFlagState({ path: { envId: staging, key: 'legacy' } });
    expect(state.rules.every((r) => !('rolloutPercent' in r))).toBe(true);
    expect(state.rollout).toMatchObject({ status: 'active', percent: 25 });
    expect(state.rollout).not.toHaveProperty('newValue');
    const warnings = await owner.session.listRolloutMigrationWarnings({ path: { slug: 'acme' } });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({ flagKey: 'legacy', ruleIndices: [1, 2], hoistedRuleIndex: 1 });
    expect(new Set(warnings.map((w) => w.envId))).toEqual(new Set([envId, staging]));
  });

  const steps = [{ percent: 100, holdForSeconds: 0 }];

  it('spec "Rollout plans" 2: POST answers 201 with the plan; an unknown project answers 404 not_found', async () => {
    const { data, response } = await owner.session.withResponse.createRolloutPlan({ ...plans(), body: { key: 'created-201', name: 'C', rampSteps: steps } });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ projectId, key: 'created-201', name: 'C', rampSteps: steps });
    await expectApiError(
      owner.session.createRolloutPlan({ path: { id: '00000000-0000-4000-8000-000000000000' }, body: { key: 'x', name: 'X', rampSteps: steps } }),
      404,
      'not_found',
    );
  });

  it('spec "Create validation" 1: key is required, at most 64 characters (65 answer 400 invalid_request) and unique in the project (409 rollout_plan_key_conflict)', async () => {
    const create = (body: object) => owner.session.createRolloutPlan({ ...plans(), body: { name: 'N', rampSteps: steps, ...body } as never });
    expect(Object.keys((await expectApiError(create({}), 400, 'invalid_request')).fields ?? {})).toEqual(['key']);
    expect(Object.keys((await expectApiError(create({ key: 'k'.repeat(65) }), 400, 'invalid_request')).fields ?? {})).toEqual(['key']);
    expect((await create({ key: 'k'.repeat(64) })).key).toBe('k'.repeat(64));
    await expectApiError(create({ key: 'k'.repeat(64) }), 409, 'rollout_plan_key_conflict');
    // Unique within a project, not across projects.
    const other = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'other', name: 'Other' } })).id;
    expect((await owner.session.createRolloutPlan({ path: { id: other }, body: { key: 'k'.repeat(64), name: 'N', rampSteps: steps } })).projectId).toBe(other);
  });

  it('spec "Create validation" 3: requiresApproval true answers 400 rollout_plan_invalid_ramp on cadence manual and is accepted on cadence auto', async () => {
    const rampSteps = [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 0, requiresApproval: true }];
    const manual = owner.session.createRolloutPlan({ ...plans(), body: { key: 'approval-manual', name: 'M', cadence: 'manual', rampSteps } });
    expect(Object.keys((await expectApiError(manual, 400, 'rollout_plan_invalid_ramp')).fields ?? {})).toEqual(['rampSteps.1.requiresApproval']);
    const auto = await owner.session.createRolloutPlan({ ...plans(), body: { key: 'approval-auto', name: 'A', cadence: 'auto', rampSteps } });
    expect(auto.rampSteps[1]).toMatchObject({ percent: 50, requiresApproval: true });
  });

  it('spec "Create validation" 4: with blackout days, blackoutTimezone must be an IANA timezone (400 invalid_request naming blackoutTimezone)', async () => {
    const create = (key: string, blackoutTimezone: string) =>
      owner.session.createRolloutPlan({ ...plans(), body: { key, name: 'B', rampSteps: steps, blackoutDaysOfWeek: [0], blackoutTimezone } });
    expect(Object.keys((await expectApiError(create('tz-bad', 'Not/AZone'), 400, 'invalid_request')).fields ?? {})).toEqual(['blackoutTimezone']);
    expect(await create('tz-good', 'America/New_York')).toMatchObject({ blackoutDaysOfWeek: [0], blackoutTimezone: 'America/New_York' });
  });

  it('spec "Versioning" 4: a plan edit (audit rollout_plan.updated) leaves live rollouts on their snapshot; rollouts attached afterwards take the new shape', async () => {
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'snap-a', name: 'A', defaultValue: false } });
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'snap-b', name: 'B', defaultValue: false } });
    const ops = rolloutOps(owner.session, 'flag');
    await owner.session.createRolloutPlan({ ...plans(), body: { key: 'snap', name: 'Snap', rampSteps: [{ percent: 1, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] } });
    const before = await ops.put({ envId, key: 'snap-a' }, { percent: 1, newValue: true, planKey: 'snap' });
    const next = [{ percent: 2, holdForSeconds: 120 }, { percent: 20, holdForSeconds: 120 }, { percent: 100, holdForSeconds: 0 }];
    await owner.session.updateRolloutPlan({ path: { id: projectId, planKey: 'snap' }, body: { rampSteps: next } });
    expect((await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout_plan', resourceKey: 'snap', limit: 1 } })).events[0]).toMatchObject({
      action: 'rollout_plan.updated',
    });
    expect((await ops.get({ envId, key: 'snap-a' })).planRampStepsSnapshot).toEqual(before.planRampStepsSnapshot);
    expect((await ops.put({ envId, key: 'snap-b' }, { percent: 1, newValue: true, planKey: 'snap' })).planRampStepsSnapshot).toEqual(next);
    await ops.cancel({ envId, key: 'snap-a' });
    await ops.cancel({ envId, key: 'snap-b' });
  });

  it('spec "Rollout status" 8: advance on cadence auto (operator override) moves to the next step at once, ignoring holdForSeconds, blackout windows and approval gates (audit rollout.advanced)', async () => {
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'override', name: 'O', defaultValue: false } });
    // The server's day of the week (0 = Sunday) is blacked out, with the next day.
    const today = (await t.advanceClock(0)).getUTCDay();
    await owner.session.createRolloutPlan({
      ...plans(),
      body: {
        key: 'slow',
        name: 'Slow',
        cadence: 'auto',
        blackoutDaysOfWeek: [today, (today + 1) % 7],
        blackoutTimezone: 'UTC',
        rampSteps: [
          { percent: 10, holdForSeconds: 30 * DAY },
          { percent: 50, holdForSeconds: 30 * DAY, requiresApproval: true },
          { percent: 100, holdForSeconds: 0 },
        ],
      },
    });
    const ops = rolloutOps(owner.session, 'flag');
    const path = { envId, key: 'override' };
    expect(await ops.put(path, { percent: 10, newValue: true, planKey: 'slow' })).toMatchObject({ cadence: 'auto', rampStepIdx: 0, percent: 10 });
    expect(await ops.advance(path)).toMatchObject({ status: 'active', percent: 50, rampStepIdx: 1 });
    expect((await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'override', limit: 1 } })).events[0]).toMatchObject({
      action: 'rollout.advanced',
    });
    await ops.cancel(path);
  });

  it('spec "Rollout status" 4: resume at an approval gate approves it and advances to the gated step in one write (audit rollout.approval_resolved)', async () => {
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'gate', name: 'G', defaultValue: false } });
    await owner.session.createRolloutPlan({
      ...plans(),
      body: { key: 'gate', name: 'Gate', cadence: 'auto', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 60, requiresApproval: true }, { percent: 100, holdForSeconds: 0 }] },
    });
    const ops = rolloutOps(owner.session, 'flag');
    const path = { envId, key: 'gate' };
    await ops.put(path, { percent: 10, newValue: true, planKey: 'gate' });
    await t.advanceClock(61);
    expect(await ops.get(path)).toMatchObject({ status: 'paused', pausedReason: 'approval_gate', percent: 10 });
    const v = (await owner.session.getEnvironment({ path: { envId } })).version;
    expect(await ops.resume(path)).toMatchObject({ percent: 50, rampStepIdx: 1, pausedReason: null });
    expect((await owner.session.getEnvironment({ path: { envId } })).version).toBe(v + 1);
    const [row] = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', resourceKey: 'gate', limit: 1 } })).events;
    expect(row).toMatchObject({ action: 'rollout.approval_resolved', version: v + 1 });
    await ops.cancel(path);
  });

  it('spec "Migration warnings": the list needs an admin or owner session; a member gets 403 insufficient_role', async () => {
    const orgId = (await owner.session.getOrg({ path: { slug: 'acme' } })).id;
    const member = await seedUser(t.server.deps.db, 'warned-member@example.com', { orgId, role: 'member' });
    await expectApiError(t.asSession(member.sessionToken).listRolloutMigrationWarnings({ path: { slug: 'acme' } }), 403, 'insufficient_role');
    const admin = await seedUser(t.server.deps.db, 'warned-admin@example.com', { orgId, role: 'admin' });
    expect(Array.isArray(await t.asSession(admin.sessionToken).listRolloutMigrationWarnings({ path: { slug: 'acme' } }))).toBe(true);
  });

  it('spec "PUT rules" 2: planKey snapshots the plan\'s ramp steps, cadence and blackout configuration onto the rollout', async () => {
    await owner.session.createConfig({ path: { id: projectId }, body: { key: 'snapshot', name: 'S', defaultValue: 1 } });
    const rampSteps = [{ percent: 5, holdForSeconds: 600 }, { percent: 100, holdForSeconds: 0 }];
    await owner.session.createRolloutPlan({
      ...plans(),
      body: { key: 'berlin', name: 'Berlin', cadence: 'auto', rampSteps, blackoutDaysOfWeek: [0, 6], blackoutTimezone: 'Europe/Berlin' },
    });
    const ops = rolloutOps(owner.session, 'config');
    const attached = await ops.put({ envId, key: 'snapshot' }, { percent: 5, newValue: 2, planKey: 'berlin' });
    expect(attached).toMatchObject({ planKey: 'berlin', cadence: 'auto', planBlackoutDaysOfWeek: [0, 6], planBlackoutTimezone: 'Europe/Berlin', rampStepIdx: 0 });
    expect(attached.planRampStepsSnapshot).toEqual(rampSteps);
    await ops.cancel({ envId, key: 'snapshot' });
  });
});
