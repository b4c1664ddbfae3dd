import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { ZodError, type z, type ZodIssue } from 'zod';
import type { RequestValidationError } from '@ts-rest/express';
import { API_PREFIX, errorCatalog, type ErrorEnvelope, type OfrepBulkEvaluationFailure, type OfrepEvaluationFailure, type OfrepGeneralError } from '@gradual/contract';

type OfrepFailure = z.infer<typeof OfrepEvaluationFailure>;
type OfrepBulkFailure = z.infer<typeof OfrepBulkEvaluationFailure>;
type OfrepNotFound = { key: string; errorCode: 'FLAG_NOT_FOUND'; errorDetails: string };
type OfrepInternal = z.infer<typeof OfrepGeneralError>;
import { DomainError, type BodyRefusal } from '../domain/errors.js';
import { CONFLICT_RETRY, conflictSqlState } from '../db/transaction.js';

/** Zod issues → `fields` keyed by dotted path (`rampSteps.0.percent`); the first message per path wins. */
export function fieldsFromZod(issues: ZodIssue[], prefix?: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const path = [...(prefix ? [prefix] : []), ...issue.path].join('.') || (prefix ?? 'body');
    fields[path] ??= issue.message;
  }
  return fields;
}

/**
 * The one table from a service error to HTTP: the status is the contract's errorCatalog entry for
 * the code, except where a fact about the request decides it (a body refused unread: 413 too
 * large, 415 unsupported encoding); headers come from the facts a client acts on.
 */
const REFUSED_BODY_STATUS: Record<BodyRefusal, number> = { too_large: 413, unsupported_encoding: 415 };
const FACT_HEADERS: ReadonlyArray<(err: DomainError) => [string, string] | null> = [
  (err) => (err.retryAfterSeconds === undefined ? null : ['Retry-After', String(err.retryAfterSeconds)]),
  (err) => (err.closeConnection ? ['Connection', 'close'] : null),
];

/** The status and headers that answer `err`. */
export function httpAnswerOf(err: DomainError): { status: number; headers: [string, string][] } {
  const status = err.bodyRefused ? REFUSED_BODY_STATUS[err.bodyRefused] : errorCatalog[err.code];
  const headers = FACT_HEADERS.map((header) => header(err)).filter((header) => header !== null);
  return { status, headers };
}

export function sendError(req: Pick<Request, 'id'>, res: Response, err: DomainError): void {
  if (res.headersSent) return;
  const { status, headers } = httpAnswerOf(err);
  for (const [name, value] of headers) res.setHeader(name, value);
  const envelope: ErrorEnvelope = {
    code: err.code,
    message: err.message,
    ...(err.fields ? { fields: err.fields } : {}),
    ...(err.details ? { details: err.details } : {}),
    requestId: req.id,
  };
  res.status(status).json(envelope);
}

/** What the OFREP answers read of a request: its method and path. */
type RoutedRequest = Pick<Request, 'id' | 'method' | 'baseUrl' | 'path'>;

/** The OFREP evaluation routes: `POST …/ofrep/v1/evaluate/flags` and `…/flags/{key}` (the key, when present, percent-decoded). */
const OFREP_EVALUATION = new RegExp(`^${API_PREFIX}/ofrep/v1/evaluate/flags(?:/([^/]+))?/?$`, 'i');
function ofrepEvaluation(req: RoutedRequest): { key: string | undefined } | null {
  if (req.method !== 'POST') return null;
  const match = OFREP_EVALUATION.exec(req.baseUrl + req.path);
  if (!match) return null;
  const raw = match[1];
  if (raw === undefined) return { key: undefined };
  try {
    return { key: decodeURIComponent(raw) };
  } catch {
    return { key: raw };
  }
}

/**
 * The OFREP evaluation routes answer in the protocol's shape (contract schemas/ofrep.ts): a 400 as
 * `{key, errorCode, errorDetails}` (the bulk route without `key`), PARSE_ERROR for a body that is
 * not JSON and INVALID_CONTEXT for any other invalid input; a 404 as FLAG_NOT_FOUND; a 500 as
 * `{errorDetails}`. Their 401, 403, 413, 415, 429 and 503 keep the envelope. False when `err` is
 * not answered here.
 */
