/**
 * The shared evaluation vectors (sdk/fixtures/evaluation-cases.json) through the API: one
 * project holds every segment and flag or config the cases use, built with the same calls an
 * operator makes, and `POST /envs/{envId}/evaluate` must answer each case's value, reason and
 * variant (and branch, where the case names one), and OFREP the same value, reason and variant in
 * its own terms. Cases marked `"api": false` describe rulesets the server never serves.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradualClient } from '@gradual/sdk';
import type { EvaluationContext, Ruleset, RulesetPrimitive, RulesetSegment } from '@gradual/sdk/evaluation';
import { claim, startTestServer, type TestServer } from '../support/server.js';

interface EvaluationCase {
  name: string;
  ruleset: Ruleset;
  context: EvaluationContext;
  key: string;
  expected: { value: unknown; reason: string; variant: string; branch?: string };
  api?: false;
}

const cases = (JSON.parse(readFileSync(new URL('../../sdk/fixtures/evaluation-cases.json', import.meta.url), 'utf8')) as EvaluationCase[]).filter(
  (c) => c.api !== false,
);

/** Every segment and primitive of the cases, once by key (the file uses one definition per key). */
function definitions(): { segments: RulesetSegment[]; primitives: RulesetPrimitive[] } {
  const segments = new Map<string, RulesetSegment>();
  const primitives = new Map<string, RulesetPrimitive>();
  for (const c of cases) {
    for (const s of c.ruleset.segments ?? []) segments.set(s.key, s);
    for (const p of c.ruleset.primitives) primitives.set(p.key, p);
  }
  return { segments: [...segments.values()], primitives: [...primitives.values()] };
}

async function build(api: GradualClient, projectId: string, envId: string): Promise<void> {
  const { segments, primitives } = definitions();
  // Segments first without rules, so that rules may name any of them.
  for (const s of segments) await api.createSegment({ path: { id: projectId }, body: { key: s.key, name: s.key } });
  for (const s of segments) {
    const path = { id: projectId, key: s.key };
    if (s.rules.length > 0) await api.updateSegment({ path, body: { rules: s.rules } });
    if (s.included.length > 0) await api.addSegmentIncluded({ path, body: { targetIds: s.included } });
    if (s.excluded.length > 0) await api.addSegmentExcluded({ path, body: { targetIds: s.excluded } });
  }
  for (const p of primitives) {
    const path = { envId, key: p.key };
    const body = { key: p.key, name: p.key, defaultValue: p.value, ...(p.variants ? { variants: p.variants } : {}) };
    if (p.kind === 'flag') {
      const valueType = typeof p.value === 'string' ? 'string' : typeof p.value === 'number' ? 'number' : 'boolean';
      await api.createFlag({ path: { id: projectId }, body: { ...body, valueType } });
      if (p.rules.length > 0) await api.setFlagRules({ path, body: { rules: p.rules } });
    } else {
      await api.createConfig({ path: { id: projectId }, body });
      if (p.rules.length > 0) await api.setConfigRules({ path, body: { rules: p.rules } });
    }
    const r = p.rollout;
    if (r !== null) {
      const rollout = { percent: r.percent, seed: r.seed, bucketField: r.bucketField, ...(r.newValue === undefined ? {} : { newValue: r.newValue }) };
      if (p.kind === 'flag') await api.putFlagRollout({ path, body: rollout });
      else await api.putConfigRollout({ path, body: rollout });
      if (r.targetIds.length > 0) {
        if (p.kind === 'flag') await api.addFlagTargetIds({ path, body: { targetIds: r.targetIds } });
        else await api.addConfigTargetIds({ path, body: { targetIds: r.targetIds } });
      }
    }
    if (p.archived === true) {
      if (p.kind === 'flag') await api.archiveFlag({ path: { id: projectId, key: p.key } });
      else await api.archiveConfig({ path: { id: projectId, key: p.key } });
    }
  }
}

describe('shared evaluation vectors through POST /envs/{envId}/evaluate', () => {
  let t: TestServer;
  let api: GradualClient;
  let envId: string;
  let ofrepToken: string;

  beforeAll(async () => {
    t = await startTestServer();
    api = (await claim(t)).session;
    const projectId = (await api.createProject({ path: { slug: 'acme' }, body: { key: 'vectors', name: 'Vectors' } })).id;
    envId = (await api.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } })).id;
    await build(api, projectId, envId);
    ofrepToken = (await api.createApiKey({ path: { slug: 'acme' }, body: { name: 'ofrep', actions: ['read'], environments: [envId] } })).token;
  }, 120_000);
  afterAll(() => t?.close());

  it('has cases the API can build', () => {
    expect(cases.length).toBeGreaterThan(60);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const { results } = await api.evaluate({ path: { envId }, body: { context: c.context, keys: [c.key] } });
    const r = results[c.key];
    expect(r && { value: r.value, reason: r.reason, variant: r.variant, ...(c.expected.branch !== undefined ? { branch: r.branch } : {}) }).toEqual(c.expected);
  });

  /**
   * OFREP in its own terms (docs/ofrep.md): an archived flag is the protocol's codeDefaultFlag (no
   * value, no variant: the caller's default); a context a live rollout cannot bucket, without a
   * targetingKey, is TARGETING_KEY_MISSING; everything else the same value, reason and variant.
   */
  it.each(cases.map((c) => [c.name, c] as const))('OFREP: %s', async (_, c) => {
    const res = await fetch(`${t.url}/api/v1/ofrep/v1/evaluate/flags/${encodeURIComponent(c.key)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ofrepToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ context: c.context }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    const primitive = c.ruleset.primitives.find((p) => p.key === c.key)!;
    const rollout = primitive.rollout;
    if (c.expected.reason === 'DISABLED') {
      expect(res.status).toBe(200);
      expect(body).toMatchObject({ key: c.key, reason: 'DISABLED' });
      expect(body).not.toHaveProperty('value');
      expect(body).not.toHaveProperty('variant');
    } else if (rollout && (rollout.status === 'active' || rollout.status === 'paused') && c.context[rollout.bucketField] == null) {
      expect(res.status).toBe(400);
      expect(body).toMatchObject({ key: c.key, errorCode: 'TARGETING_KEY_MISSING' });
    } else {
      expect(res.status).toBe(200);
      expect({ value: body.value, reason: body.reason, variant: body.variant }).toEqual({ value: c.expected.value, reason: c.expected.reason, variant: c.expected.variant });
    }
  });
});
