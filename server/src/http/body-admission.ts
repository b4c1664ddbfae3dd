import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';
import type { RequestValidationError } from '@ts-rest/express';
import { API_PREFIX, contract, type RouteAuth } from '@gradual/contract';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../domain/errors.js';
import { authorize } from '../features/access/authorize.js';
import { segmentProject } from '../features/segments/segments.service.js';
import { admit, type AdmissionRequest } from './admission.js';
import { sessionTokenOf } from './caller.js';
import { sendError } from './errors.js';
import { lingeringClose } from './lingering-close.js';
import { jsonBodyVerify } from './text-guard.js';

/** JSON bodies are capped at 1 MiB, target-ID lists at 64 MiB (docs/api.md); larger ones get 413 with the envelope. */
export const JSON_BODY_LIMIT = '1mb';
export const TARGET_IDS_BODY_LIMIT = '64mb';
/**
 * What is read of a body before its caller is known to be allowed more: the whole body of a
 * route open to anyone (sign-in links, signup, the install claim, invitations, logout), and the
 * most a request whose caller is not yet resolved may declare and still be read before the caller is.
 */
export const UNAUTHENTICATED_BODY_LIMIT = 16 * 1024;

const JSON_TYPES = ['application/json', 'application/*+json'];
/** A target-ID list's routes: `…/envs/:envId/(flags|configs)/:key/rollout/target-ids/…`. */
const TARGET_ID_PATH = new RegExp(`^${API_PREFIX}/envs/([^/]+)/(?:flags|configs)/([^/]+)/rollout/target-ids/`);
/** A segment's list writes: `…/projects/:id/segments/:key/(included|excluded)/(add|remove|replace)`. */
const SEGMENT_LIST_PATH = new RegExp(`^${API_PREFIX}/projects/([^/]+)/segments/[^/]+/(?:included|excluded)/(?:add|remove|replace)/?$`, 'i');
/** Routes whose handlers take no credentials of the session or API-key kind (the rollback webhook reads its own body, fire-body.ts). */
const OPEN: ReadonlySet<RouteAuth> = new Set<RouteAuth>(['public', 'optionalSession', 'rollback']);
const AUTHS: ReadonlySet<unknown> = new Set<RouteAuth>(['public', 'session', 'optionalSession', 'any', 'rollback', 'apiKey']);
const isRouteAuth = (value: unknown): value is RouteAuth => AUTHS.has(value);

type BodyRequest = AdmissionRequest & Pick<Request, 'id' | 'method' | 'baseUrl' | 'path' | 'fireBody'>;

/** Who may call a contract route (its metadata's `auth`; `any` when it says nothing). */
function authOf(route: AppRoute): RouteAuth {
  const metadata = route.metadata;
  const auth = typeof metadata === 'object' && metadata !== null && 'auth' in metadata ? metadata.auth : undefined;
  return isRouteAuth(auth) ? auth : 'any';
}

interface RouteEntry {
  method: string;
  pattern: RegExp;
  auth: RouteAuth;
}

/** Every contract route as Express matches it: any case, an optional trailing slash, one segment per parameter. */
function routeTable(router: AppRouter, into: RouteEntry[] = []): RouteEntry[] {
  for (const value of Object.values(router)) {
    if (!isAppRoute(value)) {
      routeTable(value, into);
      continue;
    }
    const segments = value.path.split('/').map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    into.push({ method: value.method, pattern: new RegExp(`^${segments.join('/')}/?$`, 'i'), auth: authOf(value) });
  }
  return into;
}

let routes: RouteEntry[] | undefined;

/** Whether a request to `path` needs a session or an API key; true for a path no route serves. */
function needsCredentials(method: string, path: string): boolean {
  routes ??= routeTable(contract);
  const m = method === 'HEAD' ? 'GET' : method;
  const route = routes.find((r) => r.method === m && r.pattern.test(path));
  return route === undefined || !OPEN.has(route.auth);
}

