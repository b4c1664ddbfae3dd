/**
 * Usage reporting against a real server: the live client's counts (and the OpenFeature
 * provider's, which evaluates through it) arrive through `POST /envs/{envId}/usage` and show in
 * the flag's and config's usage. Timing, bounding and failures: sdk/src/live/usage.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenFeature } from '@openfeature/server-sdk';
import { createFlagClient, type GradualClient } from '@gradual/sdk';
import { GradualProvider } from '@gradual/sdk/openfeature';
import { claim, startTestServer, type TestServer } from '../support/server.js';

describe('usage reporting', () => {
  let t: TestServer;
  let api: GradualClient;
  let projectId: string;
  let envId: string;
  let token: string;

  const variants = async (kind: 'flag' | 'config', key: string) => {
    const usage = kind === 'flag' ? await api.getFlagUsage({ path: { id: projectId, key } }) : await api.getConfigUsage({ path: { id: projectId, key } });
    const env = usage.environments.find((e) => e.envId === envId);
    return Object.fromEntries((env?.variants ?? []).map((v) => [v.variant, v.count]));
  };

  beforeAll(async () => {
    t = await startTestServer();
    api = (await claim(t)).session;
    projectId = (await api.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await api.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await api.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    await api.createConfig({ path: { id: projectId }, body: { key: 'limits', name: 'Limits', defaultValue: { max: 1 } } });
    await api.setFlagRules({ path: { envId, key: 'checkout' }, body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: true }] } });
    token = (await api.createApiKey({ path: { slug: 'acme' }, body: { name: 'backend', kind: 'sdk', environments: [envId] } })).token;
  });
  afterAll(async () => {
    await OpenFeature.close();
    if (!t) return;
    // Idle keep-alive sockets of the clients' fetches would hold the close.
    const closing = t.close();
    t.server.http.closeAllConnections();
    await closing;
  });

  it('the live client reports its evaluations per variant on flush() and close()', async () => {
    const client = createFlagClient({ baseUrl: t.url, token, envId, mode: 'poll', logger: null });
    await client.waitForReady({ timeoutMs: 10_000 });
    for (let i = 0; i < 3; i++) expect(client.getBoolean('checkout', { plan: 'pro' }, false)).toBe(true);
    for (let i = 0; i < 2; i++) expect(client.getBoolean('checkout', { plan: 'free' }, true)).toBe(false);
    expect(client.getJson('limits', {}, null)).toEqual({ max: 1 });
    expect(client.getBoolean('no-such-flag', {}, false)).toBe(false);
    await client.flush();
    expect(await variants('flag', 'checkout')).toEqual({ 'rule-1': 3, default: 2 });
    expect(await variants('config', 'limits')).toEqual({ default: 1 });

    client.getBoolean('checkout', { plan: 'pro' }, false);
    await client.close();
    expect(await variants('flag', 'checkout')).toEqual({ 'rule-1': 4, default: 2 });
  });

  it('the OpenFeature provider reports through its flag client', async () => {
    const provider = new GradualProvider({ baseUrl: t.url, token, envId, mode: 'poll', logger: null });
    await OpenFeature.setProviderAndWait('usage', provider);
    const of = OpenFeature.getClient('usage');
    expect(await of.getBooleanValue('checkout', false, { plan: 'pro' })).toBe(true);
    expect(await of.getBooleanValue('checkout', true, { plan: 'free' })).toBe(false);
    await provider.client.flush();
    expect(await variants('flag', 'checkout')).toEqual({ 'rule-1': 5, default: 3 });
  });
});