function sendOfrepError(req: RoutedRequest, res: Response, err: DomainError, parseFailed: boolean): boolean {
  const route = ofrepEvaluation(req);
  if (!route || res.headersSent) return false;
  const { status, headers } = httpAnswerOf(err);
  const details = err.fields ? Object.entries(err.fields).map(([path, message]) => `${path}: ${message}`).join('; ') : err.message;
  let body: OfrepFailure | OfrepBulkFailure | OfrepNotFound | OfrepInternal;
  if (status === 400) {
    const failure: OfrepBulkFailure = { errorCode: parseFailed ? 'PARSE_ERROR' : 'INVALID_CONTEXT', errorDetails: details };
    body = route.key === undefined ? failure : { key: route.key, ...failure };
  } else if (status === 404 && route.key !== undefined) {
    body = { key: route.key, errorCode: 'FLAG_NOT_FOUND', errorDetails: err.message };
  } else if (status === 500) {
    body = { errorDetails: err.message };
  } else {
    return false;
  }
  for (const [name, value] of headers) res.setHeader(name, value);
  res.status(status).json(body);
  return true;
}

/** ts-rest's validation failures (params, query, headers, body) become one invalid_request. */
/**
 * Whether a body issue is one of a plan's ramp limits that the contract's schema checks (its
 * RAMP_STEPS_MIN/MAX on `rampSteps`, HOLD_SECONDS_MAX on a step's `holdForSeconds`), rather than
 * a wrong shape or type.
 */
function isRampLimit(issue: ZodIssue): boolean {
  if (issue.path[0] !== 'rampSteps') return false;
  if (issue.path.length === 1) return issue.code === 'too_small' || issue.code === 'too_big';
  return issue.path.length === 3 && issue.path[2] === 'holdForSeconds' && issue.code === 'too_big';
}

/**
 * A request the contract's schemas refused: `400 invalid_request` with `fields`, except a plan body
 * refused only for its ramp limits, which answers `400 rollout_plan_invalid_ramp` as the ramp rules
 * the server checks itself do (domain/rollouts/plan-validation.ts).
 */
export function requestValidationErrorHandler(err: RequestValidationError, req: RoutedRequest, res: Response, _next: NextFunction): void {
  const bodyIssues = err.body?.issues ?? [];
  if (!err.pathParams && !err.query && !err.headers && bodyIssues.length > 0 && bodyIssues.every(isRampLimit)) {
    sendError(req, res, new DomainError('rollout_plan_invalid_ramp', 'The ramp steps are invalid.', { fields: fieldsFromZod(bodyIssues) }));
    return;
  }
  const fields = {
    ...(err.pathParams ? fieldsFromZod(err.pathParams.issues) : {}),
    ...(err.headers ? fieldsFromZod(err.headers.issues, 'headers') : {}),
    ...(err.query ? fieldsFromZod(err.query.issues) : {}),
    ...(err.body ? fieldsFromZod(err.body.issues) : {}),
  };
  const invalid = new DomainError('invalid_request', 'The request is invalid; see fields.', { fields });
  if (!sendOfrepError(req, res, invalid, false)) sendError(req, res, invalid);
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(req, res, new DomainError('not_found', `No route for ${req.method} ${req.path}`));
};

/** Errors thrown by body-parser carry a `type` (and a `status`); map the ones a client can cause. */
function fromBodyParser(thrown: unknown): DomainError | null {
  if (typeof thrown !== 'object' || thrown === null) return null;
  const err = {
    type: 'type' in thrown ? thrown.type : undefined,
    status: 'status' in thrown && typeof thrown.status === 'number' ? thrown.status : undefined,
    message: 'message' in thrown && typeof thrown.message === 'string' ? thrown.message : undefined,
  };
  switch (err.type) {
    case 'entity.parse.failed':
      return new DomainError('invalid_request', 'The body is not valid JSON.', { fields: { body: 'malformed JSON' } });
    case 'entity.too.large':
      return new DomainError('invalid_request', 'The request body is too large.', { bodyRefused: 'too_large', fields: { body: 'too large' } });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new DomainError('invalid_request', 'Unsupported body encoding.', { bodyRefused: 'unsupported_encoding' });
    case 'request.aborted':
      return new DomainError('invalid_request', 'The request was aborted.');
    default:
      return err.status && err.status >= 400 && err.status < 500
        ? new DomainError('invalid_request', err.message ?? 'Bad request.')
        : null;
  }
}

