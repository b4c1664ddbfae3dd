import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * A config's JSON Schema (docs/configs.md): every value written is checked against it, and a 400
 * names each failing path, before anything is written.
 */
describe('config value schemas', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let prod: string;
  const api = () => owner.session;
  const schema = {
    type: 'object',
    properties: { maxItems: { type: 'integer', minimum: 1, maximum: 100 }, currency: { enum: ['EUR', 'USD'] } },
    required: ['maxItems', 'currency'],
    additionalProperties: false,
  };
  const path = () => ({ envId: prod, key: 'limits' });

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await api().createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    prod = (await api().createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
  });
  afterAll(() => t?.close());

  it('refuses a schema it does not accept: an unknown keyword, pattern, a reference outside the schema, too long (400 naming schema)', async () => {
    const create = (s: Record<string, unknown>) => api().createConfig({ path: { id: projectId }, body: { key: 'bad', name: 'Bad', defaultValue: 'x', schema: s } });
    for (const bad of [{ type: 'string', maxLenght: 3 }, { type: 'string', pattern: '^(a+)+$' }, { $ref: 'https://example.com/schema.json' }, { type: 'string', format: 'email' }, { enum: ['x'.repeat(17_000)] }]) {
      const refused = await expectApiError(create(bad), 400, 'invalid_request');
      expect(Object.keys(refused.fields ?? {})).toEqual(['schema']);
    }
    await expectApiError(api().getConfig({ path: { id: projectId, key: 'bad' } }), 404, 'not_found');
  });

  it('checks the default value, rules and variants on create, naming each failing path', async () => {
    const refused = await expectApiError(
      api().createConfig({
        path: { id: projectId },
        body: {
          key: 'limits',
          name: 'Limits',
          schema,
          defaultValue: { maxItems: 500, currency: 'EUR', extra: true },
          rules: [{ conditions: [], value: { maxItems: 5 } }],
          variants: { small: { maxItems: 0, currency: 'GBP' } },
        },
      }),
      400,
      'invalid_request',
    );
    expect(refused.fields).toEqual({
      'defaultValue.maxItems': 'must be <= 100',
      'defaultValue.extra': 'not allowed by the schema',
      'rules.0.value.currency': 'required',
      'variants.small.maxItems': 'must be >= 1',
      'variants.small.currency': 'must be equal to one of the allowed values',
    });
    const config = await api().createConfig({
      path: { id: projectId },
      body: { key: 'limits', name: 'Limits', schema, defaultValue: { maxItems: 10, currency: 'EUR' }, variants: { big: { maxItems: 100, currency: 'USD' } } },
    });
    expect(config.schema).toEqual(schema);
  });

  it('checks every value written: the value, rules, a rollout candidate (a 400 names the path; nothing is written)', async () => {
    const value = await expectApiError(api().setConfigValue({ path: path(), body: { value: { maxItems: 'ten', currency: 'EUR' } } }), 400, 'invalid_request');
    expect(value.fields).toEqual({ 'value.maxItems': 'must be integer' });
    const rules = await expectApiError(
      api().setConfigRules({ path: path(), body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: { maxItems: 50, currency: 'EUR' } }, { conditions: [], value: [1] }] } }),
      400,
      'invalid_request',
    );
    expect(rules.fields).toEqual({ 'rules.1.value': 'must be object' });
    const rollout = await expectApiError(api().putConfigRollout({ path: path(), body: { percent: 10, newValue: { maxItems: 20 } } }), 400, 'invalid_request');
    expect(rollout.fields).toEqual({ 'newValue.currency': 'required' });
    const state = await api().getConfigState({ path: path() });
    expect(state).toMatchObject({ value: { maxItems: 10, currency: 'EUR' }, rules: [], rollout: null });
    // What fits is written.
    expect((await api().setConfigValue({ path: path(), body: { value: { maxItems: 20, currency: 'USD' } } })).value).toEqual({ maxItems: 20, currency: 'USD' });
    expect((await api().setConfigValue({ path: path(), body: { variant: 'big' } })).value).toEqual({ maxItems: 100, currency: 'USD' });
    await api().putConfigRollout({ path: path(), body: { percent: 10, newValue: { maxItems: 30, currency: 'EUR' } } });
  });

  it('changes the schema only when every value the config holds fits it, naming each that does not; null removes it; a flag has none', async () => {
    const stricter = { ...schema, properties: { ...schema.properties, maxItems: { type: 'integer', maximum: 50 } } };
    const refused = await expectApiError(api().updateConfig({ path: { id: projectId, key: 'limits' }, body: { schema: stricter } }), 400, 'invalid_request');
    expect(refused.fields).toEqual({ 'variants.big.maxItems': 'must be <= 50', 'environments.prod.value.maxItems': 'must be <= 50' });
    expect((await api().getConfig({ path: { id: projectId, key: 'limits' } })).schema).toEqual(schema);

    const looser = { ...schema, required: ['maxItems'] };
    expect((await api().updateConfig({ path: { id: projectId, key: 'limits' }, body: { schema: looser } })).schema).toEqual(looser);
    await api().setConfigValue({ path: path(), body: { value: { maxItems: 3 } } });
    expect((await api().updateConfig({ path: { id: projectId, key: 'limits' }, body: { schema: null } })).schema).toBeNull();
    expect((await api().setConfigValue({ path: path(), body: { value: 'anything' } })).value).toBe('anything');

    await api().createFlag({ path: { id: projectId }, body: { key: 'on', name: 'On', defaultValue: false } });
    const flag = await expectApiError(api().updateFlag({ path: { id: projectId, key: 'on' }, body: { schema: { type: 'boolean' } } }), 400, 'invalid_request');
    expect(flag.fields).toEqual({ schema: 'a flag has a value type: schemas are for configs' });
  });

  it('never lets a rollout keep a candidate its schema refuses when a new candidate and a stricter schema are written at once', async () => {
    const loose = { type: 'object', properties: { max: { type: 'integer' } }, required: ['max'] };
    const strict = { type: 'object', properties: { max: { type: 'integer', maximum: 10 } }, required: ['max'] };
    for (let round = 0; round < 8; round++) {
      const key = `race-${round}`;
      await api().createConfig({ path: { id: projectId }, body: { key, name: key, schema: loose, defaultValue: { max: 1 } } });
      await api().putConfigRollout({ path: { envId: prod, key }, body: { percent: 10, newValue: { max: 5 } } });
      const [put, patch] = await Promise.allSettled([
        api().putConfigRollout({ path: { envId: prod, key }, body: { percent: 10, newValue: { max: 50 } } }),
        api().updateConfig({ path: { id: projectId, key }, body: { schema: strict } }),
      ]);
      // Either may come first; the second then finds the first and is refused.
      expect([put.status, patch.status].sort(), `round ${round}`).toEqual(['fulfilled', 'rejected']);
      const definition = await api().getConfig({ path: { id: projectId, key } });
      const rollout = (await api().getConfigState({ path: { envId: prod, key } })).rollout;
      expect(rollout?.newValue, `round ${round}`).toEqual(patch.status === 'fulfilled' ? { max: 5 } : { max: 50 });
      expect(definition.schema, `round ${round}`).toEqual(patch.status === 'fulfilled' ? strict : loose);
    }
  });

  it('serves the schema in the manifest, under x-gradual', async () => {
    await api().createConfig({ path: { id: projectId }, body: { key: 'theme', name: 'Theme', schema: { enum: ['light', 'dark'] }, defaultValue: 'light' } });
    const manifest = await api().getManifest({ path: { id: projectId } });
    expect(manifest.flags.theme?.['x-gradual'].schema).toEqual({ enum: ['light', 'dark'] });
    expect(manifest.flags.limits?.['x-gradual']).not.toHaveProperty('schema');
  });
});
