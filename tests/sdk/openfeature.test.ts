import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ErrorCode,
  InMemoryProvider,
  OpenFeature,
  ProviderEvents,
  ProviderStatus,
  StandardResolutionReasons,
  type EventDetails,
} from '@openfeature/server-sdk';
import { createFlagClient, GradualApiError } from '@gradual/sdk';
import { bucket } from '@gradual/sdk/evaluation';
import { GradualProvider } from '@gradual/sdk/openfeature';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

const SEED = 'checkout:prod';
const ids = Array.from({ length: 400 }, (_, i) => `user-${i}`);
const admitted = ids.find((id) => bucket(SEED, id) < 37.5)!;
const excluded = ids.find((id) => bucket(SEED, id) >= 37.5)!;

/** fetch that fails like an unreachable server while `offline` is true. */
function switchableFetch() {
  const state = { offline: false };
  const f: typeof fetch = async (input, init) => {
    if (state.offline) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED (simulated)') });
    return fetch(input, init);
  };
  return { fetch: f, state };
}

/**
 * Closes the test server without waiting for idle client sockets: Node's
 * `server.close()` waits for connections that never sent a request, and
 * undici can leave one in its pool after a fetch aborted while connecting
 * (as `close()` of a flag client does), which would hold the close for seconds.
 */
async function closeServer(t: TestServer): Promise<void> {
  const closing = t.close();
  t.server.http.closeAllConnections();
  await closing;
}