/** The single place where any error becomes the envelope. */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  let domain: DomainError;
  if (err instanceof DomainError) domain = err;
  else if (err instanceof ZodError) domain = new DomainError('invalid_request', 'The request is invalid; see fields.', { fields: fieldsFromZod(err.issues) });
  else domain = fromBodyParser(err) ?? fromDatabaseInput(err) ?? internal(req, err);
  if (!sendOfrepError(req, res, domain, bodyParserType(err) === 'entity.parse.failed')) sendError(req, res, domain);
};

/** The `type` of a body-parser error (undefined for any other). */
function bodyParserType(thrown: unknown): unknown {
  return typeof thrown === 'object' && thrown !== null && 'type' in thrown ? thrown.type : undefined;
}

/**
 * PostgreSQL refuses some values a client can send and zod lets through:
 * NUL (U+0000) in text or jsonb, JSON nested deeper than the server's stack,
 * numbers out of a column's range. These are the client's input, so they are
 * a 400 invalid_request, not a 500 (the transaction has rolled back).
 */
const INPUT_SQLSTATES: Record<string, string> = {
  '22021': 'The request contains a character the database cannot store (e.g. NUL, U+0000).',
  '22P05': 'The request contains a character the database cannot store (e.g. NUL, U+0000).',
  '54001': 'The request is nested too deeply.',
  '22003': 'A number in the request is out of range.',
};
function fromDatabaseInput(err: unknown): DomainError | null {
  const code = (err as { code?: unknown } | null)?.code;
  const message = typeof code === 'string' ? INPUT_SQLSTATES[code] : undefined;
  return message ? new DomainError('invalid_request', message) : null;
}

function internal(req: Request, err: unknown): DomainError {
  const conflict = conflictSqlState(err);
  if (conflict) {
    // Still losing to concurrent writers after its retries (db/transaction.ts): nothing was committed.
    req.log?.warn({ err }, `write conflict (${conflict}) after ${CONFLICT_RETRY.attempts} attempts`);
    return new DomainError('service_unavailable', 'The write conflicted with concurrent writes and was not applied; retry shortly.', { retryAfterSeconds: 1 });
  }
  const unavailable = databaseUnavailable(err);
  req.log?.error({ err }, unavailable ? `database unavailable (${unavailable.reason})` : 'unhandled error');
  return unavailable
    ? new DomainError('service_unavailable', unavailable.message, { retryAfterSeconds: unavailable.retryAfterSeconds })
    : new DomainError('internal', 'Internal server error.');
}

/** SQLSTATEs and errno codes of a database that is away or cannot take writes for now. */
const UNAVAILABLE_CODES: Record<string, 'connection' | 'disk_full'> = {
  ECONNREFUSED: 'connection',
  ECONNRESET: 'connection',
  EPIPE: 'connection',
  '57P01': 'connection', // admin_shutdown
  '57P03': 'connection', // cannot_connect_now
  '08006': 'connection',
  '08001': 'connection',
  '08003': 'connection',
  '53300': 'connection', // too_many_connections
  '53100': 'disk_full', // disk_full
  ENOSPC: 'disk_full',
};
/** Pool timeouts: knex's own error, and the same wrapped by MikroORM (a DriverException keeps the message). */
const POOL_TIMEOUT = /^Knex: Timeout acquiring a connection|^timeout exceeded when trying to connect|^Connection terminated/;

/**
 * Lost database connections, an exhausted pool (knex's acquire timeout, wrapped by MikroORM or
 * not; the statement pool: db/statement-pool.ts) and a full disk answer 503 with Retry-After
 * (retryable), not 500. Looks through `cause`: drivers and MikroORM wrap the original error.
 */
function databaseUnavailable(thrown: unknown): { reason: string; message: string; retryAfterSeconds: number } | null {
  for (let err = thrown, depth = 0; typeof err === 'object' && err !== null && depth < 5; err = (err as { cause?: unknown }).cause, depth++) {
    const { code, name, message } = err as { code?: unknown; name?: unknown; message?: unknown };
    const kind = typeof code === 'string' ? UNAVAILABLE_CODES[code] : undefined;
    if (kind === 'disk_full') {
      return { reason: 'disk full', message: 'The database is out of disk space; retry later.', retryAfterSeconds: 10 };
    }
    if (kind || name === 'KnexTimeoutError' || name === 'DatabaseUnavailableError' || (typeof message === 'string' && POOL_TIMEOUT.test(message))) {
      return { reason: kind ? `connection: ${String(code)}` : 'no connection in time', message: 'The database is unavailable; retry shortly.', retryAfterSeconds: 1 };
    }
  }
  return null;
}
