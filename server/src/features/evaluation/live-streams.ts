import { DomainError } from '../../domain/errors.js';
import type { LiveChangeRow, OrgChange } from '../audit/org-changes.js';
import type { EnvChange, EnvChangeBus } from '../environments/env-changes.js';

/** Each stream gets a comment heartbeat this often (from its opening), so proxies keep it open. */
export const HEARTBEAT_MS = 15_000;
/**
 * One timer writes every stream's heartbeats: each tick, the streams whose phase it is (those
 * opened in the same tick of the cycle), so each stream gets one every HEARTBEAT_MS, its first
 * 14 to 15 s after it opened, and a large number of streams is spread over the cycle.
 */
const HEARTBEAT_TICK_MS = 1000;
const HEARTBEAT_PHASES = HEARTBEAT_MS / HEARTBEAT_TICK_MS;
/**
 * A stream whose client has left this many bytes unread beyond what its connection holds (a
 * client that stopped reading, or a connection gone silent) is cut at its next event or
 * heartbeat rather than buffered without end: a client still there reconnects and reads the
 * current version. Live clients read every event as it comes (tens of bytes).
 */
export const MAX_UNREAD_BYTES = 64 * 1024;
/**
 * Retry-After of a stream refused over a cap. A place frees only when another stream of the same
 * holder ends, so retrying at once is pointless; the SDK polls meanwhile.
 */
export const STREAM_REFUSED_RETRY_AFTER_SECONDS = 10;
/** How often (real time) the re-check looks whether its interval has passed on the clock. */
const RECHECK_POLL_MS = 250;
/**
 * Ruleset streams written per macrotask when a version is announced: the fan-out runs after the
 * write that announced it (setImmediate), and between slices the event loop takes other work.
 */
export const ANNOUNCE_SLICE = 1000;

/** Caps on open streams, per instance (config: STREAM_MAX_*), and how often their credentials are checked again. */
export interface StreamLimits {
  perKey: number;
  /** A client key's streams on this instance, all visitors together (STREAM_MAX_PER_CLIENT_KEY). */
  perClientKey: number;
  /** A client key's streams from one client address (STREAM_MAX_PER_CLIENT_KEY_ADDRESS). */
  perClientKeyAddress: number;
  perSession: number;
  perIp: number;
  total: number;
  /** Each open stream's credentials are checked again this often, by the clock (STREAM_RECHECK_INTERVAL_MS). */
  recheckIntervalMs: number;
}

/** The cap that refused a stream. */
export type StreamLimit = 'key' | 'client_key' | 'client_key_address' | 'session' | 'ip' | 'total';

/**
 * Who asks for a stream, as known before any database read: the client address and what names the
 * credential the request presents (an API key's token hash, the session cookie's, or the key id an
 * OFREP stream ticket claims). `client-key`: a public client key (its token's prefix, or the
 * ticket, says so), whose streams are capped per client address and key-wide rather than per key.
 */
export interface StreamRequester {
  ip: string;
  credential: { kind: 'key' | 'client-key' | 'session'; hash: string } | null;
}

/** What a stream was granted on; checked again for as long as the stream is open. */
export type StreamGrant = { kind: 'key'; keyId: string; expiresAt: Date | null } | { kind: 'session'; sessionId: string; orgId: string };

/** The credentials of the open streams, as the re-check asks about them. */
export interface OpenCredentials {
  keyIds: string[];
  sessions: Array<{ sessionId: string; orgId: string }>;
  /** The environments of the open environment streams. */
  envIds?: string[];
}

/**
 * Which of them still hold: key ids, and sessionInOrg(sessionId, orgId) pairs; and which of the
 * environments still exist (absent: not checked), so that streams of an environment deleted on
 * another instance end too.
 */
export interface StillValid {
  keyIds: Set<string>;
  sessions: Set<string>;
  envIds?: Set<string>;
}

export type CredentialCheck = (open: OpenCredentials, now: Date) => Promise<StillValid>;

/** The key of a (session, organization) pair in StillValid.sessions. */
export function sessionInOrg(sessionId: string, orgId: string): string {
  return `${sessionId}:${orgId}`;
}

