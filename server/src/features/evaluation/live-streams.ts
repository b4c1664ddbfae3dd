import { PassThrough } from 'node:stream';
import { DomainError } from '../../domain/errors.js';
import type { EnvChange, EnvChangeBus } from '../environments/env-changes.js';

export const HEARTBEAT_MS = 15_000;
/**
 * Retry-After of a stream refused over a cap. A place frees only when another stream of the same
 * holder ends, so retrying at once is pointless; the SDK polls meanwhile.
 */
export const STREAM_REFUSED_RETRY_AFTER_SECONDS = 10;
/** How often (real time) the re-check looks whether its interval has passed on the clock. */
const RECHECK_POLL_MS = 250;

/** Caps on open streams, per instance (config: STREAM_MAX_*), and how often their credentials are checked again. */
export interface StreamLimits {
  perKey: number;
  perSession: number;
  perIp: number;
  total: number;
  /** Each open stream's credentials are checked again this often, by the clock (STREAM_RECHECK_INTERVAL_MS). */
  recheckIntervalMs: number;
}

/** The cap that refused a stream. */
export type StreamLimit = 'key' | 'session' | 'ip' | 'total';

/**
 * Who asks for a stream, as known before any database read: the client address and the hash of
 * the credential the request presents (an API key's token hash, or the session cookie's).
 */
export interface StreamRequester {
  ip: string;
  credential: { kind: 'key' | 'session'; hash: string } | null;
}

/** What a stream was granted on; checked again for as long as the stream is open. */
export type StreamGrant = { kind: 'key'; keyId: string; expiresAt: Date | null } | { kind: 'session'; sessionId: string; orgId: string };

/** The credentials of the open streams, as the re-check asks about them. */
export interface OpenCredentials {
  keyIds: string[];
  sessions: Array<{ sessionId: string; orgId: string }>;
}

/** Which of them still hold: key ids, and sessionInOrg(sessionId, orgId) pairs. */
export interface StillValid {
  keyIds: Set<string>;
  sessions: Set<string>;
}

export type CredentialCheck = (open: OpenCredentials, now: Date) => Promise<StillValid>;

/** The key of a (session, organization) pair in StillValid.sessions. */
export function sessionInOrg(sessionId: string, orgId: string): string {
  return `${sessionId}:${orgId}`;
}

export interface LiveStreamsOptions {
  limits: StreamLimits;
  /** The server's clock: the re-check's interval and key expiry are measured on it. */
  now: () => Date;
  check: CredentialCheck;
  onRefused?: (limit: StreamLimit) => void;
  /** Streams ended because their credentials no longer hold (revoked, expired, logged out, removed). */
  onCredentialsEnded?: (count: number) => void;
  onCheckFailed?: (err: unknown) => void;
}

/** A place taken for a stream while its request is authorized: released unless a stream opens on it. */
export interface StreamSlot {
  readonly requester: StreamRequester;
  release(): void;
}

interface OpenStream {
  envId: string;
  last: number;
  stream: PassThrough;
  grant: StreamGrant;
  slot: StreamSlot;
  close: () => void;
}

/**
 * Open ruleset streams (server-sent events). Each carries an event `ruleset` with `{version}` on
 * connect and after every committed write in its environment, and a comment heartbeat so proxies
 * keep it open. `closeAll` ends them on shutdown so the HTTP server can drain.
 *
 * Streams are capped per API key, per session, per client address and in total (`reserve`,
 * before any database read, so refusing one costs nothing). A stream lasts only as long as its
 * credentials: `endKey` and `endSession` end a revoked key's or a logged-out session's streams on
 * this instance at once, and every `recheckIntervalMs` (by the clock) one statement asks which
 * credentials of the open streams still hold, which ends those revoked, expired or logged out
 * on other instances, and sessions whose user left the stream's organization.
 */
