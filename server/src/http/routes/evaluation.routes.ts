import type { IncomingMessage } from 'node:http';
import { Readable, Stream } from 'node:stream';
import accepts from 'accepts';
import type { Request, Response } from 'express';
import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { authorize, type Caller } from '../../features/access/authorize.js';
import { findEnvironment } from '../../features/common/lookup.js';
import { DomainError } from '../../domain/errors.js';
import { currentRuleset, evaluateContext, evaluateWith } from '../../features/evaluation/evaluation.service.js';
import { ifNoneMatchHits, type CachedRuleset } from '../../features/evaluation/ruleset.cache.js';
import type { EvaluationResult } from '@gradual/sdk/evaluation';
import { keyAdmission, type AnswerCache, type ReplayAnswer } from '../answer-cache.js';
import { isPlainJson, replayableBody } from '../text-guard.js';
import { DOCUMENT_ONLY_HEADERS } from '../security-headers.js';
import { sessionTokenOf, type CallerRequest } from '../caller.js';
import { bearerKeyHash } from '../../features/access/principal.js';
import { hashToken } from '../../domain/secrets.js';
import { clientAddressKey } from '../../rate-limits/client-address.js';
import type { StreamGrant, StreamRequester, StreamSink } from '../../features/evaluation/live-streams.js';
import { requestAddress } from '../request-address.js';

const s = initServer();

const RULESET_ROUTE = contract.evaluation.getRuleset.path;
const EVALUATE_ROUTE = contract.evaluation.evaluate.path;
/** Evaluate bodies a replay reads itself; larger ones (legal up to 1 MiB) go to the route unread. */
const MAX_REPLAYED_BODY = 16 * 1024;
const EVALUATE_BODY = contract.evaluation.evaluate.body;

export const evaluationRoutes = (deps: AppDeps, answers: AnswerCache) => {
  /**
   * What an API key's read of `envId` at `entry`'s version depended on: the key (keys change only
   * by revocation; expiry and the last-used write are checked against the clock) and the
   * environment still at that version. Keys with an IP allow-list or limited to some resources,
   * and client keys (charged per client address too, evaluating a filtered ruleset), are decided
   * per request by the route.
   */
  const replayable = (caller: Caller, envId: string, entry: CachedRuleset) => {
    const key = caller.principal?.kind === 'token' ? caller.principal.key : null;
    if (!key || key.resources || key.kind === 'client') return null;
    const admit = keyAdmission((hash) => deps.apiKeys.get(hash), key, () => deps.envs.peek(envId)?.version === entry.version && deps.rulesets.peek(envId, entry.version) === entry);
    return admit && { admit };
  };

  const countPoll = (status: number) => status === 304 && deps.metrics.rulesetPollsFromMemory.inc();
  const countEvaluation = () => deps.metrics.evaluationsFromMemory.inc();

  return s.router(contract.evaluation, {
    getRuleset: async ({ req, res, params }) => {
      const caller = await admit(req, res, deps);
      const entry = await currentRuleset(req.em, caller, deps, params.envId);
      const answer = rulesetAnswer(req, entry);
      for (let i = 0; i < answer.headers.length; i += 2) res.setHeader(answer.headers[i]!, answer.headers[i + 1]!);
      const replay = replayable(caller, params.envId, entry);
      if (replay) answers.remember(req, { ...replay, route: RULESET_ROUTE, answer: (next) => rulesetAnswer(next, entry), onAnswered: countPoll });
      // A stream body makes ts-rest send these exact bytes (cached JSON or its gzip).
      return answer.body ? { status: 200, body: Readable.from([answer.body]) } : { status: 304, body: undefined };
    },
    streamRuleset: async ({ req, res, params }) => {
      if (deps.streams.closing) {
        // Shutting down: a reconnecting client must go to another instance (or retry here later).
        throw new DomainError('service_unavailable', 'This instance is shutting down.', { retryAfterSeconds: 1, closeConnection: true });
      }
      // The caps are checked before any database read, so a flood of stream requests over them costs nothing.
      const slot = deps.streams.reserve(streamRequester(req));
      try {
        const caller = await admit(req, res, deps);
        const env = await findEnvironment(req.em, params.envId);
        await authorize(req.em, caller, env.orgId, { action: 'read', envId: env.id });
        const principal = caller.principal!;
        const grant: StreamGrant =
          principal.kind === 'token'
            ? { kind: 'key', keyId: principal.key.id, expiresAt: principal.key.expiresAt ?? null }
            : { kind: 'session', sessionId: principal.sessionId, orgId: env.orgId };
        return { status: 200, body: eventStream(deps, req, res, (sink, onClose) => deps.streams.openStream(slot, env.id, env.version, grant, sink, onClose)) };
      } catch (err) {
        slot.release();
        throw err;
      }
    },
    evaluate: async ({ req, res, params, body }) => {
      const caller = await admit(req, res, deps);
      const { entry, answer } = await evaluateContext(req.em, caller, deps, params.envId, body);
      deps.usage.countResults(params.envId, answer.results);
      const replay = entry && replayable(caller, params.envId, entry);
      if (replay) {
        const countUsage = (results: Record<string, EvaluationResult>) => deps.usage.countResults(params.envId, results);
        answers.remember(req, { ...replay, route: EVALUATE_ROUTE, maxBody: MAX_REPLAYED_BODY, answer: (next, raw) => evaluateAnswer(next, raw, entry, countUsage), onAnswered: countEvaluation });
      }
      return { status: 200, body: answer };
    },
  });
};