/** One audited change of a committed environment write, as the event streams describe it. */
export interface ChangeRow {
  orgId: string;
  envId: string;
  version: number;
  resourceType: string;
  resourceKey: string | null;
  action: string;
}

/**
 * What decides whether a caller may read a change (the audit log's scoping): an environment's
 * row, or one of no environment (a project's or the organization's).
 */
export type ChangeScope = Pick<ChangeRow, 'resourceType' | 'resourceKey'> & { envId: string | null };

/**
 * The audited changes of environment `envId` with versions in (after, upTo], in version order
 * (read after the commit that announced upTo, so they are all there).
 */
export type DescribeChanges = (envId: string, after: number, upTo: number) => Promise<ChangeRow[]>;

/**
 * How a ruleset stream writes each version: `ruleset` (event `ruleset` with `{version}`, the
 * API's own stream) or `ofrep` (an unnamed event, id the version, whose data is
 * OFREP's `{"type":"refetchEvaluation","etag":"\"<version>\""}`, docs/ofrep.md).
 */
export type RulesetStreamFormat = 'ruleset' | 'ofrep';

/**
 * Where a stream's bytes go: the HTTP response itself, written directly (a ServerResponse is
 * one), or in tests any Writable. An event is built once per version and format, and the same
 * Buffer is written to every stream that gets it: a sink keeps what it is given unchanged.
 */
export interface StreamSink {
  write(chunk: Buffer | string): boolean;
  end(): void;
  /** Bytes written and not yet taken by the connection (its kernel buffer full): the client's unread backlog. */
  readonly writableLength: number;
  destroy(): void;
}

/** What an event stream follows: one environment, or every environment of an organization. */
export type EventStreamTarget = { envId: string; version: number } | { orgId: string };

export interface LiveStreamsOptions {
  limits: StreamLimits;
  /** Reads what changed for the event streams (openEventStream); without it they carry versions only. */
  describe?: DescribeChanges;
  /** The server's clock: the re-check's interval and key expiry are measured on it. */
  now: () => Date;
  check: CredentialCheck;
  onRefused?: (limit: StreamLimit) => void;
  /** Streams ended because their credentials no longer hold (revoked, expired, logged out, removed). */
  onCredentialsEnded?: (count: number) => void;
  onCheckFailed?: (err: unknown) => void;
  /** describe failed: the environment event streams announce that version without its changes. */
  onDescribeFailed?: (err: unknown) => void;
}

/** A place taken for a stream while its request is authorized: released unless a stream opens on it. */
export interface StreamSlot {
  readonly requester: StreamRequester;
  release(): void;
}

interface OpenStream {
  /** The environment followed; null for an organization's event stream. */
  envId: string | null;
  /** The organization followed by an organization's event stream. */
  orgId: string | null;
  /** The last version announced (environment streams). */
  last: number;
  /** Event streams: which changes the caller may read; null for a ruleset stream. */
  visible: ((row: ChangeScope) => boolean) | null;
  /** Ruleset streams: how each version is written. */
  format: RulesetStreamFormat;
  /** Organization event streams: the last version announced per environment. */
  lastByEnv: Map<string, number> | null;
  /** The heartbeat timer's tick (of HEARTBEAT_PHASES) at which this stream gets its heartbeat. */
  phase: number;
  sink: StreamSink;
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
 *
 * Thousands of streams may follow one environment. Each stream writes to its response directly
 * (StreamSink); a version's event is built once, one Buffer written to every stream; the write
 * that announced it does not wait for them (they are written from the next macrotask on,
 * ANNOUNCE_SLICE at a time); one timer writes the heartbeats; a client that stops reading is cut
 * (MAX_UNREAD_BYTES).
 */
export class LiveStreams {
  private readonly open = new Set<OpenStream>();
  /** Ruleset streams, per environment. */
  private readonly byEnv = new Map<string, Set<OpenStream>>();
  /** Environment event streams, per environment. */
  private readonly eventsByEnv = new Map<string, Set<OpenStream>>();
  private readonly byOrg = new Map<string, Set<OpenStream>>();
  /**
   * Versions announced to ruleset streams and not yet written to all of them, in announcement
   * order; `streams` is taken when the announcement's turn comes (null before), `next` the first
   * not yet written.
   */
  private readonly announcing: Array<{ envId: string; version: number; streams: OpenStream[] | null; next: number }> = [];
  private writing = false;
  /** The open streams by heartbeat phase; the timer, while any stream is open, and the phase it last wrote. */
  private readonly phases: Array<Set<OpenStream>> = Array.from({ length: HEARTBEAT_PHASES }, () => new Set());
  private heartbeats: NodeJS.Timeout | null = null;
  private phase = 0;
  /** Per environment, the announcement to event streams in progress (they are written in version order). */
  private readonly describing = new Map<string, Promise<void>>();
  private readonly held = {
    key: new Map<string, number>(),
    'client-key': new Map<string, number>(),
    /** Per client key and client address: `${hash} ${ip}`. */
    clientAddress: new Map<string, number>(),
    session: new Map<string, number>(),
    ip: new Map<string, number>(),
  };
  private reserved = 0;
  private stopping = false;
  private readonly unsubscribe: Array<() => void>;
  private poller: NodeJS.Timeout | null = null;
  private lastCheckMs = 0;
  private running: Promise<void> | null = null;
  private again: Promise<void> | null = null;