const unauthorized = () => new DomainError('unauthorized', 'Sign in or send an API key.');

/** Whether the request presents credentials at all: an Authorization header or the session cookie. */
const carriesCredentials = (req: BodyRequest) => req.headers.authorization !== undefined || !!sessionTokenOf(req);

/**
 * Why a request to a route that needs credentials cannot be served as its caller: 401 without
 * credentials, or with credentials that resolve to nobody; admission's own refusals (an unknown
 * API key, a throttled address). Null when the caller is admitted. Admission happens once per
 * request (admit), so the route's handler reuses this one.
 */
async function admissionRefusal(req: BodyRequest, res: Response, deps: AppDeps): Promise<DomainError | null> {
  if (!carriesCredentials(req)) return unauthorized();
  try {
    return (await admit(req, res, deps)).principal ? null : unauthorized();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
}

type TargetIdWrite = { kind: 'rollout'; envId: string; key: string } | { kind: 'segment'; projectId: string };

/** What a write to a target-ID list (not a GET: a check or a page of the list) writes: a rollout's allow-list or a segment's list. */
function targetIdWrite(req: BodyRequest, path: string): TargetIdWrite | null {
  if (req.method === 'GET' || req.method === 'HEAD') return null;
  const rollout = TARGET_ID_PATH.exec(path);
  const segment = rollout ? null : SEGMENT_LIST_PATH.exec(path);
  if (!rollout && !segment) return null;
  try {
    return rollout ? { kind: 'rollout', envId: decodeURIComponent(rollout[1]!), key: decodeURIComponent(rollout[2]!) } : { kind: 'segment', projectId: decodeURIComponent(segment![1]!) };
  } catch {
    throw new DomainError('invalid_request', 'The path is not valid percent-encoding.');
  }
}

/**
 * Refuses a caller who may not write to this target-ID list, as the route would (404 for an
 * unknown environment, project or another organization's, 403 for an API key without the write
 * action or out of its environment or resource scope), before its body (up to 64 MiB) is read. An
 * API key that needs approval may write a rollout's list (its write becomes a proposal), not a
 * segment's.
 */
async function checkTargetIdWriter(req: BodyRequest, res: Response, deps: AppDeps, target: TargetIdWrite): Promise<void> {
  const caller = await admit(req, res, deps);
  // A segment's lists: the segment routes' own check (a write that reaches every environment).
  if (target.kind === 'segment') {
    await segmentProject(req.em, caller, target.projectId, 'write');
    return;
  }
  const env = await deps.envs.get(req.em, target.envId);
  await authorize(req.em, caller, env.orgId, { action: 'write', proposal: true, envId: target.envId, resourceKey: target.key });
}

/** Content-Length, when the request declares one. */
function declaredLength(req: BodyRequest): number | undefined {
  const length = req.headers['content-length'];
  return length === undefined ? undefined : Number(length);
}

/** A body whose size is known before it is read and within UNAUTHENTICATED_BODY_LIMIT (not chunked, not compressed). */
function smallBody(req: BodyRequest): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return false;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  return (declaredLength(req) ?? 0) <= UNAUTHENTICATED_BODY_LIMIT;
}

const hasBody = (req: BodyRequest) => req.headers['transfer-encoding'] !== undefined || (declaredLength(req) ?? 0) > 0;

/**
 * The JSON body reader of the API, mounted on /api, which reads a body only as far as its caller
 * may send one: nothing is parsed beyond UNAUTHENTICATED_BODY_LIMIT before the caller is admitted.
 *
 * - No body, or a body of at most 16 KiB by Content-Length: parsed at once (the common case, and
 *   every hot path, costs nothing more). A malformed one on a route that needs credentials is
 *   401 when the request carries none (credentials first, then the input).
 * - Larger, chunked or compressed: the route is looked up first. Open routes take 16 KiB at most
 *   (a larger Content-Length is 413 at once). Other routes admit the caller first (http/admission.ts,
 *   which the handler then reuses): 401 without credentials or with bad ones, 429 for a throttled
 *   address or an empty bucket; a write to a target-ID list also needs a caller who may write there
 *   (checkTargetIdWriter). Then the body is read up to 1 MiB, or 64 MiB for a target-ID list.
 *
 * A refusal before the body is read is answered at once with `Connection: close` and the body is
 * never parsed; the connection closes lingeringly (lingering-close.ts): the rest of the body is
 * discarded for a short while, so a client that writes its whole body first reads the answer.
 */
