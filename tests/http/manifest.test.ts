import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/** The OpenFeature CLI's published manifest schema, kept as a fixture (tests/fixtures/openfeature-manifest). */
const schema: unknown = JSON.parse(readFileSync(new URL('../fixtures/openfeature-manifest/flag-manifest.schema.json', import.meta.url), 'utf8'));
const validate = new Ajv({ strict: false }).compile(schema as object);

/** GET /projects/{id}/manifest: the project's flags as an OpenFeature flag manifest (docs/typed-flags.md). */
describe('OpenFeature flag manifest', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  const api = () => owner.session;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await api().createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    await api().createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } });
    const path = { id: projectId };
    await api().createFlag({ path, body: { key: 'checkout-new', name: 'New checkout', description: 'The one-page checkout', defaultValue: false, variants: { on: true, off: false }, tags: ['team:checkout'] } });
    await api().createFlag({ path, body: { key: 'checkout-layout', name: 'Layout', valueType: 'string', variants: { control: 'classic', compact: 'compact' }, defaultVariant: 'control' } });
    await api().createFlag({ path, body: { key: 'page-size', name: 'Page size', valueType: 'number', defaultValue: 20, variants: { small: 10, large: 50 } } });
    await api().createFlag({ path, body: { key: 'sample-rate', name: 'Sample rate', valueType: 'number', defaultValue: 0.25 } });
    await api().createConfig({ path, body: { key: 'limits', name: 'Limits', defaultValue: { maxItems: 10 }, clientVisible: true } });
    await api().createFlag({ path, body: { key: 'shared', name: 'Shared flag', defaultValue: true } });
    await api().createConfig({ path, body: { key: 'shared', name: 'Shared config', defaultValue: { a: 1 } } });
    await api().createFlag({ path, body: { key: 'retired', name: 'Retired', defaultValue: true } });
    await api().archiveFlag({ path: { id: projectId, key: 'retired' } });
  });
  afterAll(() => t?.close());

  it('serves every live flag and config in the OpenFeature CLI\'s format, valid against its published schema, with Gradual\'s fields under x-gradual', async () => {
    const manifest = await api().getManifest({ path: { id: projectId } });
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ flags: { bad: { flagType: 'integer', defaultValue: 1.5 } } })).toBe(false); // the schema does check
    expect(manifest.$schema).toBe('https://raw.githubusercontent.com/open-feature/cli/refs/heads/main/schema/v0/flag-manifest.json');
    expect(Object.keys(manifest.flags).sort()).toEqual(['checkout-layout', 'checkout-new', 'limits', 'page-size', 'sample-rate', 'shared']);
    expect(manifest.flags['checkout-new']).toEqual({
      flagType: 'boolean',
      defaultValue: false,
      description: 'The one-page checkout',
      'x-gradual': { kind: 'flag', name: 'New checkout', valueType: 'boolean', variants: { on: true, off: false }, tags: ['team:checkout'], maintainer: null, clientVisible: false },
    });
    expect(manifest.flags['checkout-layout']).toMatchObject({ flagType: 'string', defaultValue: 'classic', 'x-gradual': { variants: { control: 'classic', compact: 'compact' } } });
    // Whole numbers everywhere: integer; a fraction anywhere: float.
    expect(manifest.flags['page-size']?.flagType).toBe('integer');
    expect(manifest.flags['sample-rate']?.flagType).toBe('float');
    expect(manifest.flags.limits).toMatchObject({ flagType: 'object', defaultValue: { maxItems: 10 }, 'x-gradual': { kind: 'config', clientVisible: true } });
    expect(manifest.flags.limits?.['x-gradual']).not.toHaveProperty('valueType');
    // A key a flag and a config share is the config's, as evaluation by key answers it.
    expect(manifest.flags.shared).toMatchObject({ flagType: 'object', 'x-gradual': { kind: 'config', name: 'Shared config' } });
  });

  it('sends a strong ETag that a change moves, and answers If-None-Match with 304', async () => {
    const first = await api().withResponse.getManifest({ path: { id: projectId } });
    const etag = first.response.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await api().withResponse.getManifest({ path: { id: projectId }, headers: { 'if-none-match': etag } })).response.status).toBe(304);
    await api().archiveFlag({ path: { id: projectId, key: 'sample-rate' } });
    const after = await api().withResponse.getManifest({ path: { id: projectId }, headers: { 'if-none-match': etag } });
    expect(after.response.status).toBe(200);
    expect(after.data?.flags).not.toHaveProperty('sample-rate'); // archived: left out
    await api().restoreFlag({ path: { id: projectId, key: 'sample-rate' } });
  });

  it('shows a key restricted to resources only the keys its globs match', async () => {
    const { token } = await api().createApiKey({ path: { slug: 'acme' }, body: { name: 'checkout', actions: ['read'], resources: ['checkout-*'] } });
    const manifest = await t.asToken(token).getManifest({ path: { id: projectId } });
    expect(Object.keys(manifest.flags).sort()).toEqual(['checkout-layout', 'checkout-new']);
    expect(validate(manifest)).toBe(true);
  });
});