export class LiveStreams {
  private readonly open = new Set<OpenStream>();
  private readonly byEnv = new Map<string, Set<OpenStream>>();
  private readonly held = { key: new Map<string, number>(), session: new Map<string, number>(), ip: new Map<string, number>() };
  private reserved = 0;
  private stopping = false;
  private readonly unsubscribe: () => void;
  private poller: NodeJS.Timeout | null = null;
  private lastCheckMs = 0;
  private running: Promise<void> | null = null;
  private again: Promise<void> | null = null;

  constructor(
    bus: EnvChangeBus,
    private readonly options: LiveStreamsOptions,
  ) {
    this.unsubscribe = bus.subscribe((change) => this.announce(change));
  }

  /** Open streams on this instance. */
  get size(): number {
    return this.open.size;
  }

  /** True once shutdown began: new streams are refused so clients reconnect elsewhere. */
  get closing(): boolean {
    return this.stopping;
  }

  /**
   * Takes a place for a stream, or throws `token_rate_limit` (Retry-After) when the requester's
   * key, session or address, or this instance, already holds its most. Places taken by requests
   * still being authorized count, so a burst of requests cannot slip past a cap.
   */
  reserve(requester: StreamRequester): StreamSlot {
    const { limits } = this.options;
    const credential = requester.credential;
    const refusal: [StreamLimit, number, string] | null =
      credential?.kind === 'key' && count(this.held.key, credential.hash) >= limits.perKey
        ? ['key', limits.perKey, 'This API key has']
        : credential?.kind === 'session' && count(this.held.session, credential.hash) >= limits.perSession
          ? ['session', limits.perSession, 'This session has']
          : count(this.held.ip, requester.ip) >= limits.perIp
            ? ['ip', limits.perIp, 'This client address has']
            : this.reserved >= limits.total
              ? ['total', limits.total, 'This instance has']
              : null;
    if (refusal) {
      const [limit, max, who] = refusal;
      this.options.onRefused?.(limit);
      throw new DomainError('token_rate_limit', `${who} ${max} ruleset streams open, the most allowed; close one or retry later.`, {
        retryAfterSeconds: STREAM_REFUSED_RETRY_AFTER_SECONDS,
        details: { retryAfterSeconds: STREAM_REFUSED_RETRY_AFTER_SECONDS, limit: `streams_per_${limit}`, max },
      });
    }
    this.hold(requester, 1);
    let released = false;
    return {
      requester,
      release: () => {
        if (released) return;
        released = true;
        this.hold(requester, -1);
      },
    };
  }

  /**
   * Opens a stream on a place `reserve` gave. `onClose` receives the function that ends it (call
   * it when the client goes away); ending the stream releases the place.
   */
  openStream(slot: StreamSlot, envId: string, currentVersion: number, grant: StreamGrant, onClose: (close: () => void) => void): PassThrough {
    const stream = new PassThrough();
    const heartbeat = setInterval(() => stream.write(`: heartbeat\n\n`), HEARTBEAT_MS);
    heartbeat.unref();
    const entry: OpenStream = {
      envId,
      last: currentVersion,
      stream,
      grant,
      slot,
      close: () => {
        if (!this.open.delete(entry)) return;
        const streams = this.byEnv.get(envId);
        streams?.delete(entry);
        if (streams?.size === 0) this.byEnv.delete(envId);
        clearInterval(heartbeat);
        slot.release();
        stream.end();
        if (this.open.size === 0) this.stopRechecks();
      },
    };
    stream.write(`retry: 1000\n`);
    send(entry, currentVersion);
    this.open.add(entry);
    let streams = this.byEnv.get(envId);
    if (!streams) this.byEnv.set(envId, (streams = new Set()));
    streams.add(entry);
    this.startRechecks();
    onClose(entry.close);
    if (this.stopping) entry.close(); // shutdown began while the request was authorized
    return stream;
  }

  /** Ends the streams of an API key (revoked or deleted on this instance). */
  endKey(keyId: string): number {
    return this.end((entry) => entry.grant.kind === 'key' && entry.grant.keyId === keyId);
  }

