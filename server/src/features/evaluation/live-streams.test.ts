import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import { InProcessEnvChangeBus } from '../environments/env-changes.js';
import {
  ANNOUNCE_SLICE,
  LiveStreams,
  MAX_UNREAD_BYTES,
  sessionInOrg,
  type CredentialCheck,
  type RulesetStreamFormat,
  type StreamGrant,
  type StreamLimits,
  type StreamRequester,
  type StreamSink,
  type StillValid,
} from './live-streams.js';

const limits: StreamLimits = { perKey: 2, perClientKey: 3, perClientKeyAddress: 2, perSession: 1, perIp: 3, total: 4, recheckIntervalMs: 5000 };
const key = (hash: string, ip = '10.0.0.1'): StreamRequester => ({ ip, credential: { kind: 'key', hash } });

function streams(check: CredentialCheck = () => Promise.resolve({ keyIds: new Set(), sessions: new Set() }), now = () => new Date(0)) {
  const refused: string[] = [];
  const live = new LiveStreams(new InProcessEnvChangeBus(), { limits, now, check, onRefused: (limit) => refused.push(limit) });
  return { live, refused };
}

/** Opens a ruleset stream on a place for `requester`; what it writes goes to the PassThrough returned. */
function openOn(live: LiveStreams, requester: StreamRequester, envId: string, version: number, grant: StreamGrant, format?: RulesetStreamFormat): PassThrough {
  const sink = new PassThrough();
  live.openStream(live.reserve(requester), envId, version, grant, sink, () => {}, format);
  return sink;
}