export function jsonBodyReader(deps: AppDeps): RequestHandler {
  const json = (limit: string | number) => express.json({ limit, type: JSON_TYPES, verify: jsonBodyVerify });
  const open = json(UNAUTHENTICATED_BODY_LIMIT);
  const regular = json(JSON_BODY_LIMIT);
  const bulk = json(TARGET_IDS_BODY_LIMIT);

  /** A refusal before the body is read: the connection closes after it, lingeringly (lingering-close.ts). */
  const refuse = (req: Request, res: Response, next: NextFunction) => (err: unknown) => {
    if (!(err instanceof DomainError)) return next(err);
    lingeringClose(req, res);
    sendError(req, res, err);
  };

  /** A body parser's error (malformed JSON): 401 instead when the route needs credentials and none came. */
  const parseFailed = (req: BodyRequest, res: Response, next: NextFunction, err: unknown) => {
    if (!carriesCredentials(req) && needsCredentials(req.method, req.baseUrl + req.path)) return sendError(req, res, unauthorized());
    next(err);
  };

  /** The parser this request's body may be read with, once its caller is admitted (undefined: refused). */
  const parserFor = async (req: BodyRequest, res: Response): Promise<RequestHandler> => {
    const path = req.baseUrl + req.path;
    if (!needsCredentials(req.method, path)) {
      if ((declaredLength(req) ?? 0) > UNAUTHENTICATED_BODY_LIMIT) {
        throw new DomainError('invalid_request', 'The request body is too large.', { bodyRefused: 'too_large', fields: { body: 'too large' } });
      }
      return open;
    }
    const refusal = await admissionRefusal(req, res, deps);
    if (refusal) throw refusal;
    const target = targetIdWrite(req, path);
    if (!target) return regular;
    await checkTargetIdWriter(req, res, deps, target);
    return bulk;
  };

  return (req, res, next) => {
    // The rollback webhook's body has been read already (fire-body.ts).
    if (req.fireBody !== undefined) return next();
    // No body reads as an empty object, as the JSON parser would have it: a route whose body is
    // optional (metadata optionalBody) then sees its fields missing rather than no body at all.
    if (!hasBody(req)) {
      req.body ??= {};
      return next();
    }
    const parsed = (err?: unknown) => (err ? parseFailed(req, res, next, err) : next());
    if (smallBody(req)) return regular(req, res, parsed);
    parserFor(req, res).then((parser) => parser(req, res, parsed), refuse(req, res, next));
  };
}

/**
 * ts-rest's validation failures, credentials first: a request without credentials to a route that
 * needs them is 401 whatever its input, so a client without credentials learns nothing of the
 * contract's checks. Otherwise `handler` answers (400 invalid_request). A request with credentials
 * is not admitted for an invalid input (it is neither charged nor looked up: a lookup here would
 * tell good credentials from bad ones past admission's failed-authentication throttle).
 */
export function validationAfterCredentials(
  handler: (err: RequestValidationError, req: Pick<Request, 'id' | 'method' | 'baseUrl' | 'path'>, res: Response, next: NextFunction) => void,
): (err: RequestValidationError, req: BodyRequest & { tsRestRoute: AppRoute }, res: Response, next: NextFunction) => void {
  return (err, req, res, next) => {
    if (carriesCredentials(req) || OPEN.has(authOf(req.tsRestRoute))) return handler(err, req, res, next);
    sendError(req, res, unauthorized());
  };
}
