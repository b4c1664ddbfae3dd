import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { ApiKeyEntity } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, type Caller } from '../../features/access/authorize.js';
import { rulesetForEvaluation } from '../../features/evaluation/evaluation.service.js';
import type { CachedRuleset } from '../../features/evaluation/ruleset.cache.js';
import type { StreamGrant } from '../../features/evaluation/live-streams.js';
import {
  bulkEtag,
  evaluateFlag,
  evaluateFlags,
  OFREP_INACTIVITY_DELAY_SEC,
  ofrepEnvironment,
  readTicket,
  signTicket,
  ticketSignedBy,
  type OfrepContext,
} from '../../features/evaluation/ofrep.js';
import { etagListMatches } from '../../features/common/etag.js';
import { keyAdmission, type AnswerCache, type ReplayAnswer } from '../answer-cache.js';
import { chargeApiKey } from '../api-rate-limit.js';
import { bodyProblem, hasSuspectEscapes } from '../text-guard.js';
import { clientAddressKey } from '../../rate-limits/client-address.js';
import { hashToken } from '../../domain/secrets.js';

const s = initServer();

const BULK_ROUTE = contract.ofrep.ofrepEvaluateFlags.path;
const EVENTS_PATH = contract.ofrep.ofrepEventStream.path;
const BULK_BODY = contract.ofrep.ofrepEvaluateFlags.body;
/** Bulk bodies a replay reads itself; larger ones go to the route unread. */
const MAX_REPLAYED_BODY = 16 * 1024;
const JSON_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * The OFREP routes (docs/ofrep.md): single and bulk evaluation for the environment an API key is
 * bound to, and the bulk evaluation's event stream. Their 400, 404 and 500 answers for thrown
 * errors (invalid context, unparsable body, internal errors) are shaped by http/errors.ts.
 */