describe('OpenFeature provider', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;
  let token: string;
  let provider: GradualProvider;
  const readyEvents: EventDetails[] = [];

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    token = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'sdk', actions: ['read'] } })).token;
    const s = owner.session;
    await s.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    await s.createConfig({ path: { id: projectId }, body: { key: 'limits', name: 'Limits', defaultValue: { max: 1 } } });
    await s.createConfig({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', defaultValue: 'hello' } });
    await s.createConfig({ path: { id: projectId }, body: { key: 'max-items', name: 'Max items', defaultValue: 10, metadata: { owner: 'team-checkout', reviewed: true } } });
    await s.setFlagRules({
      path: { envId, key: 'checkout' },
      body: { rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['internal'] }], value: true }] },
    });
    await s.putFlagRollout({ path: { envId, key: 'checkout' }, body: { percent: 37.5, newValue: true } });
    await s.addFlagTargetIds({ path: { envId, key: 'checkout' }, body: { targetIds: ['vip-1'] } });

    OpenFeature.addHandler(ProviderEvents.Ready, (details) => {
      if (details) readyEvents.push(details);
    });
    provider = new GradualProvider({ baseUrl: t.url, token, envId, mode: 'stream', logger: null });
    await OpenFeature.setProviderAndWait(provider);
  });

  afterAll(async () => {
    await OpenFeature.close();
    if (t) await closeServer(t);
  });

  it('is ready after setProviderAndWait (PROVIDER_READY) and holds the current ruleset', async () => {
    const client = OpenFeature.getClient();
    expect(client.providerStatus).toBe(ProviderStatus.READY);
    expect(readyEvents.filter((e) => e.providerName === 'Gradual' && !e.domain)).toHaveLength(1);
    expect(provider.client.version).toBe((await owner.session.getEnvironment({ path: { envId } })).version);
    // A handler added after the fact runs at once for the current state.
    let late = 0;
    client.addHandler(ProviderEvents.Ready, () => void late++);
    await expect.poll(() => late, { timeout: 5000 }).toBe(1);
  });

  it('passes reasons through with the variant; flagMetadata has the custom metadata, rolloutPercent and bucket; targetingKey buckets', async () => {
    const client = OpenFeature.getClient();
    expect(await client.getBooleanDetails('checkout', false, { targetingKey: 'vip-1' })).toEqual({
      flagKey: 'checkout',
      value: true,
      reason: StandardResolutionReasons.TARGETING_MATCH,
      variant: 'target-id',
      flagMetadata: { rolloutPercent: 37.5, bucket: bucket(SEED, 'vip-1') },
    });
    expect(await client.getBooleanDetails('checkout', false, { targetingKey: admitted })).toEqual({
      flagKey: 'checkout',
      value: true,
      reason: StandardResolutionReasons.SPLIT,
      variant: 'rollout-new',
      flagMetadata: { rolloutPercent: 37.5, bucket: bucket(SEED, admitted) },
    });
    expect(await client.getBooleanDetails('checkout', false, { targetingKey: excluded, plan: 'internal' })).toMatchObject({
      value: true,
      reason: StandardResolutionReasons.TARGETING_MATCH,
      variant: 'rule-1',
    });
    expect(await client.getBooleanDetails('checkout', true, { targetingKey: excluded })).toMatchObject({
      value: false,
      reason: StandardResolutionReasons.SPLIT,
      variant: 'rollout-base',
      flagMetadata: { rolloutPercent: 37.5, bucket: bucket(SEED, excluded) },
    });
    // The rollout's own bucket field wins over targetingKey.
    expect(await client.getBooleanDetails('checkout', false, { userId: 'vip-1', targetingKey: excluded })).toMatchObject({
      reason: StandardResolutionReasons.TARGETING_MATCH,
      variant: 'target-id',
    });
    // No bucket field and no targetingKey: not bucketed; the rollout's percent is still reported.
    expect(await client.getBooleanDetails('checkout', true, {})).toEqual({
      flagKey: 'checkout',
      value: false,
      reason: StandardResolutionReasons.DEFAULT,
      variant: 'default',
      flagMetadata: { rolloutPercent: 37.5 },
    });
    // No rule and no rollout: STATIC, the custom metadata without rolloutPercent or bucket.
    expect(await client.getNumberDetails('max-items', 0, { targetingKey: admitted })).toEqual({
      flagKey: 'max-items',
      value: 10,
      reason: StandardResolutionReasons.STATIC,
      variant: 'default',
      flagMetadata: { owner: 'team-checkout', reviewed: true },
    });
    // The evaluation context set on the API applies too.
    OpenFeature.setContext({ targetingKey: 'vip-1' });
    try {
      expect(await client.getBooleanValue('checkout', false)).toBe(true);
    } finally {
      OpenFeature.setContext({});
    }
  });

  it('resolves strings, numbers and objects', async () => {
    const client = OpenFeature.getClient();
    expect(await client.getStringDetails('banner', 'fallback')).toMatchObject({
      value: 'hello',
      reason: StandardResolutionReasons.STATIC,
      variant: 'default',
      flagMetadata: {},
    });
    expect(await client.getNumberValue('max-items', 0)).toBe(10);
    expect(await client.getObjectValue('limits', {})).toEqual({ max: 1 });
  });

  it('errors: FLAG_NOT_FOUND and TYPE_MISMATCH serve the default with reason ERROR and run error hooks', async () => {
    const client = OpenFeature.getClient();
    const hookErrors: unknown[] = [];
    client.addHooks({ error: (_ctx, err) => void hookErrors.push(err) });
    try {
      expect(await client.getBooleanDetails('missing', true)).toMatchObject({
        value: true,
        reason: StandardResolutionReasons.ERROR,
        errorCode: ErrorCode.FLAG_NOT_FOUND,
        errorMessage: expect.stringContaining('missing'),
      });
      expect(await client.getStringDetails('checkout', 'fallback', { targetingKey: 'vip-1' })).toMatchObject({
        value: 'fallback',
        reason: StandardResolutionReasons.ERROR,
        errorCode: ErrorCode.TYPE_MISMATCH,
        errorMessage: "'checkout' is a boolean, not a string",
      });
      expect(await client.getNumberDetails('banner', 3)).toMatchObject({ value: 3, errorCode: ErrorCode.TYPE_MISMATCH });
      expect(await client.getObjectDetails('banner', { a: 1 })).toMatchObject({ value: { a: 1 }, errorCode: ErrorCode.TYPE_MISMATCH });
      expect(await client.getBooleanDetails('limits', false)).toMatchObject({ value: false, errorCode: ErrorCode.TYPE_MISMATCH });
      expect(hookErrors).toHaveLength(5);
    } finally {
      client.clearHooks();
    }
  });

  it('emits PROVIDER_CONFIGURATION_CHANGED with the changed flags after a write', async () => {
    const client = OpenFeature.getClient();
    const changes: EventDetails[] = [];
    const handler = (details?: EventDetails) => {
      if (details) changes.push(details);
    };
    client.addHandler(ProviderEvents.ConfigurationChanged, handler);
    try {
      const before = provider.client.version!;
      await owner.session.setConfigValue({ path: { envId, key: 'limits' }, body: { value: { max: 3 } } });
      await expect.poll(() => changes.length, { timeout: 5000 }).toBe(1);
      expect(changes[0]).toMatchObject({ providerName: 'Gradual', flagsChanged: ['limits'], metadata: { version: before + 1 } });
      expect(await client.getObjectValue('limits', {})).toEqual({ max: 3 });

      await owner.session.addFlagTargetIds({ path: { envId, key: 'checkout' }, body: { targetIds: [excluded] } });
      await expect.poll(() => changes.length, { timeout: 5000 }).toBe(2);
      expect(changes[1]!.flagsChanged).toEqual(['checkout']);
      expect(await client.getBooleanDetails('checkout', false, { targetingKey: excluded })).toMatchObject({
        value: true,
        reason: StandardResolutionReasons.TARGETING_MATCH,
        variant: 'target-id',
      });
    } finally {
      client.removeHandler(ProviderEvents.ConfigurationChanged, handler);
    }
  });

  it('before the first ruleset: initialization fails after initTimeoutMs, evaluations get PROVIDER_NOT_READY, then PROVIDER_READY', async () => {
    const fresh = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'fresh', name: 'Fresh' } })).id;
    const freshEnv = (await owner.session.createEnvironment({ path: { id: fresh }, body: { key: 'dev', name: 'Dev' } })).id;
    const empty = new GradualProvider({ baseUrl: t.url, token, envId: freshEnv, logger: null, initTimeoutMs: 300 });
    await expect(OpenFeature.setProviderAndWait('empty', empty)).rejects.toThrow(/no ruleset within 300 ms/);
    const client = OpenFeature.getClient('empty');
    expect(client.providerStatus).toBe(ProviderStatus.ERROR);
    expect(await client.getBooleanDetails('first', true)).toMatchObject({
      value: true,
      reason: StandardResolutionReasons.ERROR,
      errorCode: ErrorCode.PROVIDER_NOT_READY,
    });

    let ready = 0;
    client.addHandler(ProviderEvents.Ready, () => void ready++);
    expect(ready).toBe(0);
    await owner.session.createFlag({ path: { id: fresh }, body: { key: 'first', name: 'First', defaultValue: true } });
    await expect.poll(() => ready, { timeout: 5000 }).toBe(1);
    expect(client.providerStatus).toBe(ProviderStatus.READY);
    expect(await client.getBooleanDetails('first', false)).toMatchObject({ value: true, reason: StandardResolutionReasons.STATIC, variant: 'default' });
  });

  it('a rejected token: initialization fails with PROVIDER_FATAL and the SDK serves defaults', async () => {
    const bad = new GradualProvider({ baseUrl: t.url, token: 'svc_not_a_real_token', envId, logger: null });
    const failure = await OpenFeature.setProviderAndWait('bad', bad).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: ErrorCode.PROVIDER_FATAL });
    // The cause is the REST client's error for the 401.
    const cause = failure instanceof Error ? failure.cause : undefined;
    expect(cause).toBeInstanceOf(GradualApiError);
    expect(cause).toMatchObject({ status: 401, code: 'unauthorized' });
    const client = OpenFeature.getClient('bad');
    expect(client.providerStatus).toBe(ProviderStatus.FATAL);
    expect(await client.getBooleanDetails('checkout', true)).toMatchObject({ value: true, reason: StandardResolutionReasons.ERROR, errorCode: ErrorCode.PROVIDER_FATAL });
  });

  it('PROVIDER_STALE while the server is unreachable (the last good ruleset still served, reason CACHED), PROVIDER_READY when it answers', async () => {
    const net = switchableFetch();
    const flaky = new GradualProvider({
      baseUrl: t.url,
      token,
      envId,
      mode: 'poll',
      pollIntervalMs: 50,
      backoff: { initialMs: 20, maxMs: 100 },
      fetch: net.fetch,
      logger: null,
    });
    await OpenFeature.setProviderAndWait('flaky', flaky);
    const client = OpenFeature.getClient('flaky');
    const events: string[] = [];
    client.addHandler(ProviderEvents.Stale, () => void events.push('stale'));
    client.addHandler(ProviderEvents.Ready, () => void events.push('ready'));
    await expect.poll(() => events, { timeout: 5000 }).toEqual(['ready']); // the handler runs at once for the current state
    expect(await client.getBooleanDetails('checkout', false, { targetingKey: admitted })).toMatchObject({ reason: StandardResolutionReasons.SPLIT, variant: 'rollout-new' });
    net.state.offline = true;
    await expect.poll(() => client.providerStatus, { timeout: 5000 }).toBe(ProviderStatus.STALE);
    expect(flaky.client.status).toBe('stale');
    expect(await client.getStringDetails('banner', 'fallback')).toEqual({
      flagKey: 'banner',
      value: 'hello',
      reason: StandardResolutionReasons.CACHED,
      variant: 'default',
      flagMetadata: {},
    });
    expect(await client.getBooleanDetails('checkout', false, { targetingKey: admitted })).toEqual({
      flagKey: 'checkout',
      value: true,
      reason: StandardResolutionReasons.CACHED,
      variant: 'rollout-new',
      flagMetadata: { rolloutPercent: 37.5, bucket: bucket(SEED, admitted) },
    });
    // Errors stay errors while stale.
    expect(await client.getBooleanDetails('missing', true)).toMatchObject({ value: true, reason: StandardResolutionReasons.ERROR, errorCode: ErrorCode.FLAG_NOT_FOUND });
    net.state.offline = false;
    await expect.poll(() => client.providerStatus, { timeout: 5000 }).toBe(ProviderStatus.READY);
    expect(events).toEqual(['ready', 'stale', 'ready']);
    expect(await client.getStringDetails('banner', 'fallback')).toMatchObject({ value: 'hello', reason: StandardResolutionReasons.STATIC, variant: 'default' });
  });

  it('wraps an existing flag client (a bootstrap makes it ready at once) and leaves it open when replaced', async () => {
    const bootstrap = await t.asToken(token).getRuleset({ path: { envId } });
    const flags = createFlagClient({ baseUrl: t.url, token, envId, mode: 'poll', bootstrap, logger: null });
    try {
      const wrapped = new GradualProvider({ client: flags });
      await OpenFeature.setProviderAndWait('wrapped', wrapped);
      expect(await OpenFeature.getClient('wrapped').getNumberValue('max-items', 0)).toBe(10);
      await OpenFeature.setProviderAndWait('wrapped', new InMemoryProvider({}));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(flags.status).not.toBe('closed');
    } finally {
      await flags.close();
    }
  });

  it('OpenFeature.close() closes the flag clients the providers own (the stream ends on the server)', async () => {
    await expect.poll(() => t.server.deps.streams.size, { timeout: 5000 }).toBeGreaterThan(0);
    await OpenFeature.close();
    expect(provider.client.status).toBe('closed');
    await expect.poll(() => t.server.deps.streams.size, { timeout: 5000 }).toBe(0);
  });
});
