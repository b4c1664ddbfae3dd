import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import { InProcessEnvChangeBus } from '../environments/env-changes.js';
import { LiveStreams, sessionInOrg, type CredentialCheck, type StreamLimits, type StreamRequester, type StillValid } from './live-streams.js';

const limits: StreamLimits = { perKey: 2, perClientKey: 3, perClientKeyAddress: 2, perSession: 1, perIp: 3, total: 4, recheckIntervalMs: 5000 };
const key = (hash: string, ip = '10.0.0.1'): StreamRequester => ({ ip, credential: { kind: 'key', hash } });

function streams(check: CredentialCheck = () => Promise.resolve({ keyIds: new Set(), sessions: new Set() }), now = () => new Date(0)) {
  const refused: string[] = [];
  const live = new LiveStreams(new InProcessEnvChangeBus(), { limits, now, check, onRefused: (limit) => refused.push(limit) });
  return { live, refused };
}

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('LiveStreams', () => {
  it('counts places taken while a request is authorized against the caps, and frees each once', () => {
    const { live, refused } = streams();
    const a = live.reserve(key('a'));
    live.reserve(key('a'));
    const err = refusal(() => live.reserve(key('a')));
    expect(err).toMatchObject({ code: 'token_rate_limit', retryAfterSeconds: 10, details: { limit: 'streams_per_key', max: 2 } });
    a.release();
    a.release(); // a second release frees nothing more
    live.reserve(key('a'));
    expect(refusal(() => live.reserve(key('a'))).details).toMatchObject({ limit: 'streams_per_key' });
    live.reserve(key('b'));
    expect(refusal(() => live.reserve(key('c'))).details).toMatchObject({ limit: 'streams_per_ip', max: 3 });
    live.reserve(key('c', '10.0.0.2'));
    expect(refusal(() => live.reserve(key('d', '10.0.0.3'))).details).toMatchObject({ limit: 'streams_per_total', max: 4 });
    expect(refused).toEqual(['key', 'key', 'ip', 'total']);
  });

  it('caps a public client key per client address and key-wide, not by the server keys\' per-key cap', () => {
    const { live, refused } = streams();
    const visitor = (ip: string): StreamRequester => ({ ip, credential: { kind: 'client-key', hash: 'pub' } });
    // Two streams from one address (perClientKeyAddress 2), though perKey is 2 as well: a third
    // visitor is not shut out by the first two.
    live.reserve(visitor('10.0.0.1'));
    live.reserve(visitor('10.0.0.1'));
    expect(refusal(() => live.reserve(visitor('10.0.0.1'))).details).toMatchObject({ limit: 'streams_per_client_key_address', max: 2 });
    live.reserve(visitor('10.0.0.2'));
    // Key-wide: 3 streams of the key on this instance.
    expect(refusal(() => live.reserve(visitor('10.0.0.3'))).details).toMatchObject({ limit: 'streams_per_client_key', max: 3 });
    // A server key of the same org is untouched by the client key's places.
    live.reserve(key('server', '10.0.0.9'));
    expect(refused).toEqual(['client_key_address', 'client_key']);
  });

  it('ends the streams whose credentials the check no longer finds, judging only those open when it began', async () => {
    let resolveCheck!: (valid: StillValid) => void;
    const check: CredentialCheck = () => new Promise((resolve) => (resolveCheck = resolve));
    const { live } = streams(check);
    const open = (requester: StreamRequester, grant: Parameters<LiveStreams['openStream']>[3]) => {
      const stream = live.openStream(live.reserve(requester), 'env', 1, grant, () => {});
      stream.resume();
      return stream;
    };
    const kept = open(key('k1'), { kind: 'key', keyId: 'k1', expiresAt: null });
    const revoked = open(key('k2'), { kind: 'key', keyId: 'k2', expiresAt: null });
    const session = open({ ip: '10.0.0.2', credential: { kind: 'session', hash: 's' } }, { kind: 'session', sessionId: 's1', orgId: 'o1' });
    const checking = live.recheck();
    const late = open(key('k3', '10.0.0.3'), { kind: 'key', keyId: 'k3', expiresAt: null });
    resolveCheck({ keyIds: new Set(['k1']), sessions: new Set([sessionInOrg('s1', 'o1')]) });
    await checking;
    expect([kept.writableEnded, revoked.writableEnded, session.writableEnded, late.writableEnded]).toEqual([false, true, false, false]);
    expect(live.size).toBe(3);
    live.shutdown();
  });

  it('writes each version as the stream’s format asks: event `ruleset`, or OFREP’s unnamed refetchEvaluation', async () => {
    const bus = new InProcessEnvChangeBus();
    const live = new LiveStreams(bus, { limits, now: () => new Date(0), check: () => Promise.resolve({ keyIds: new Set(), sessions: new Set() }) });
    const grant = { kind: 'key', keyId: 'k', expiresAt: null } as const;
    const text = (stream: NodeJS.ReadableStream) => {
      const chunks: string[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
      return chunks;
    };
    const ruleset = text(live.openStream(live.reserve(key('r')), 'env', 3, grant, () => {}));
    const ofrep = text(live.openStream(live.reserve(key('o')), 'env', 3, grant, () => {}, 'ofrep'));
    bus.publish({ envId: 'env', version: 4 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(ruleset.join('')).toBe('retry: 1000\nevent: ruleset\nid: 3\ndata: {"version":3}\n\nevent: ruleset\nid: 4\ndata: {"version":4}\n\n');
    expect(ofrep.join('')).toBe('retry: 1000\nid: 3\ndata: {"type":"refetchEvaluation","etag":"\\"3\\""}\n\nid: 4\ndata: {"type":"refetchEvaluation","etag":"\\"4\\""}\n\n');
    live.shutdown();
  });

  it('keeps the streams open when the check fails, and ends an expired key’s stream without asking', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const failures: unknown[] = [];
    const live = new LiveStreams(new InProcessEnvChangeBus(), {
      limits,
      now: () => now,
      check: () => Promise.reject(new Error('database away')),
      onCheckFailed: (err) => failures.push(err),
    });
    const expiring = live.openStream(live.reserve(key('e')), 'env', 1, { kind: 'key', keyId: 'e', expiresAt: new Date('2026-01-01T01:00:00Z') }, () => {});
    const other = live.openStream(live.reserve(key('o')), 'env', 1, { kind: 'key', keyId: 'o', expiresAt: null }, () => {});
    expiring.resume();
    other.resume();
    await live.recheck();
    expect([expiring.writableEnded, other.writableEnded, failures.length]).toEqual([false, false, 1]);
    now = new Date('2026-01-01T01:00:00Z');
    await live.recheck();
    expect([expiring.writableEnded, other.writableEnded, failures.length]).toEqual([true, false, 2]);
    live.shutdown();
  });
});
