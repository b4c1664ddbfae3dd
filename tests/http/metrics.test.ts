import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/src/config.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/** GET /metrics (not part of the API contract: called on the server directly, never through Prism). */
describe('metrics', () => {
  let t: TestServer;
  let owner: ClaimedInstance;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
  });
  afterAll(() => t?.close());

  const scrape = async () => {
    const res = await fetch(`${t.server.url}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };
  const value = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it('count requests, scheduler ticks, rollback fires by outcome, open streams and the change listener', async () => {
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    const envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'f', name: 'F', defaultValue: false } });
    await owner.session.putFlagRollout({ path: { envId, key: 'f' }, body: { percent: 20, newValue: true } });
    const { token } = await owner.session.createRollbackSecret({ path: { envId }, body: { name: 'pager' } });
    const fire = () => fetch(`${t.server.url}/api/v1/webhooks/rollback/envs/${envId}/flags/f`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect((await fire()).status).toBe(200);
    expect((await fire()).status).toBe(200);
    expect((await fetch(`${t.server.url}/api/v1/webhooks/rollback/envs/${envId}/flags/f`, { method: 'POST' })).status).toBe(401);
    await t.advanceClock(1);
    const stream = await fetch(`${t.server.url}/api/v1/envs/${envId}/ruleset/stream`, { headers: { cookie: `svc_session=${owner.sessionToken}` } });
    const reader = stream.body!.getReader();
    await reader.read();

    const text = await scrape();
    expect(value(text, 'gradual_rollback_fires_total{outcome="transitioned"}')).toBe(1);
    expect(value(text, 'gradual_rollback_fires_total{outcome="noop_already_rolled_back"}')).toBe(1);
    expect(value(text, 'gradual_rollback_fires_total{outcome="error_unauthorized"}')).toBe(1);
    expect(value(text, 'gradual_scheduler_ticks_total{result="ok"}')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'gradual_sse_open_streams')).toBe(1);
    expect(value(text, 'gradual_env_change_listener_up')).toBe(1);
    expect(text).toMatch(/gradual_http_request_duration_seconds_count\{method="PUT",route="\/api\/v1\/envs\/:envId\/flags\/:key\/rollout",status="200"\} 1/);
    await reader.cancel();
  });
});

describe('METRICS_TOKEN', () => {
  const TOKEN = 'metrics-0123456789abcdef';
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ METRICS_TOKEN: TOKEN });
  });
  afterAll(() => t?.close());

  const scrape = (authorization?: string) => fetch(`${t.server.url}/metrics`, { headers: authorization === undefined ? {} : { authorization } });

  it('when set, /metrics answers only Authorization: Bearer <METRICS_TOKEN>, 401 with the error envelope otherwise', async () => {
    for (const authorization of [undefined, 'Bearer', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`, TOKEN]) {
      const res = await scrape(authorization);
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await res.json()).toMatchObject({ code: 'unauthorized', requestId: expect.any(String) });
    }
    for (const authorization of [`Bearer ${TOKEN}`, `bearer  ${TOKEN}`]) {
      const res = await scrape(authorization);
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/^# HELP /m);
    }
    // The health checks stay open.
    expect((await fetch(`${t.server.url}/healthz`)).status).toBe(200);
  });

  it('is unset by default (/metrics open, as Prometheus exporters are), and refused when short or spaced', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    for (const value of ['short', 'sixteen chars ok']) {
      expect(() => loadConfig({ METRICS_TOKEN: value })).toThrow(ConfigError);
      expect(() => loadConfig({ METRICS_TOKEN: value })).toThrow(/METRICS_TOKEN: must be at least 16 characters without spaces/);
    }
  });
});