export const ofrepRoutes = (deps: AppDeps, answers: AnswerCache) => {
  /** Whom the stream URL is built for: PUBLIC_URL when set, else the request's own protocol and host. */
  const origin = (req: Request) => (deps.config.publicUrlConfigured ? deps.config.publicUrl : `${req.protocol}://${req.get('host') ?? 'localhost'}`);

  /**
   * A bulk 304 answered again from memory: for an API key seeing the whole environment (no
   * resource restriction, not a client key, whose view the route filters per request), while
   * the key and the environment's version hold. Other answers (a 200, which carries a fresh
   * ticket) go to the route.
   */
  const rememberBulk = (req: Request, caller: Caller, envId: string, entry: CachedRuleset) => {
    const key = caller.principal?.kind === 'token' ? caller.principal.key : null;
    if (!key || key.resources || key.kind === 'client') return;
    const holds = () => deps.envs.peek(envId)?.version === entry.version && deps.rulesets.peek(envId, entry.version) === entry;
    const admitKey = keyAdmission((hash) => deps.apiKeys.get(hash), key, holds);
    if (!admitKey) return;
    answers.remember(req, {
      admit: admitKey,
      route: BULK_ROUTE,
      maxBody: MAX_REPLAYED_BODY,
      answer: (next, raw) => notModifiedAnswer(next, raw, entry, key.id),
      onAnswered: () => deps.metrics.evaluationsFromMemory.inc(),
    });
  };

  return s.router(contract.ofrep, {
    ofrepEvaluateFlag: async ({ req, res, params, body }) => {
      const caller = await admit(req, res, deps);
      const envId = ofrepEnvironment(caller);
      const entry = await rulesetForEvaluation(req.em, caller, deps, envId);
      return evaluateFlag(entry, params.key, body.context);
    },
    ofrepEvaluateFlags: async ({ req, res, body }) => {
      const caller = await admit(req, res, deps);
      const envId = ofrepEnvironment(caller);
      const entry = await rulesetForEvaluation(req.em, caller, deps, envId);
      const key = caller.principal?.kind === 'token' ? caller.principal.key : null;
      if (!key) throw new DomainError('unauthorized', 'Send an API key.');
      const etag = bulkEtag(entry, key.id, body.context);
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', 'no-cache');
      if (entry) rememberBulk(req, caller, envId, entry);
      const ifNoneMatch = req.headers['if-none-match'];
      if (ifNoneMatch !== undefined && etagListMatches(ifNoneMatch, etag)) return { status: 304, body: undefined };
      const url = new URL(`${origin(req)}${EVENTS_PATH}`);
      url.searchParams.set('ticket', signTicket(key, envId, caller.now));
      return {
        status: 200,
        body: { ...evaluateFlags(entry, body.context), eventStreams: [{ type: 'sse', url: url.toString(), inactivityDelaySec: OFREP_INACTIVITY_DELAY_SEC }] },
      };
    },
    ofrepEventStream: async ({ req, res, query }) => {
      if (deps.streams.closing) {
        throw new DomainError('service_unavailable', 'This instance is shutting down.', { retryAfterSeconds: 1, closeConnection: true });
      }
      const now = deps.clock.now();
      const ip = req.ip ?? req.socket.remoteAddress ?? '';
      const address = clientAddressKey(ip);
      // Forged tickets count as failed authentications of the client address, as bad API keys do (http/admission.ts).
      const failures = deps.limits.authFailures;
      const digest = hashToken(query.ticket);
      const throttled = failures.throttledFor(address, now.getTime());
      if (throttled > 0 && !failures.isVouched(digest, now.getTime())) {
        throw new DomainError('token_rate_limit', 'Too many failed authentications from this address; retry later.', {
          retryAfterSeconds: throttled,
          details: { retryAfterSeconds: throttled, bucket: 'address' },
        });
      }
      const refuse = async (message: string) => {
        await failures.fail(address, deps.config.authFailuresPerIpPerMin, now.getTime());
        return new DomainError('unauthorized', message);
      };
      const claim = readTicket(query.ticket);
      if (!claim) throw await refuse('The ticket is malformed; take the stream URL from a bulk evaluation.');
      if (claim.expiresAt.getTime() <= now.getTime()) throw new DomainError('unauthorized', 'The ticket has expired; evaluate the flags again for a fresh stream URL.');
      const key = await req.em.findOne(ApiKeyEntity, { id: claim.keyId });
      if (!key || !ticketSignedBy(claim, key.tokenHash)) throw await refuse('The ticket is not valid.');
      failures.vouch(digest, now.getTime());
      const current = deps.apiKeys.get(key.tokenHash) ?? key;
      if (current.revokedAt) throw new DomainError('unauthorized', 'This API key has been revoked.');
      if (current.expiresAt && current.expiresAt.getTime() <= now.getTime()) throw new DomainError('unauthorized', 'This API key has expired.');
      const caller: Caller = { principal: { kind: 'token', key: current }, ip, reason: null, now };
      if (ofrepEnvironment(caller) !== claim.envId) throw new DomainError('unauthorized', 'The ticket is not valid.');
      const env = await deps.envs.get(req.em, claim.envId);
      await authorize(req.em, caller, env.orgId, { action: 'read', envId: env.id, evaluation: true });
      await chargeApiKey(deps, res, current, now);
      const slot = deps.streams.reserve({ ip: address, credential: { kind: 'key', hash: current.tokenHash } });
      try {
        const grant: StreamGrant = { kind: 'key', keyId: current.id, expiresAt: current.expiresAt ?? null };
        res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
        res.setHeader('Cache-Control', 'no-cache, no-transform');
        res.setHeader('Connection', 'keep-alive');
        res.setHeader('X-Accel-Buffering', 'no');
        const stream = deps.streams.openStream(
          slot,
          env.id,
          env.version,
          grant,
          (close) => {
            req.on('close', close);
            res.on('close', close);
            if (res.destroyed || req.socket.destroyed) close();
          },
          'ofrep',
        );
        return { status: 200, body: stream };
      } catch (err) {
        slot.release();
        throw err;
      }
    },
  });
};

/**
 * A replayed bulk request: 304 when the body is one the route takes as it is (JSON without the
 * escapes the text guard inspects, nested no deeper than it allows, valid for the contract) and
 * If-None-Match names its ETag; null for anything else, which the route answers.
 */
function notModifiedAnswer(req: IncomingMessage, raw: Buffer | undefined, entry: CachedRuleset, keyId: string): ReplayAnswer | null {
  const ifNoneMatch = req.headers['if-none-match'];
  const encoding = req.headers['content-encoding'];
  if (ifNoneMatch === undefined || !raw || !JSON_CONTENT_TYPE.test(req.headers['content-type'] ?? '') || (encoding && encoding !== 'identity') || hasSuspectEscapes(raw)) return null;
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
  if (bodyProblem(json, false)) return null;
  const input = BULK_BODY.safeParse(json);
  if (!input.success) return null;
  const context: OfrepContext = input.data.context;
  const etag = bulkEtag(entry, keyId, context);
  if (!etagListMatches(ifNoneMatch, etag)) return null;
  return { status: 304, headers: ['ETag', etag, 'Cache-Control', 'no-cache'] };
}
