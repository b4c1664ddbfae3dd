/**
 * The shared evaluation vectors (sdk/fixtures/evaluation-cases.json) through the API: one
 * project holds every segment and flag or config the cases use, built with the same calls an
 * operator makes, and `POST /envs/{envId}/evaluate` must answer each case's value, reason and
 * variant. Cases marked `"api": false` describe rulesets the server never serves.
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
  expected: { value: unknown; reason: string; variant: string };
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
    const body = { key: p.key, name: p.key, defaultValue: p.value };
    if (p.kind === 'flag') {
      await api.createFlag({ path: { id: projectId }, body });
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

  beforeAll(async () => {
    t = await startTestServer();
    api = (await claim(t)).session;
    const projectId = (await api.createProject({ path: { slug: 'acme' }, body: { key: 'vectors', name: 'Vectors' } })).id;
    envId = (await api.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } })).id;
    await build(api, projectId, envId);
  }, 120_000);
  afterAll(() => t?.close());

  it('has cases the API can build', () => {
    expect(cases.length).toBeGreaterThan(60);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const { results } = await api.evaluate({ path: { envId }, body: { context: c.context, keys: [c.key] } });
    const r = results[c.key];
    expect(r && { value: r.value, reason: r.reason, variant: r.variant }).toEqual(c.expected);
  });
});