  /** Ends the streams of a session, by the hash of its cookie token (logged out on this instance). */
  endSession(tokenHash: string): number {
    return this.end((entry) => entry.slot.requester.credential?.kind === 'session' && entry.slot.requester.credential.hash === tokenHash);
  }

  /**
   * Checks the open streams' credentials now (after a check already running, if any) and ends
   * the streams whose credentials no longer hold. A failed check ends nothing.
   */
  recheck(): Promise<void> {
    if (!this.running) {
      this.running = this.checkCredentials().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.again ??= this.running.then(() => {
      this.again = null;
      return this.recheck();
    });
    return this.again;
  }

  /** Ends every open stream; clients reconnect (as after a deploy). */
  closeAll(): void {
    for (const entry of [...this.open]) entry.close();
  }

  /** Shutdown: refuse new streams from now on, then end the open ones. */
  shutdown(): void {
    this.stopping = true;
    this.closeAll();
    this.stopRechecks();
    this.unsubscribe();
  }

  private announce(change: EnvChange): void {
    const streams = this.byEnv.get(change.envId);
    if (!streams) return;
    // Versions only grow; an older or repeated one (two instances, replays) is not news.
    for (const entry of streams) if (change.version > entry.last) send(entry, change.version);
  }

  private hold({ ip, credential }: StreamRequester, by: 1 | -1): void {
    this.reserved += by;
    add(this.held.ip, ip, by);
    if (credential) add(this.held[credential.kind], credential.hash, by);
  }

  private end(which: (entry: OpenStream) => boolean): number {
    const ended = [...this.open].filter(which);
    for (const entry of ended) entry.close();
    if (ended.length) this.options.onCredentialsEnded?.(ended.length);
    return ended.length;
  }

  private startRechecks(): void {
    if (this.poller || this.stopping) return;
    this.lastCheckMs = this.options.now().getTime();
    this.poller = setInterval(() => {
      const now = this.options.now().getTime();
      if (now < this.lastCheckMs) this.lastCheckMs = now; // the clock was set back
      if (now - this.lastCheckMs >= this.options.limits.recheckIntervalMs && !this.running) void this.recheck();
    }, RECHECK_POLL_MS);
    this.poller.unref();
  }

  private stopRechecks(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }

  private async checkCredentials(): Promise<void> {
    const now = this.options.now();
    this.lastCheckMs = now.getTime();
    const expired = (grant: StreamGrant) => grant.kind === 'key' && grant.expiresAt !== null && grant.expiresAt.getTime() <= now.getTime();
    this.end((entry) => expired(entry.grant));
    const entries = [...this.open];
    if (entries.length === 0) return;
    const keyIds = new Set<string>();
    const sessions = new Map<string, { sessionId: string; orgId: string }>();
    for (const { grant } of entries) {
      if (grant.kind === 'key') keyIds.add(grant.keyId);
      else sessions.set(sessionInOrg(grant.sessionId, grant.orgId), { sessionId: grant.sessionId, orgId: grant.orgId });
    }
    let valid: StillValid;
    try {
      valid = await this.options.check({ keyIds: [...keyIds], sessions: [...sessions.values()] }, now);
    } catch (err) {
      this.options.onCheckFailed?.(err);
      return;
    }
    const checked = new Set(entries);
    const holds = (grant: StreamGrant) => (grant.kind === 'key' ? valid.keyIds.has(grant.keyId) : valid.sessions.has(sessionInOrg(grant.sessionId, grant.orgId)));
    // Streams opened while the statement ran are judged by the next check.
    this.end((entry) => checked.has(entry) && !holds(entry.grant));
  }
}

function send(entry: OpenStream, version: number): void {
  entry.last = version;
  entry.stream.write(`event: ruleset\nid: ${version}\ndata: ${JSON.stringify({ version })}\n\n`);
}

function count(map: Map<string, number>, key: string): number {
  return map.get(key) ?? 0;
}

function add(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next > 0) map.set(key, next);
  else map.delete(key);
}