  constructor(
    bus: EnvChangeBus,
    private readonly options: LiveStreamsOptions,
  ) {
    this.unsubscribe = [bus.subscribe((change) => this.announce(change)), bus.subscribeOrg((change) => this.announceOrg(change))];
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
   * key (a client key: per client address, then key-wide), session or address, or this instance,
   * already holds its most. Places taken by requests
   * still being authorized count, so a burst of requests cannot slip past a cap.
   */
  reserve(requester: StreamRequester): StreamSlot {
    const { limits } = this.options;
    const credential = requester.credential;
    const client = credential?.kind === 'client-key' ? credential.hash : null;
    // The caps this requester is under, most specific first: the first one full refuses.
    const caps: StreamCap[] = [
      ...(credential?.kind === 'key' ? [cap('key', count(this.held.key, credential.hash), limits.perKey, 'This API key has')] : []),
      ...(client !== null
        ? [
            cap('client_key_address', count(this.held.clientAddress, `${client} ${requester.ip}`), limits.perClientKeyAddress, 'This client address has, with this client key,'),
            cap('client_key', count(this.held['client-key'], client), limits.perClientKey, 'This client key has'),
          ]
        : []),
      ...(credential?.kind === 'session' ? [cap('session', count(this.held.session, credential.hash), limits.perSession, 'This session has')] : []),
      cap('ip', count(this.held.ip, requester.ip), limits.perIp, 'This client address has'),
      cap('total', this.reserved, limits.total, 'This instance has'),
    ];
    const full = caps.find((c) => c.held >= c.max);
    const refusal: [StreamLimit, number, string] | null = full ? [full.limit, full.max, full.who] : null;
    if (refusal) {
      const [limit, max, who] = refusal;
      this.options.onRefused?.(limit);
      throw new DomainError('token_rate_limit', `${who} ${max} streams open (ruleset and event streams), the most allowed; close one or retry later.`, {
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
   * Opens a stream on a place `reserve` gave, writing to `sink`. `onClose` receives the function
   * that ends it (call it when the client goes away); ending the stream ends the sink and releases
   * the place. `format` decides how each version is written (RulesetStreamFormat).
   */
  openStream(
    slot: StreamSlot,
    envId: string,
    currentVersion: number,
    grant: StreamGrant,
    sink: StreamSink,
    onClose: (close: () => void) => void,
    format: RulesetStreamFormat = 'ruleset',
  ): void {
    const fields = { envId, orgId: null, last: currentVersion, visible: null, lastByEnv: null, format };
    this.register(slot, grant, sink, onClose, fields, (entry) => entry.sink.write(eventBytes(format, currentVersion).connect));
  }

  /**
   * Opens an event stream (event `ready`, then `change` per committed write) on a place `reserve`
   * gave: of one environment (every write, its changes filtered by `visible`), or of every
   * environment of an organization (the writes with a change `visible` lets through).
   */
  openEventStream(
    slot: StreamSlot,
    target: EventStreamTarget,
    grant: StreamGrant,
    visible: (row: ChangeScope) => boolean,
    sink: StreamSink,
    onClose: (close: () => void) => void,
  ): void {
    const fields =
      'envId' in target
        ? { envId: target.envId, orgId: null, last: target.version, visible, lastByEnv: null, format: 'ruleset' as const }
        : { envId: null, orgId: target.orgId, last: 0, visible, lastByEnv: new Map<string, number>(), format: 'ruleset' as const };
    const ready = 'envId' in target ? { envId: target.envId, version: target.version } : { orgId: target.orgId };
    this.register(slot, grant, sink, onClose, fields, (entry) => entry.sink.write(`${RETRY}event: ready\ndata: ${JSON.stringify(ready)}\n\n`));
  }

  private register(
    slot: StreamSlot,
    grant: StreamGrant,
    sink: StreamSink,
    onClose: (close: () => void) => void,
    fields: Pick<OpenStream, 'envId' | 'orgId' | 'last' | 'visible' | 'lastByEnv' | 'format'>,
    first: (entry: OpenStream) => void,
  ): void {
    const index =
      fields.envId === null ? { map: this.byOrg, key: fields.orgId ?? '' } : { map: fields.visible ? this.eventsByEnv : this.byEnv, key: fields.envId };
    const entry: OpenStream = {
      ...fields,
      sink,
      grant,
      slot,
      phase: this.phase, // the tick just written: this stream's first heartbeat comes a whole cycle later
      close: () => {
        if (!this.open.delete(entry)) return;
        const streams = index.map.get(index.key);
        streams?.delete(entry);
        if (streams?.size === 0) index.map.delete(index.key);
        this.phases[entry.phase]!.delete(entry);
        slot.release();
        sink.end();
        if (this.open.size === 0) this.stopTimers();
      },
    };
    first(entry); // the retry line and the first event, in one write
    this.open.add(entry);
    let streams = index.map.get(index.key);
    if (!streams) index.map.set(index.key, (streams = new Set()));
    streams.add(entry);
    this.phases[entry.phase]!.add(entry);
    this.startTimers();
    onClose(entry.close);
    if (this.stopping) entry.close(); // shutdown began while the request was authorized
  }

  /** Ends the streams of an API key (revoked or deleted on this instance). */
  endKey(keyId: string): number {
    return this.end((entry) => entry.grant.kind === 'key' && entry.grant.keyId === keyId);
  }

  /** Ends the ruleset and event streams of an environment (deleted on this instance). */
  endEnvironment(envId: string): number {
    const ended = [...(this.byEnv.get(envId) ?? []), ...(this.eventsByEnv.get(envId) ?? [])];
    for (const entry of ended) entry.close();
    return ended.length;
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
    this.announcing.length = 0;
    this.stopTimers();
    for (const unsubscribe of this.unsubscribe) unsubscribe();
  }

  private announce(change: EnvChange): void {
    if (this.byEnv.has(change.envId)) {
      this.announcing.push({ envId: change.envId, version: change.version, streams: null, next: 0 });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => this.writeAnnounced());
      }
    }
    // Versions only grow; an older or repeated one (two instances, replays) is not news.
    const events: Array<{ entry: OpenStream; after: number }> = [];
    for (const entry of this.eventsByEnv.get(change.envId) ?? []) {
      if (change.version <= entry.last) continue;
      events.push({ entry, after: entry.last });
      entry.last = change.version;
    }
    if (events.length || this.byOrg.size) this.announceEvents(change, events);
  }

  /**
   * Writes the announced versions to the ruleset streams, ANNOUNCE_SLICE streams per macrotask,
   * announcements in order (so each stream gets its versions in order). A stream opened before an
   * announcement's turn gets it too unless it opened at that version or later; one ended meanwhile
   * is skipped.
   */
  private writeAnnounced(): void {
    let budget = ANNOUNCE_SLICE;
    while (budget > 0 && this.announcing.length) {
      const job = this.announcing[0]!;
      const streams = (job.streams ??= [...(this.byEnv.get(job.envId) ?? [])]);
      const end = Math.min(streams.length, job.next + budget);
      budget -= end - job.next;
      for (let i = job.next; i < end; i++) {
        const entry = streams[i]!;
        if (job.version > entry.last && this.open.has(entry)) send(entry, job.version);
      }
      job.next = end;
      if (end === streams.length) this.announcing.shift();
    }
    if (this.announcing.length) setImmediate(() => this.writeAnnounced());
    else this.writing = false;
  }

  /**
   * Writes the `org-change` event of a committed write's changes that moved no environment's
   * version (outside any environment, or of one environment) to the organization's event streams,
   * each with the changes it may read (judged on their environment, as the audit log does; none:
   * no event).
   */
  private announceOrg(change: OrgChange): void {
    const { projectId, envId } = change;
    for (const entry of this.byOrg.get(change.orgId) ?? []) {
      const visible = change.changes.filter((c) => entry.visible!({ ...c, envId }));
      if (visible.length) write(entry, `event: org-change\ndata: ${JSON.stringify({ projectId, envId, changes: visible })}\n\n`);
    }
  }

  /**
   * Writes the `change` events of one announced version: reads what changed (once for all
   * event streams of this instance), then writes each stream the changes it may read. An
   * environment's streams also list the project-level changes of the same write (the
   * organization's streams have them as `org-change`). An
   * organization's streams learn the environment's owner from the rows, so a write without an
   * audited change reaches environment streams only. Announcements of one environment are
   * written in order.
   */
  private announceEvents(change: EnvChange, events: Array<{ entry: OpenStream; after: number }>): void {
    const describe = this.options.describe;
    const after = Math.min(change.version - 1, ...events.map((e) => e.after));
    const previous = this.describing.get(change.envId) ?? Promise.resolve();
    const next = previous.then(async () => {
      let rows: ChangeRow[] = [];
      if (describe) {
        try {
          rows = await describe(change.envId, after, change.version);
        } catch (err) {
          this.options.onDescribeFailed?.(err); // the environment streams still announce the version
        }
      }
      const orgId = rows[0]?.orgId;
      const projectChanges = change.projectChanges ?? [];
      for (const { entry, after: from } of events) {
        if (!this.open.has(entry)) continue;
        const own = rows.filter((r) => r.version > from && entry.visible!(r));
        sendChange(entry, change.envId, change.version, [...own, ...projectChanges.filter((c) => entry.visible!({ ...c, envId: null }))]);
      }
      const orgStreams = orgId ? this.byOrg.get(orgId) : undefined;
      for (const entry of orgStreams ?? []) {
        const from = entry.lastByEnv!.get(change.envId) ?? after;
        if (change.version <= from) continue;
        entry.lastByEnv!.set(change.envId, change.version);
        const visible = rows.filter((r) => r.version > from && entry.visible!(r));
        if (visible.length) sendChange(entry, change.envId, change.version, visible);
      }
    });
    this.describing.set(change.envId, next);
    void next.finally(() => {
      if (this.describing.get(change.envId) === next) this.describing.delete(change.envId);
    });
  }

  private hold({ ip, credential }: StreamRequester, by: 1 | -1): void {
    this.reserved += by;
    add(this.held.ip, ip, by);
    if (credential) add(this.held[credential.kind], credential.hash, by);
    if (credential?.kind === 'client-key') add(this.held.clientAddress, `${credential.hash} ${ip}`, by);
  }

  private end(which: (entry: OpenStream) => boolean): number {
    const ended = [...this.open].filter(which);
    for (const entry of ended) entry.close();
    if (ended.length) this.options.onCredentialsEnded?.(ended.length);
    return ended.length;
  }

  /** The heartbeats and the credentials' re-checks run while streams are open. */
  private startTimers(): void {
    if (!this.heartbeats && !this.stopping) {
      this.heartbeats = setInterval(() => {
        this.phase = (this.phase + 1) % HEARTBEAT_PHASES;
        for (const entry of this.phases[this.phase]!) write(entry, HEARTBEAT);
      }, HEARTBEAT_TICK_MS);
      this.heartbeats.unref();
    }
    this.startRechecks();
  }

  private stopTimers(): void {
    if (this.heartbeats) clearInterval(this.heartbeats);
    this.heartbeats = null;
    this.stopRechecks();
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
    const envIds = new Set<string>();
    for (const { envId } of entries) if (envId !== null) envIds.add(envId);
    for (const { grant } of entries) {
      if (grant.kind === 'key') keyIds.add(grant.keyId);
      else sessions.set(sessionInOrg(grant.sessionId, grant.orgId), { sessionId: grant.sessionId, orgId: grant.orgId });
    }
    let valid: StillValid;
    try {
      valid = await this.options.check({ keyIds: [...keyIds], sessions: [...sessions.values()], envIds: [...envIds] }, now);
    } catch (err) {
      this.options.onCheckFailed?.(err);
      return;
    }
    const checked = new Set(entries);
    const existing = valid.envIds;
    if (existing) for (const envId of envIds) if (!existing.has(envId)) this.endEnvironment(envId);
    const holds = (grant: StreamGrant) => (grant.kind === 'key' ? valid.keyIds.has(grant.keyId) : valid.sessions.has(sessionInOrg(grant.sessionId, grant.orgId)));
    // Streams opened while the statement ran are judged by the next check.
    this.end((entry) => checked.has(entry) && !holds(entry.grant));
  }
}

/** Writes to an open stream, or cuts it when its client is MAX_UNREAD_BYTES behind. */
function write(entry: OpenStream, chunk: Buffer | string): void {
  if (entry.sink.writableLength <= MAX_UNREAD_BYTES) {
    entry.sink.write(chunk);
    return;
  }
  entry.close();
  entry.sink.destroy();
}

function send(entry: OpenStream, version: number): void {
  entry.last = version;
  write(entry, eventBytes(entry.format, version).event);
}

/** The first line of every stream: how long a client waits before it reconnects. */
const RETRY = 'retry: 1000\n';
const HEARTBEAT = Buffer.from(': heartbeat\n\n', 'latin1');

/** A version's event in one format, and the same preceded by the retry line (a stream's first write). */
interface EventBytes {
  event: Buffer;
  connect: Buffer;
}

/** Recent versions' events per format: every stream of every environment at a version shares them. */
const eventCache: Record<RulesetStreamFormat, Map<number, EventBytes>> = { ruleset: new Map(), ofrep: new Map() };
const EVENT_CACHE_SIZE = 256;

/** The bytes of `version`'s event in `format`, built once (RulesetStreamFormat). */
function eventBytes(format: RulesetStreamFormat, version: number): EventBytes {
  const cache = eventCache[format];
  let bytes = cache.get(version);
  if (!bytes) {
    const text =
      format === 'ofrep'
        ? `id: ${version}\ndata: ${JSON.stringify({ type: 'refetchEvaluation', etag: `"${version}"` })}\n\n`
        : `event: ruleset\nid: ${version}\ndata: ${JSON.stringify({ version })}\n\n`;
    const event = Buffer.from(text, 'utf8');
    bytes = { event, connect: Buffer.concat([Buffer.from(RETRY, 'latin1'), event]) };
    if (cache.size >= EVENT_CACHE_SIZE) cache.clear();
    cache.set(version, bytes);
  }
  return bytes;
}

function sendChange(entry: OpenStream, envId: string, version: number, rows: readonly LiveChangeRow[]): void {
  const changes = rows.map(({ resourceType, resourceKey, action }) => ({ resourceType, resourceKey, action }));
  const id = entry.envId !== null ? `id: ${version}\n` : '';
  write(entry, `event: change\n${id}data: ${JSON.stringify({ envId, version, changes })}\n\n`);
}

/** One cap a stream request is under: how many places its holder has, of how many. */
interface StreamCap {
  limit: StreamLimit;
  held: number;
  max: number;
  /** The refusal message's subject ("This API key has"). */
  who: string;
}
const cap = (limit: StreamLimit, held: number, max: number, who: string): StreamCap => ({ limit, held, max, who });

function count(map: Map<string, number>, key: string): number {
  return map.get(key) ?? 0;
}

function add(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next > 0) map.set(key, next);
  else map.delete(key);
}