/** A response as LiveStreams sees it: what was written to it, and a backlog the test sets. */
class RecordingSink implements StreamSink {
  readonly chunks: Array<Buffer | string> = [];
  writableLength = 0;
  ended = false;
  destroyed = false;
  write(chunk: Buffer | string): boolean {
    this.chunks.push(chunk);
    return true;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
  text(): string {
    return this.chunks.map(String).join('');
  }
}

const many: StreamLimits = { perKey: 10_000, perClientKey: 10_000, perClientKeyAddress: 10_000, perSession: 10_000, perIp: 10_000, total: 10_000, recheckIntervalMs: 60_000 };
const noCheck: CredentialCheck = () => Promise.resolve({ keyIds: new Set(), sessions: new Set() });
const keyGrant: StreamGrant = { kind: 'key', keyId: 'k', expiresAt: null };

/** `count` ruleset streams of environment `env` at `version`, each on a RecordingSink. */
function recorded(live: LiveStreams, count: number, version: number, env = 'env'): RecordingSink[] {
  return Array.from({ length: count }, () => {
    const sink = new RecordingSink();
    live.openStream(live.reserve(key('k')), env, version, keyGrant, sink, () => {});
    return sink;
  });
}

const macrotask = () => new Promise((resolve) => setImmediate(resolve));

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
    const open = (requester: StreamRequester, grant: StreamGrant) => {
      const stream = openOn(live, requester, 'env', 1, grant);
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
    const ruleset = text(openOn(live, key('r'), 'env', 3, grant));
    const ofrep = text(openOn(live, key('o'), 'env', 3, grant, 'ofrep'));
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
    const expiring = openOn(live, key('e'), 'env', 1, { kind: 'key', keyId: 'e', expiresAt: new Date('2026-01-01T01:00:00Z') });
    const other = openOn(live, key('o'), 'env', 1, { kind: 'key', keyId: 'o', expiresAt: null });
    expiring.resume();
    other.resume();
    await live.recheck();
    expect([expiring.writableEnded, other.writableEnded, failures.length]).toEqual([false, false, 1]);
    now = new Date('2026-01-01T01:00:00Z');
    await live.recheck();
    expect([expiring.writableEnded, other.writableEnded, failures.length]).toEqual([true, false, 2]);
    live.shutdown();
  });

  it('writes an announced version after the announcement returns, ANNOUNCE_SLICE streams per macrotask, the same bytes to each', async () => {
    const bus = new InProcessEnvChangeBus();
    const live = new LiveStreams(bus, { limits: many, now: () => new Date(0), check: noCheck });
    const count = 2 * ANNOUNCE_SLICE + 10;
    const sinks = recorded(live, count, 3);
    const other = recorded(live, 1, 3, 'other-env');
    const got = () => sinks.filter((s) => s.chunks.length === 2).length;
    bus.publish({ envId: 'env', version: 4 });
    bus.publish({ envId: 'env', version: 5 });
    expect(got()).toBe(0); // the write that announced it does not wait for the streams
    await macrotask();
    expect(got()).toBe(ANNOUNCE_SLICE);
    for (let i = 0; i < 4; i++) await macrotask(); // 2 × 2,010 writes: 5 slices in all
    // Version 5 follows version 4 on every stream; the other environment's stream hears of neither.
    expect(sinks.every((s) => s.text() === 'retry: 1000\nevent: ruleset\nid: 3\ndata: {"version":3}\n\nevent: ruleset\nid: 4\ndata: {"version":4}\n\nevent: ruleset\nid: 5\ndata: {"version":5}\n\n')).toBe(true);
    expect(sinks.every((s) => s.chunks[1] === sinks[0]!.chunks[1])).toBe(true); // one Buffer, built once
    expect(other[0]!.chunks).toHaveLength(1);
    // A stream opened at a version announced before its turn is not told it again; an older one is skipped.
    const late = recorded(live, 1, 6)[0]!;
    bus.publish({ envId: 'env', version: 6 });
    bus.publish({ envId: 'env', version: 2 });
    for (let i = 0; i < 4; i++) await macrotask();
    expect(late.chunks).toHaveLength(1);
    expect(sinks[count - 1]!.text()).toMatch(/id: 6\ndata: \{"version":6\}\n\n$/);
    live.shutdown();
  });

  it('skips the streams ended while an announcement is written, and ends none when shut down meanwhile', async () => {
    const bus = new InProcessEnvChangeBus();
    const live = new LiveStreams(bus, { limits: many, now: () => new Date(0), check: noCheck });
    const sinks = recorded(live, ANNOUNCE_SLICE + 5, 1);
    bus.publish({ envId: 'env', version: 2 });
    await macrotask();
    live.shutdown();
    await macrotask();
    expect(sinks.filter((s) => s.chunks.length === 2)).toHaveLength(ANNOUNCE_SLICE);
    expect(sinks.every((s) => s.ended)).toBe(true);
  });

  describe('heartbeats', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('writes each stream a heartbeat every HEARTBEAT_MS, the first within 15 s of its opening, from one timer', () => {
      vi.useFakeTimers();
      const live = new LiveStreams(new InProcessEnvChangeBus(), { limits: many, now: () => new Date(0), check: noCheck });
      const beats = (sink: RecordingSink) => sink.chunks.filter((c) => String(c) === ': heartbeat\n\n').length;
      const first = recorded(live, 1, 1)[0]!;
      vi.advanceTimersByTime(2_500);
      const second = recorded(live, 1, 1)[0]!;
      vi.advanceTimersByTime(11_500); // 14 s
      expect([beats(first), beats(second)]).toEqual([0, 0]);
      vi.advanceTimersByTime(1_000); // 15 s: the first stream's
      expect([beats(first), beats(second)]).toEqual([1, 0]);
      vi.advanceTimersByTime(2_000); // 17 s: the second's, 14.5 s after it opened
      expect([beats(first), beats(second)]).toEqual([1, 1]);
      vi.advanceTimersByTime(15_000); // 32 s
      expect([beats(first), beats(second)]).toEqual([2, 2]);
      expect(vi.getTimerCount()).toBe(2); // the heartbeats' timer and the re-checks' poller, whatever the streams
      live.closeAll();
      expect(vi.getTimerCount()).toBe(0);
      live.shutdown();
    });

    it('cuts a stream whose client has left more than MAX_UNREAD_BYTES unread, at its next write, and frees its place', () => {
      vi.useFakeTimers();
      const bus = new InProcessEnvChangeBus();
      const live = new LiveStreams(bus, { limits: many, now: () => new Date(0), check: noCheck });
      const [stuck, reading] = recorded(live, 2, 1) as [RecordingSink, RecordingSink];
      stuck.writableLength = MAX_UNREAD_BYTES + 1;
      reading.writableLength = MAX_UNREAD_BYTES;
      vi.advanceTimersByTime(15_000);
      expect([stuck.destroyed, stuck.ended, stuck.chunks.length]).toEqual([true, true, 1]);
      expect([reading.destroyed, reading.chunks.length]).toEqual([false, 2]);
      expect(live.size).toBe(1);
      live.shutdown();
    });
  });
});
