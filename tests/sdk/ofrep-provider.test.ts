import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ErrorCode, OpenFeature, type Client } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { compileRuleset, type CompiledRuleset, type EvaluationContext } from '@gradual/sdk/evaluation';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * OpenFeature's own OFREP provider, unmodified, against Gradual: the same answers as the API's
 * evaluate route and the SDK's local evaluator.
 */
describe('OFREP with @openfeature/ofrep-provider', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  let token: string;
  let client: Client;
  const DOMAIN = 'ofrep';
  const FLAGS = ['checkout', 'gated', 'banner', 'limit', 'limits'] as const;
  /** Primitives with a rollout: targetingKey stands in for their bucket field, userId. */
  const ROLLED_OUT = new Set<string>(['checkout', 'gated']);

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    const s = owner.session;
    const projectId = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    token = (await s.createApiKey({ path: { slug: 'acme' }, body: { name: 'ofrep', actions: ['read'], environments: [envId], rateLimitPerMin: 100_000 } })).token;

    const pro = { conditions: [{ attribute: 'plan', operator: 'in' as const, values: ['pro'] }] };
    await s.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    await s.setFlagRules({ path: { envId, key: 'checkout' }, body: { rules: [{ ...pro, value: true }] } });
    await s.putFlagRollout({ path: { envId, key: 'checkout' }, body: { percent: 40, newValue: true } });
    await s.addFlagTargetIds({ path: { envId, key: 'checkout' }, body: { targetIds: ['vip-1', 'vip-2'] } });
    await s.createFlag({ path: { id: projectId }, body: { key: 'gated', name: 'Gated', defaultValue: false } });
    await s.setFlagRules({ path: { envId, key: 'gated' }, body: { rules: [{ conditions: [{ attribute: 'country', operator: 'in', values: ['NL'] }], value: true }] } });
    await s.putFlagRollout({ path: { envId, key: 'gated' }, body: { percent: 50 } });
    await s.createFlag({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', valueType: 'string', defaultValue: 'Hello' } });
    await s.setFlagRules({ path: { envId, key: 'banner' }, body: { rules: [{ ...pro, value: 'Hello, pro' }] } });
    await s.createFlag({ path: { id: projectId }, body: { key: 'limit', name: 'Limit', valueType: 'number', defaultValue: 5 } });
    await s.createConfig({ path: { id: projectId }, body: { key: 'limits', name: 'Limits', defaultValue: { max: 1, regions: ['eu'] }, metadata: { owner: 'ops' } } });

    await OpenFeature.setProviderAndWait(DOMAIN, new OFREPProvider({ baseUrl: `${t.url}/api/v1`, headers: [['Authorization', `Bearer ${token}`]] }));
    client = OpenFeature.getClient(DOMAIN);
  });
  afterAll(async () => {
    await OpenFeature.close();
    await t?.close();
  });

  it('resolves boolean, string, number and object values with their reasons, variants and metadata', async () => {
    expect(await client.getBooleanDetails('checkout', false, { targetingKey: 'vip-1' })).toMatchObject({ value: true, reason: 'TARGETING_MATCH', variant: 'target-id' });
    expect(await client.getBooleanDetails('checkout', true, { targetingKey: 'x', plan: 'pro' })).toMatchObject({ value: expect.any(Boolean), flagMetadata: { rolloutPercent: 40 } });
    expect(await client.getStringDetails('banner', 'fallback', { plan: 'pro' })).toMatchObject({ value: 'Hello, pro', reason: 'TARGETING_MATCH', variant: 'rule-1' });
    expect(await client.getStringDetails('banner', 'fallback', { plan: 'free' })).toMatchObject({ value: 'Hello', reason: 'DEFAULT', variant: 'default' });
    expect(await client.getNumberDetails('limit', 0, {})).toMatchObject({ value: 5, reason: 'STATIC', variant: 'default', flagMetadata: {} });
    expect(await client.getObjectDetails('limits', {}, {})).toMatchObject({ value: { max: 1, regions: ['eu'] }, reason: 'STATIC', variant: 'default', flagMetadata: { owner: 'ops' } });
  });

  it('reports FLAG_NOT_FOUND, TYPE_MISMATCH and TARGETING_KEY_MISSING as the provider’s errors, with the default value', async () => {
    expect(await client.getBooleanDetails('no-such-flag', true, {})).toMatchObject({ value: true, reason: 'ERROR', errorCode: ErrorCode.FLAG_NOT_FOUND });
    expect(await client.getStringDetails('limit', 'fallback', {})).toMatchObject({ value: 'fallback', reason: 'ERROR', errorCode: ErrorCode.TYPE_MISMATCH });
    expect(await client.getNumberDetails('checkout', 7, { targetingKey: 'u-1' })).toMatchObject({ value: 7, reason: 'ERROR', errorCode: ErrorCode.TYPE_MISMATCH });
    expect(await client.getBooleanDetails('checkout', false, { plan: 'pro' })).toMatchObject({ value: false, reason: 'ERROR', errorCode: ErrorCode.TARGETING_KEY_MISSING });
  });

  it('agrees with POST /envs/{envId}/evaluate and the local evaluator for any context', async () => {
    const ruleset = await t.asToken(token).getRuleset({ path: { envId } });
    const local: CompiledRuleset = compileRuleset(ruleset);
    const ids = ['vip-1', 'vip-2', ...Array.from({ length: 20 }, (_, i) => `user-${i}`)];
    const id = fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 12 }), fc.integer({ min: 0, max: 10_000 }));
    const context = fc.record(
      {
        userId: fc.option(id, { nil: undefined }),
        targetingKey: fc.option(fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 12 })), { nil: undefined }),
        plan: fc.constantFrom('pro', 'free'),
        country: fc.constantFrom('NL', 'DE'),
      },
      { requiredKeys: ['plan', 'country'] },
    );
    const ofrep = async (key: string, ctx: object) => {
      const res = await fetch(`${t.url}/api/v1/ofrep/v1/evaluate/flags/${key}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ context: ctx }),
      });
      return { status: res.status, body: (await res.json()) as { value?: unknown; variant?: string; errorCode?: string } };
    };

    await fc.assert(
      fc.asyncProperty(context, async (ctx) => {
        const sent: EvaluationContext = Object.fromEntries(Object.entries(ctx).filter(([, v]) => v !== undefined));
        // As the SDK's OpenFeature provider maps it: targetingKey stands in for a missing bucket field.
        const bucketed: EvaluationContext = sent.userId === undefined && ctx.targetingKey !== undefined ? { ...sent, userId: ctx.targetingKey } : sent;
        const [raw, mapped] = await Promise.all([
          owner.session.evaluate({ path: { envId }, body: { context: sent } }),
          owner.session.evaluate({ path: { envId }, body: { context: bucketed } }),
        ]);
        for (const key of FLAGS) {
          const answer = await ofrep(key, sent);
          const rolledOut = ROLLED_OUT.has(key);
          if (rolledOut && sent.userId === undefined && ctx.targetingKey === undefined) {
            expect(answer).toMatchObject({ status: 400, body: { errorCode: 'TARGETING_KEY_MISSING' } });
            continue;
          }
          const server = (rolledOut ? mapped : raw).results[key]!;
          const mine = local.evaluate(key, rolledOut ? bucketed : sent)!;
          expect(answer.status, key).toBe(200);
          expect({ value: answer.body.value, variant: answer.body.variant }, key).toEqual({ value: server.value, variant: server.variant });
          expect({ value: mine.value, variant: mine.variant }, key).toEqual({ value: server.value, variant: server.variant });
        }
      }),
      { numRuns: 60 },
    );
  });
});
