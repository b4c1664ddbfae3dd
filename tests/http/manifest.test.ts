import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
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

/**
 * The OpenFeature CLI's Manifest Management API under a project, requested as the CLI requests it
 * (`--provider-url <server>/api/v1/projects/<id>`, a bearer token, its fixed paths), its answers
 * checked against the CLI's own OpenAPI description (tests/fixtures/openfeature-manifest/sync.yaml).
 */
describe('OpenFeature CLI pull and push', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let token: string;
  const sync = parse(readFileSync(new URL('../fixtures/openfeature-manifest/sync.yaml', import.meta.url), 'utf8')) as object;
  const ajv = new Ajv({ strict: false, validateFormats: false });
  ajv.addSchema(sync, 'sync');
  const schemaOf = (name: string) => ajv.getSchema(`sync#/components/schemas/${name}`)!;

  /** A request as the CLI's sync client sends it. */
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.url}/api/v1/projects/${projectId}/openfeature/v0/manifest${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'user-agent': 'openfeature-cli/sync', ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } });
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'search-rollout', name: 'Search rollout', description: 'Old text', defaultValue: false } });
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'page-size', name: 'Page size', valueType: 'number', defaultValue: 20 } });
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'retired', name: 'Retired', defaultValue: false } });
    await owner.session.archiveFlag({ path: { id: projectId, key: 'retired' } });
    token = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'openfeature-cli', actions: ['read', 'write'] } })).token;
  });
  afterAll(() => t?.close());

  it('pull: the live flags as a list, valid against the CLI\'s ManifestEnvelope', async () => {
    const pulled = await call('GET', '');
    expect(pulled.status).toBe(200);
    expect(schemaOf('ManifestEnvelope')(pulled.body), JSON.stringify(schemaOf('ManifestEnvelope').errors)).toBe(true);
    expect(pulled.body.flags).toEqual([
      { key: 'page-size', name: 'Page size', type: 'integer', defaultValue: 20 },
      { key: 'search-rollout', name: 'Search rollout', type: 'boolean', description: 'Old text', defaultValue: false },
    ]);
  });

  it('push: creates what is missing, describes what changed, refuses a changed type or default value and a taken key', async () => {
    // The CLI's push: read the remote flags, POST the missing ones, PUT the ones that differ.
    const local = [
      { key: 'search-rollout', type: 'boolean', description: 'Enable the new search experience.', defaultValue: false },
      { key: 'welcome-banner', type: 'string', description: '', defaultValue: 'control' },
      { key: 'limits', type: 'object', defaultValue: { maxItems: 10 } },
      { key: 'page-size', type: 'integer', defaultValue: 20 },
    ];
    const remote = new Map(((await call('GET', '')).body.flags as Array<{ key: string; description?: string }>).map((f) => [f.key, f]));
    for (const flag of local) {
      const existing = remote.get(flag.key);
      if (!existing) {
        const created = await call('POST', '/flags', flag);
        expect(created.status).toBe(201);
        expect(schemaOf('ManifestFlagResponse')(created.body), JSON.stringify(schemaOf('ManifestFlagResponse').errors)).toBe(true);
      } else if ((existing.description ?? '') !== (flag.description ?? '')) {
        const updated = await call('PUT', `/flags/${flag.key}`, flag);
        expect(updated.status).toBe(200);
        expect(updated.body.flag).toMatchObject({ key: 'search-rollout', description: 'Enable the new search experience.' });
      }
    }
    expect(await owner.session.getFlag({ path: { id: projectId, key: 'welcome-banner' } })).toMatchObject({ valueType: 'string', defaultValue: 'control', description: null, name: 'welcome-banner' });
    expect(await owner.session.getConfig({ path: { id: projectId, key: 'limits' } })).toMatchObject({ defaultValue: { maxItems: 10 } });
    // Pushing again changes nothing: everything matches.
    const again = (await call('GET', '')).body.flags as Array<{ key: string }>;
    expect(again.map((f) => f.key)).toEqual(['limits', 'page-size', 'search-rollout', 'welcome-banner']);

    const fixed = await call('PUT', '/flags/page-size', { key: 'page-size', type: 'string', defaultValue: 25 });
    expect(fixed).toMatchObject({ status: 409, body: { code: 'definition_fixed', fields: { type: expect.any(String), defaultValue: expect.any(String) } } });
    expect((await call('PUT', '/flags/page-size', { key: 'page-size', type: 'float', defaultValue: 20 })).status).toBe(200); // integer and float: one number type
    expect(await call('PUT', '/flags/retired', { key: 'retired', type: 'boolean', defaultValue: false })).toMatchObject({ status: 409, body: { code: 'primitive_archived' } });
    expect(await call('POST', '/flags', { key: 'retired', type: 'boolean', defaultValue: true })).toMatchObject({ status: 409, body: { code: 'key_in_use' } });
    expect(await call('POST', '/flags', { key: 'ratio', type: 'integer', defaultValue: 1.5 })).toMatchObject({ status: 400, body: { fields: { defaultValue: expect.any(String) } } });
    expect(await call('PUT', '/flags/page-size', { key: 'other', type: 'integer' })).toMatchObject({ status: 400, body: { fields: { key: expect.any(String) } } });
    expect(await call('PUT', '/flags/missing', { key: 'missing', type: 'integer' })).toMatchObject({ status: 404 });
  });
});
