import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFlagClient, type FlagClient } from '@gradual/sdk';
import { generateTypes } from '../../cli/src/typegen/generate.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * The module `gradual types` generates, at run time (its compile-time checks are in
 * tests/cli/cli.test.ts): `typedFlags` serves what the live client serves while it is one of the
 * flag's declared values, and the caller's fallback with TYPE_MISMATCH otherwise.
 */
describe('typed flags at run time', () => {
  const dir = join(fileURLToPath(new URL('../..', import.meta.url)), 'tests/artifacts', `typed-flags-${process.pid}`);
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  let client: FlagClient;
  let typed: {
    getString(key: string, context: Record<string, unknown>, fallback: string): string;
    evaluate(key: string, context: Record<string, unknown>, fallback: unknown): { value: unknown; reason: string; variant: string | null; errorCode?: string };
  };

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    const s = owner.session;
    const projectId = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await s.createFlag({ path: { id: projectId }, body: { key: 'layout', name: 'Layout', valueType: 'string', variants: { control: 'classic', compact: 'compact' }, defaultVariant: 'control' } });
    await s.createFlag({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', valueType: 'string', defaultValue: 'Hello' } });
    const manifest = await s.getManifest({ path: { id: projectId } });
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'flags.gen.ts');
    await writeFile(file, generateTypes(manifest, { source: 'project web', openfeature: false, react: false }));
    const token = (await s.createApiKey({ path: { slug: 'acme' }, body: { name: 'sdk', actions: ['read'], environments: [envId] } })).token;
    client = createFlagClient({ baseUrl: t.url, token, envId, mode: 'poll', pollIntervalMs: 60_000, logger: null, ackIntervalMs: 0, sendUsage: false });
    await client.ready();
    const mod = (await import(file)) as { typedFlags(client: FlagClient): typeof typed };
    typed = mod.typedFlags(client);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a declared value with its variant name, and the fallback with TYPE_MISMATCH for a value no variant declares', async () => {
    expect(typed.getString('layout', { userId: 'u1' }, 'compact')).toBe('classic');
    expect(typed.evaluate('layout', { userId: 'u1' }, 'compact')).toMatchObject({ value: 'classic', variant: 'control', reason: 'STATIC' });
    // A flag without variants serves any string.
    expect(typed.getString('banner', {}, 'Hi')).toBe('Hello');

    await owner.session.setFlagValue({ path: { envId, key: 'layout' }, body: { value: 'tall' } });
    await client.refresh();
    expect(client.getString('layout', {}, 'compact')).toBe('tall'); // the untyped client serves it
    expect(typed.getString('layout', {}, 'compact')).toBe('compact');
    expect(typed.evaluate('layout', {}, 'compact')).toMatchObject({ value: 'compact', reason: 'ERROR', variant: null, errorCode: 'TYPE_MISMATCH' });
  });
});
