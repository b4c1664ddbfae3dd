import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InProcessEnvChangeBus } from '../environments/env-changes.js';
import { LiveStreams, type ChangeScope, type ChangeRow, type DescribeChanges, type StreamLimits } from './live-streams.js';

const limits: StreamLimits = { perKey: 10, perClientKey: 10, perClientKeyAddress: 10, perSession: 10, perIp: 10, total: 10, recheckIntervalMs: 60_000 };
const row = (version: number, resourceKey: string, envId = 'env-a', orgId = 'org-1'): ChangeRow => ({ orgId, envId, version, resourceType: 'rollout', resourceKey, action: 'rollout.advanced' });
const grant = { kind: 'key' as const, keyId: 'k', expiresAt: null };

/** The events written to a stream so far, as [event name, data]. */
function events(stream: PassThrough): Array<[string, unknown]> {
  const text = String(stream.read() ?? '');
  return [...text.matchAll(/event: ([\w-]+)\n(?:id: \d+\n)?data: (.*)\n\n/g)].map((m) => [m[1]!, JSON.parse(m[2]!)]);
}

function setUp(describe: DescribeChanges) {
  const bus = new InProcessEnvChangeBus();
  const failures: unknown[] = [];
  const live = new LiveStreams(bus, { limits, now: () => new Date(0), check: () => Promise.resolve({ keyIds: new Set(['k']), sessions: new Set() }), describe, onDescribeFailed: (err) => failures.push(err) });
  const requester = { ip: '10.0.0.1', credential: { kind: 'key' as const, hash: 'h' } };
  const open = (target: Parameters<LiveStreams['openEventStream']>[1], visible: (r: ChangeScope) => boolean = () => true) => {
    const stream = new PassThrough();
    live.openEventStream(live.reserve(requester), target, grant, visible, stream, () => {});
    return stream;
  };
  return { bus, live, open, failures };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('event streams', () => {
  it('write the changes of each version in order, even when the later read answers first', async () => {
    const answers = new Map<number, (rows: ChangeRow[]) => void>();
    const { bus, live, open } = setUp((_env, _after, upTo) => new Promise((resolve) => answers.set(upTo, resolve)));
    const stream = open({ envId: 'env-a', version: 4 });
    expect(events(stream)).toEqual([['ready', { envId: 'env-a', version: 4 }]]);
    bus.publish({ envId: 'env-a', version: 5 });
    bus.publish({ envId: 'env-a', version: 5 }); // a repeat (another instance's notification) is not news
    bus.publish({ envId: 'env-a', version: 6 });
    await settle();
    // Reads run one after another per environment: the second starts when the first is written.
    expect([...answers.keys()]).toEqual([5]);
    answers.get(5)!([row(5, 'checkout')]);
    await settle();
    answers.get(6)!([row(6, 'search')]);
    await settle();
    expect(events(stream)).toEqual([
      ['change', { envId: 'env-a', version: 5, changes: [{ resourceType: 'rollout', resourceKey: 'checkout', action: 'rollout.advanced' }] }],
      ['change', { envId: 'env-a', version: 6, changes: [{ resourceType: 'rollout', resourceKey: 'search', action: 'rollout.advanced' }] }],
    ]);
    live.shutdown();
  });

  it('give each stream the rows it may read; an organization stream only events with one', async () => {
    const { bus, live, open } = setUp((envId, after, upTo) => Promise.resolve([row(upTo, 'checkout', envId), row(upTo, 'search', envId)].filter((r) => r.version > after)));
    const onlySearch = (r: ChangeScope) => r.resourceKey === 'search';
    const env = open({ envId: 'env-a', version: 1 }, onlySearch);
    const org = open({ orgId: 'org-1' }, onlySearch);
    const nothing = open({ orgId: 'org-1' }, () => false);
    const otherOrg = open({ orgId: 'org-2' });
    events(env);
    events(org);
    events(nothing);
    events(otherOrg);
    bus.publish({ envId: 'env-a', version: 2 });
    bus.publish({ envId: 'env-b', version: 7 });
    await settle();
    const search = { resourceType: 'rollout', resourceKey: 'search', action: 'rollout.advanced' };
    expect(events(env)).toEqual([['change', { envId: 'env-a', version: 2, changes: [search] }]]);
    expect(events(org)).toEqual([
      ['change', { envId: 'env-a', version: 2, changes: [search] }],
      ['change', { envId: 'env-b', version: 7, changes: [search] }],
    ]);
    expect(events(nothing)).toEqual([]);
    expect(events(otherOrg)).toEqual([]);
    live.shutdown();
  });

  it('announce the version without changes when they cannot be read', async () => {
    const { bus, live, open, failures } = setUp(() => Promise.reject(new Error('database gone')));
    const env = open({ envId: 'env-a', version: 1 });
    const org = open({ orgId: 'org-1' });
    events(env);
    events(org);
    bus.publish({ envId: 'env-a', version: 2 });
    await settle();
    expect(events(env)).toEqual([['change', { envId: 'env-a', version: 2, changes: [] }]]);
    expect(events(org)).toEqual([]);
    expect(failures).toHaveLength(1);
    live.shutdown();
  });

  it('write org-change events to the organization streams, each with the changes it may read', () => {
    const { bus, live, open } = setUp(() => Promise.resolve([]));
    const org = open({ orgId: 'org-1' });
    const onlySearch = open({ orgId: 'org-1' }, (r) => r.resourceKey === 'search');
    const envOnly = open({ orgId: 'org-1' }, (r) => r.envId === 'env-a');
    const env = open({ envId: 'env-a', version: 1 });
    for (const s of [org, onlySearch, envOnly, env]) events(s);
    const created = { resourceType: 'flag', resourceKey: 'search', action: 'flag.created' };
    const plan = { resourceType: 'plan', resourceKey: 'slow', action: 'plan.created' };
    const secret = { resourceType: 'rollback_secret', resourceKey: 'alerts', action: 'rollback_secret.created' };
    const proposal = { resourceType: 'proposal', resourceKey: 'search', action: 'proposal.created' };
    bus.publishOrg({ orgId: 'org-1', projectId: 'p-1', envId: null, changes: [created, plan] });
    bus.publishOrg({ orgId: 'org-2', projectId: null, envId: null, changes: [plan] });
    bus.publishOrg({ orgId: 'org-1', projectId: 'p-1', envId: 'env-a', changes: [secret, proposal] });
    bus.publishOrg({ orgId: 'org-1', projectId: 'p-1', envId: 'env-b', changes: [secret] });
    expect(events(org)).toEqual([
      ['org-change', { projectId: 'p-1', envId: null, changes: [created, plan] }],
      ['org-change', { projectId: 'p-1', envId: 'env-a', changes: [secret, proposal] }],
      ['org-change', { projectId: 'p-1', envId: 'env-b', changes: [secret] }],
    ]);
    expect(events(onlySearch)).toEqual([
      ['org-change', { projectId: 'p-1', envId: null, changes: [created] }],
      ['org-change', { projectId: 'p-1', envId: 'env-a', changes: [proposal] }],
    ]);
    // Visibility is judged on the changes' environment: a caller of env-a's rows gets env-a's only.
    expect(events(envOnly)).toEqual([['org-change', { projectId: 'p-1', envId: 'env-a', changes: [secret, proposal] }]]);
    expect(events(env)).toEqual([]);
    live.shutdown();
  });

  it('list the project-level changes of the write on the environment streams, not as the organization streams’ change', async () => {
    const { bus, live, open } = setUp((envId, after, upTo) => Promise.resolve(upTo === 2 ? [row(2, 'search', envId)] : []));
    const env = open({ envId: 'env-a', version: 1 });
    const scoped = open({ envId: 'env-a', version: 1 }, (r) => r.envId !== null);
    const org = open({ orgId: 'org-1' });
    for (const s of [env, scoped, org]) events(s);
    const created = { resourceType: 'flag', resourceKey: 'search', action: 'flag.created' };
    bus.publish({ envId: 'env-a', version: 2, projectChanges: [created] });
    await settle();
    const own = { resourceType: 'rollout', resourceKey: 'search', action: 'rollout.advanced' };
    expect(events(env)).toEqual([['change', { envId: 'env-a', version: 2, changes: [own, created] }]]);
    expect(events(scoped)).toEqual([['change', { envId: 'env-a', version: 2, changes: [own] }]]);
    expect(events(org)).toEqual([['change', { envId: 'env-a', version: 2, changes: [own] }]]);
    live.shutdown();
  });
});
