import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ApiKey } from '../db/entities/index.js';
import type { Clock } from '../clock.js';
import type { LatencySeries } from '../metrics/latency-histogram.js';
import type { BucketDecision } from '../rate-limits/token-buckets.js';
import { lastUsedDue } from '../features/access/authorize.js';
import { rateLimitHeaders, tighterBucket } from './api-rate-limit.js';
import { logRequest } from './request-context.js';

/**
 * Answers repeated API-key requests from memory, in front of Express, with what the regular route
 * handler decided for the same request before.
 *
 * It is not a router: it knows no paths. A route handler that has answered a request it can
 * answer again without I/O (a ruleset poll, an evaluation) `remember`s, under the request's
 * method, URL and credentials, a `Replay`: the key it charged, what its decision depended on
 * (`admit`), and the answer as a function of the request (`answer`, built from the same functions
 * the handler answered with). The next request with the same method, URL and credentials is
 * answered by that function while `admit` finds it holds; anything else goes to Express untouched:
 * a cookie, a body over the replay's size, a refused rate limit, a `null` from `answer`.
 *
 * A replayed answer has the regular route's headers, X-Request-Id, token-bucket charge, latency
 * sample and log line. No token is taken unless a replay answers.
 */
export interface Replay {
  /** The route as the latency histogram labels it: the contract route's path. */
  route: string;
  /**
   * The API key to charge this request to, when everything the regular handler's decision
   * depended on still holds at `now`; null when the regular route must decide again.
   */
  admit(now: Date): ApiKey | null;
  /**
   * The answer to a request like the remembered one (the body read first when `maxBody` is set),
   * or null when the regular route must answer it (an odd body, an unusual header).
   */
  answer(req: IncomingMessage, body: Buffer | undefined): ReplayAnswer | null;
  /** Requests with a body: the largest one read here (by Content-Length); larger ones go to the route unread. */
  maxBody?: number;
  /** Called after each replayed answer (the route's own counters). */
  onAnswered?(status: number): void;
  /**
   * The replay answers every URL made of this prefix and one more path segment (a lookup by
   * that segment, e.g. a target-ID check), not only the remembered URL. The prefix is the
   * remembered URL up to its last `/`.
   */
  coversLastSegment?: boolean;
}

export interface ReplayAnswer {
  status: number;
  /** Header names and values, alternating (as writeHead takes them). */
  headers: string[];
  body?: Buffer | string;
  /** Called once this answer has been sent (not when the key's bucket refused it and the route answers instead). */
  onSent?(): void;
}

export interface AnswerCacheDeps {
  clock: Clock;
  logger: Logger;
  /** The latency histogram the regular routes observe, by method, route and status. */
  requestDuration: { labels(method: string, route: string, status: string): LatencySeries };
  /** One token from the key's bucket and its org's (both or neither); synchronous when counted in memory. */
  take(key: ApiKey, now: Date): BucketDecision | Promise<BucketDecision>;
  /** Header pairs every answer carries besides its replay's: the API's security headers (http/security-headers.ts). */
  headers: readonly string[];
  /** Header pairs a replayed answer to this request, charged to `key`, carries for CORS (http/cors.ts replayCorsHeaders). */
  corsHeaders?(req: IncomingMessage, key: ApiKey): readonly string[];
}

/** Distinct (method, URL, credentials) remembered; past it the oldest go. */
const MAX_REPLAYS = 10_000;

export class AnswerCache {
  private readonly replays = new Map<string, Replay>();
  private readonly series = new Map<string, LatencySeries>();

  constructor(private readonly deps: AnswerCacheDeps) {}

  /** Called by a route handler after answering `req`: the same request again may be answered by `replay`. */
  remember(req: Pick<IncomingMessage, 'method' | 'headers'> & { originalUrl: string }, replay: Replay): void {
    const url = replay.coversLastSegment ? `${lastSegmentPrefix(req.originalUrl)}*` : req.originalUrl;
    const id = identity(req.method, url, req.headers.authorization);
    if (id === null || req.headers.cookie) return;
    this.replays.delete(id);
    this.replays.set(id, replay);
    if (this.replays.size > MAX_REPLAYS) this.replays.delete(this.replays.keys().next().value!);
  }