/**
 * The body ts-rest is handed for a response its route writes itself. ts-rest sends a Node stream
 * body by piping it into the response; this one has nothing to pipe, and leaves the response to
 * its writer.
 */
export class WrittenBody extends Stream {
  override pipe<T extends NodeJS.WritableStream>(destination: T): T {
    return destination;
  }
}

/**
 * Answers an authorized stream request: the event stream's headers, then `open` registers the
 * stream with LiveStreams (features/evaluation/live-streams.ts), which writes its events to the
 * response directly, each event's bytes built once for every stream. `onClose` ends the stream
 * when the client goes away (at once if it already has).
 *
 * A stream is held open for hours, by thousands of clients: it lets go of what only authorizing
 * it needed. Its request's unit of work (a fork of the EntityManager, with the entities it read)
 * is swapped for the shared root one, which refuses any use outside a fork; its admission and
 * caller (read by the handler alone) are dropped; and the security headers only documents use
 * are not sent.
 */
export function eventStream(
  deps: Pick<AppDeps, 'db'>,
  req: Request,
  res: Response,
  open: (sink: StreamSink, onClose: (close: () => void) => void) => void,
): WrittenBody {
  req.em = deps.db.orm.em;
  req.admission = undefined; // not `delete`: that turns the request into a larger, slower dictionary object
  req.callerPromise = undefined;
  for (const name of DOCUMENT_ONLY_HEADERS) res.removeHeader(name);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  open(res, (close) => {
    res.on('close', close);
    if (res.destroyed || req.socket.destroyed) close(); // the client left while the request was authorized
  });
  return new WrittenBody();
}

/**
 * Who asks for a stream, before any database read: the client address (an IPv6 address as its
 * /64, as the other per-address limits count it) and the credential the request presents, as
 * admission will resolve it (a bearer token wins over the session cookie).
 */
export function streamRequester(req: CallerRequest): StreamRequester {
  const ip = clientAddressKey(requestAddress(req));
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const hash = bearerKeyHash(authorization);
    // A public client key's token says so by its prefix: its streams are capped per client address.
    return { ip, credential: hash ? { kind: /^Bearer\s+pub_/.test(authorization) ? 'client-key' : 'key', hash } : null };
  }
  const token = sessionTokenOf(req);
  return { ip, credential: token ? { kind: 'session', hash: hashToken(token) } : null };
}

/** The poll's answer for this request: 304 when If-None-Match names the ruleset, else its bytes (gzip when accepted). */
function rulesetAnswer(req: IncomingMessage, entry: CachedRuleset): ReplayAnswer & { body?: Buffer } {
  const gzip = acceptsGzip(req);
  const headers = ['Vary', 'Accept-Encoding', 'Cache-Control', 'no-cache', 'ETag', gzip ? entry.gzipEtag : entry.etag];
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch && ifNoneMatchHits(ifNoneMatch, entry)) return { status: 304, headers };
  const bytes = gzip ? entry.gzip : entry.json;
  headers.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(bytes.length));
  if (gzip) headers.push('Content-Encoding', 'gzip');
  return { status: 200, headers, body: bytes };
}

/**
 * A replayed evaluation: the body evaluated against the ruleset the route answered from, when
 * the route would take it as it is (JSON without the escapes the text guard inspects, nested no
 * deeper than it allows, valid for the contract's schema); null for anything else, which the
 * route then answers with its own error. Its results are counted (usage) once it is sent, as the route's are.
 */
function evaluateAnswer(req: IncomingMessage, raw: Buffer | undefined, entry: CachedRuleset, countUsage: (results: Record<string, EvaluationResult>) => void): ReplayAnswer | null {
  const input = raw && isPlainJson(req) ? replayableBody(raw, EVALUATE_BODY) : null;
  if (!input) return null;
  const answer = evaluateWith(entry, input);
  const body = JSON.stringify(answer);
  return { status: 200, headers: ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(body))], body, onSent: () => countUsage(answer.results) };
}

/** Whether the request takes gzip, per distinct Accept-Encoding value (pollers send a handful). */
const gzipByHeader = new Map<string | undefined, boolean>();
function acceptsGzip(req: IncomingMessage): boolean {
  const header = req.headers['accept-encoding'];
  let gzip = gzipByHeader.get(header);
  if (gzip === undefined) {
    gzip = accepts(req).encodings(['gzip', 'identity']) === 'gzip';
    if (gzipByHeader.size >= 64) gzipByHeader.clear();
    gzipByHeader.set(header, gzip);
  }
  return gzip;
}
