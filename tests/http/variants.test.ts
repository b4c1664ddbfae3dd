import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * Named variants (docs/flags.md, docs/bucketing.md): declared on the definition, named by writes
 * instead of their values (stored as the values), reported by every evaluation as the served
 * value's name beside its branch, and kept while in use (409 variant_in_use).
 */
describe('named variants', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let prod: string;
  let staging: string;

  const api = () => owner.session;
  const layout = { id: '', key: 'layout' };
  const variants = { control: 'classic', 'treatment-a': 'compact', 'treatment-b': 'wide' };
  const evaluate = async (envId: string, context: Record<string, string>) =>
    (await api().evaluate({ path: { envId }, body: { context, keys: ['layout'] } })).results.layout;
  const version = async (envId: string) => (await api().getEnvironment({ path: { envId } })).version;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await api().createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    layout.id = projectId;
    prod = (await api().createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    staging = (await api().createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
  });
  afterAll(() => t?.close());

  it('refuses a variant map with a value of the wrong type, two variants with one value, or a branch name (400 naming the field)', async () => {
    const create = (body: Record<string, unknown>) =>
      api().createFlag({ path: { id: projectId }, body: { key: 'bad', name: 'Bad', valueType: 'string', defaultValue: 'x', ...body } });
    const wrongType = await expectApiError(create({ variants: { on: 'yes', off: false } }), 400, 'invalid_request');
    expect(wrongType.fields).toEqual({ 'variants.off': 'must be a string' });
    const twice = await expectApiError(create({ variants: { on: 'yes', also: 'yes' } }), 400, 'invalid_request');
    expect(twice.fields).toEqual({ 'variants.also': 'the same value as "on": each variant has its own value' });
    const branch = await expectApiError(create({ variants: { 'rule-1': 'yes' } }), 400, 'invalid_request');
    expect(Object.keys(branch.fields ?? {}).join()).toMatch(/variants/);
    const both = await expectApiError(create({ variants: { on: 'yes' }, defaultVariant: 'on' }), 400, 'invalid_request');
    expect(both.fields).toEqual({ defaultVariant: 'send defaultValue or defaultVariant, not both' });
    const unknown = await expectApiError(create({ defaultValue: undefined, variants: { on: 'yes' }, defaultVariant: 'off' }), 400, 'invalid_request');
    expect(unknown.fields).toEqual({ defaultVariant: 'no variant "off" (declared: on)' });
    await expectApiError(api().getFlag({ path: { id: projectId, key: 'bad' } }), 404, 'not_found');
  });

  it('creates a flag whose default names a variant: stored as its value, declared in every environment\'s ruleset, reported by /evaluate as the variant with its branch', async () => {
    const flag = await api().createFlag({ path: { id: projectId }, body: { key: 'layout', name: 'Layout', valueType: 'string', variants, defaultVariant: 'control' } });
    expect(flag).toMatchObject({ defaultValue: 'classic', variants });
    const ruleset = await api().getRuleset({ path: { envId: prod } });
    expect(ruleset.primitives.find((p) => p.key === 'layout')).toMatchObject({ value: 'classic', variants });
    expect(await evaluate(prod, { userId: 'u1' })).toMatchObject({ value: 'classic', reason: 'STATIC', variant: 'control', branch: 'default' });
  });

  it('takes rules, a base value and a rollout candidate by variant name (400 for both or an undeclared name); evaluation names what each branch serves', async () => {
    const rules = await api().setFlagRules({
      path: { envId: prod, key: 'layout' },
      body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], variant: 'treatment-a' }, { conditions: [{ attribute: 'plan', operator: 'in', values: ['beta'] }], value: 'tall' }] },
    });
    expect(rules.rules.map((r) => r.value)).toEqual(['compact', 'tall']);
    expect(rules.rules[0]).not.toHaveProperty('variant');
    expect(await evaluate(prod, { userId: 'u1', plan: 'pro' })).toMatchObject({ value: 'compact', reason: 'TARGETING_MATCH', variant: 'treatment-a', branch: 'rule-1' });
    // A value no variant declares keeps its branch's name.
    expect(await evaluate(prod, { userId: 'u1', plan: 'beta' })).toMatchObject({ value: 'tall', variant: 'rule-2', branch: 'rule-2' });
    const badRule = await expectApiError(
      api().setFlagRules({ path: { envId: prod, key: 'layout' }, body: { rules: [{ conditions: [], variant: 'treatment-z' }] } }),
      400,
      'invalid_request',
    );
    expect(badRule.fields).toEqual({ 'rules.0.variant': 'no variant "treatment-z" (declared: control, treatment-a, treatment-b)' });

    const staged = await api().setFlagValue({ path: { envId: staging, key: 'layout' }, body: { variant: 'treatment-a' } });
    expect(staged.value).toBe('compact');
    expect(await evaluate(staging, { userId: 'u1' })).toMatchObject({ value: 'compact', variant: 'treatment-a', branch: 'default' });
    const both = await expectApiError(api().setFlagValue({ path: { envId: staging, key: 'layout' }, body: { value: 'wide', variant: 'treatment-b' } }), 400, 'invalid_request');
    expect(both.fields).toEqual({ variant: 'send value or variant, not both' });

    const put = await api().putFlagRollout({ path: { envId: prod, key: 'layout' }, body: { percent: 99.99, newVariant: 'treatment-b', bucketField: 'userId' } });
    expect(put).toMatchObject({ kind: 'applied', data: { status: 'active', newValue: 'wide' } });
    expect(await evaluate(prod, { userId: 'u1' })).toMatchObject({ value: 'wide', reason: 'SPLIT', variant: 'treatment-b', branch: 'rollout-new' });
    const undeclared = await expectApiError(api().putFlagRollout({ path: { envId: prod, key: 'layout' }, body: { percent: 50, newVariant: 'nope' } }), 400, 'invalid_request');
    expect(undeclared.fields?.newVariant).toMatch(/no variant "nope"/);
    await expectApiError(api().putFlagRollout({ path: { envId: prod, key: 'layout' }, body: { percent: 50, newValue: 'wide', newVariant: 'treatment-b' } }), 400, 'invalid_request');
  });

  it('refuses to rename, change or remove a variant in use (409 variant_in_use naming them), edits the others with a new version of every environment, and audits the change', async () => {
    const path = { id: projectId, key: 'layout' };
    const before = [await version(prod), await version(staging)];
    const removed = await expectApiError(api().updateFlag({ path, body: { variants: { control: 'classic', 'treatment-a': 'compact' } } }), 409, 'variant_in_use');
    expect(removed.details).toEqual({ variants: ['treatment-b'] }); // the live rollout's candidate
    const renamed = await expectApiError(api().updateFlag({ path, body: { variants: { baseline: 'classic', 'treatment-a': 'compact', 'treatment-b': 'wide' } } }), 409, 'variant_in_use');
    expect(renamed.details).toEqual({ variants: ['control'] }); // the default value
    const changed = await expectApiError(api().updateFlag({ path, body: { variants: { ...variants, 'treatment-a': 'dense' } } }), 409, 'variant_in_use');
    expect(changed.details).toEqual({ variants: ['treatment-a'] }); // a rule in prod, the value in staging
    expect([await version(prod), await version(staging)]).toEqual(before);

    const added = await api().updateFlag({ path, body: { variants: { ...variants, 'treatment-c': 'tall' } } });
    expect(added.variants).toEqual({ ...variants, 'treatment-c': 'tall' });
    expect([await version(prod), await version(staging)]).toEqual(before.map((v) => v + 1));
    // The value rule 2 already served now has a name (a context without the bucket field skips the rollout).
    expect(await evaluate(prod, { plan: 'beta' })).toMatchObject({ value: 'tall', variant: 'treatment-c', branch: 'rule-2' });
    const [row] = (await api().listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'flag', resourceKey: 'layout' } })).events.filter((e) => e.action === 'flag.updated');
    const detail = await api().getAuditEvent({ path: { id: row!.id } });
    expect(detail.previousValue).toEqual({ variants });
    expect(detail.newValue).toEqual({ variants: { ...variants, 'treatment-c': 'tall' } });

    // Once the rollout is cancelled its candidate is free: its variant can go.
    await api().cancelFlagRollout({ path: { envId: prod, key: 'layout' } });
    const trimmed = await api().updateFlag({ path, body: { variants: { control: 'classic', 'treatment-a': 'compact', 'treatment-c': 'tall' } } });
    expect(Object.keys(trimmed.variants)).toEqual(['control', 'treatment-a', 'treatment-c']);
  });

  it('answers OFREP with the variant name, and counts usage under the branch', async () => {
    const token = (await api().createApiKey({ path: { slug: 'acme' }, body: { name: 'ofrep', actions: ['read'], environments: [prod] } })).token;
    const res = await fetch(`${t.url}/api/v1/ofrep/v1/evaluate/flags/layout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ context: { targetingKey: 'u3', plan: 'pro' } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ key: 'layout', value: 'compact', reason: 'TARGETING_MATCH', variant: 'treatment-a' });
    await t.server.deps.usage.flush();
    const usage = await api().getFlagUsage({ path: { id: projectId, key: 'layout' } });
    const counted = usage.environments.find((e) => e.envId === prod)?.variants.map((v) => v.variant) ?? [];
    expect(counted).toContain('rule-1');
    expect(counted).not.toContain('treatment-a');
  });
});