  /**
   * Answers `req` from a remembered replay: true (answered), false (not answered: Express
   * answers, the request untouched) or a promise of either when a body or a shared rate limit
   * is awaited. A body read here and not answered is put back on the request (`unshift`) before
   * Express sees it.
   */
  tryAnswer(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
    if (req.headers.cookie) return false;
    let id = identity(req.method, req.url, req.headers.authorization);
    let replay = id === null ? undefined : this.replays.get(id);
    if (!replay && id !== null) {
      id = identity(req.method, `${lastSegmentPrefix(req.url!)}*`, req.headers.authorization);
      replay = this.replays.get(id!);
    }
    if (!replay) return false;
    const started = performance.now();
    const now = this.deps.clock.now();
    const key = replay.admit(now);
    if (!key) {
      this.replays.delete(id!);
      return false;
    }
    if (replay.maxBody === undefined) {
      if (hasBody(req)) return false;
      return this.answerWith(req, res, replay, key, undefined, now, started);
    }
    const length = Number(req.headers['content-length']);
    if (!Number.isInteger(length) || length <= 0 || length > replay.maxBody || req.headers['transfer-encoding']) return false;
    return readAndPutBack(req, length).then((body) => (body === null ? true : this.answerWith(req, res, replay, key, body, now, started)));
  }

  private answerWith(req: IncomingMessage, res: ServerResponse, replay: Replay, key: ApiKey, body: Buffer | undefined, now: Date, started: number): boolean | Promise<boolean> {
    const answer = replay.answer(req, body);
    if (!answer) return false;
    const send = (decision: BucketDecision): boolean => {
      if (!decision.allowed) return false; // nothing was taken: the regular route answers the 429
      const requestId = randomUUID();
      const cors = this.deps.corsHeaders?.(req, key) ?? [];
      res.writeHead(answer.status, [...answer.headers, ...this.deps.headers, ...cors, 'X-Request-Id', requestId, ...rateLimitHeaders(tighterBucket(decision))]);
      res.end(answer.body);
      const ms = performance.now() - started;
      this.seriesOf(req.method!, replay.route, answer.status).observe(ms / 1000);
      logRequest(this.deps.logger, requestId, req.method, req.url, answer.status, ms, replay.route);
      answer.onSent?.();
      replay.onAnswered?.(answer.status);
      return true;
    };
    const decision = this.deps.take(key, now);
    return decision instanceof Promise ? decision.then(send) : send(decision);
  }

  private seriesOf(method: string, route: string, status: number): LatencySeries {
    const label = `${method} ${route} ${status}`;
    let series = this.series.get(label);
    if (!series) this.series.set(label, (series = this.deps.requestDuration.labels(method, route, String(status))));
    return series;
  }
}

/** A URL up to and including its last `/`. */
function lastSegmentPrefix(url: string): string {
  return url.slice(0, url.lastIndexOf('/') + 1);
}

/**
 * The `admit` of a replay made for an API key: the key as the key cache has it now, while it is
 * the same key, not revoked or expired, with no last-used write due, and `holds(now)`; else null.
 * Null (no replay) for keys with an IP allow-list, which the route decides per request.
 */
export function keyAdmission(cached: (tokenHash: string) => ApiKey | undefined, key: ApiKey, holds: (now: Date) => boolean): ((now: Date) => ApiKey | null) | null {
  if (key.ipAllowlist) return null;
  return (now) => {
    const current = cached(key.tokenHash);
    if (!current || current.id !== key.id || current.revokedAt || (current.expiresAt && current.expiresAt.getTime() <= now.getTime()) || lastUsedDue(current, now)) return null;
    return holds(now) ? current : null;
  };
}

function identity(method: string | undefined, url: string | undefined, authorization: string | undefined): string | null {
  return method && url && authorization ? `${method} ${url}\n${authorization}` : null;
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
}

/**
 * The request's body of `length` bytes, read and at once put back on the stream (`unshift`, the
 * stream API for handing optimistically read data on), so that Express reads it again when the
 * replay does not answer. Null when the request broke off.
 */
function readAndPutBack(req: IncomingMessage, length: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let read = 0;
    const done = (body: Buffer | null) => {
      req.off('readable', onReadable);
      req.off('error', onBroken);
      req.off('aborted', onBroken);
      resolve(body);
    };
    const onBroken = () => done(null);
    const onReadable = () => {
      let chunk: Buffer | null;
      while (read < length && (chunk = req.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        read += chunk.length;
      }
      if (read < length) return;
      const body = Buffer.concat(chunks);
      // Back before the stream can see its end (that check runs on the next tick): Express reads
      // it like any body when the replay does not answer.
      req.unshift(body);
      done(body);
    };
    req.on('readable', onReadable);
    req.once('error', onBroken);
    req.once('aborted', onBroken);
  });
}
