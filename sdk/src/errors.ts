import type { ErrorEnvelope } from './generated/types.gen.js';

export type ErrorCode = ErrorEnvelope['code'];

/** The caller's token bucket, from the `X-RateLimit-*` headers of an answer. */
export interface RateLimit {
  /** `X-RateLimit-Limit`: the bucket's size, requests a minute. */
  limit: number;
  /** `X-RateLimit-Remaining`: requests left in the bucket. */
  remaining: number;
  /** `X-RateLimit-Reset`: seconds until the bucket is full again. */
  resetSeconds: number;
}

/**
 * Marks every `GradualApiError`, whichever copy of the SDK made it: an application can load the
 * ESM and the CommonJS build side by side, each with its own class, and `Symbol.for` is one
 * symbol for both.
 */
const BRAND = Symbol.for('@gradual/sdk/GradualApiError');

const isBranded = (value: unknown): boolean => typeof value === 'object' && value !== null && Reflect.get(value, BRAND) === true;

const codeByStatus = new Map<number, ErrorCode>([
  [0, 'service_unavailable'],
  [401, 'unauthorized'],
  [403, 'forbidden'],
  [404, 'not_found'],
  [412, 'precondition_failed'],
  [429, 'token_rate_limit'],
  [503, 'service_unavailable'],
]);

/**
 * The code of an answer without an error envelope (a proxy's or load balancer's bodyless 401,
 * an HTML 502…), by the catalog's meaning of its status.
 */
export function codeOfStatus(status: number): ErrorCode {
  return codeByStatus.get(status) ?? (status >= 500 ? 'internal' : 'invalid_request');
}

const headerNumber = (response: Response | undefined, name: string): number | undefined => {
  const text = response?.headers.get(name);
  if (text == null || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
};

/**
 * Every non-2xx answer of the API, carrying the server's error envelope, and every request the
 * SDK refuses to send. Switch on `code` (typed as the catalog union), never on `message`.
 *
 * - `code` is the envelope's; an answer without one gets the code its status means in the
 *   catalog (401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 412 `precondition_failed`,
 *   429 `token_rate_limit`, 503 `service_unavailable`, other 5xx `internal`, other 4xx
 *   `invalid_request`).
 * - `status` 0 means no HTTP answer. Either the request never got one (network error, DNS,
 *   refused connection, abort): `code` is `service_unavailable` and `cause` the error fetch
 *   threw. Or the SDK refused to send it: a path parameter of the operation's URL (e.g.
 *   `{targetId}`) was missing or not a non-empty string or number; `code` is `invalid_request`
 *   and `fields` names each such parameter.
 * - `status` 304: a plain call (not `withResponse`) sent a conditional GET (`If-None-Match`) and
 *   was answered `304 Not Modified`, which has no body to resolve with. `code` is
 *   `invalid_request` (the codes are the API's catalog, with no client-only ones) and the message
 *   names the `withResponse` method that resolves the 304 with `notModified: true`.
 * - `instanceof GradualApiError` and `isGradualApiError` hold for errors of any copy of the SDK
 *   (ESM and CommonJS builds loaded together).
 */
export class GradualApiError extends Error {
  override readonly name = 'GradualApiError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly fields: Record<string, string> | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly requestId: string | undefined;
  /** Seconds to wait before retrying, from `Retry-After` (429 and 503). */
  readonly retryAfterSeconds: number | undefined;
  /** The bucket that refused a 429 (or the caller's bucket on another answer), when the answer has `X-RateLimit-*` headers. */
  readonly rateLimit: RateLimit | undefined;
  /** The HTTP response, when there was one (absent when the request never got an answer). */
  readonly response: Response | undefined;

  constructor(status: number, envelope: Partial<ErrorEnvelope> | undefined, response?: Response, options?: { cause?: unknown }) {
    super(envelope?.message ?? `HTTP ${status}`, options && 'cause' in options ? { cause: options.cause } : undefined);
    Object.defineProperty(this, BRAND, { value: true });
    this.status = status;
    this.response = response;
    this.code = envelope?.code ?? codeOfStatus(status);
    this.fields = envelope?.fields;
    this.details = envelope?.details;
    this.requestId = envelope?.requestId ?? response?.headers.get('x-request-id') ?? undefined;
    this.retryAfterSeconds = headerNumber(response, 'retry-after');
    const limit = headerNumber(response, 'x-ratelimit-limit');
    const remaining = headerNumber(response, 'x-ratelimit-remaining');
    const resetSeconds = headerNumber(response, 'x-ratelimit-reset');
    this.rateLimit = limit !== undefined && remaining !== undefined && resetSeconds !== undefined ? { limit, remaining, resetSeconds } : undefined;
  }

  /** `instanceof` by the brand, so an error of another copy of the SDK is one too. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass keeps the prototype-chain test: its instances are a subset of the brand's.
    if (this !== GradualApiError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return isBranded(value);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The error envelope of a non-2xx body (parsed JSON of any shape, or nothing): `undefined` unless
 * the body is one (an object with a string `code` and `message`), so another body's fields are
 * never taken for the server's. `code` is taken as the server sent it: the catalog's union names
 * every code this SDK knows.
 */
export function envelopeOf(body: unknown): Partial<ErrorEnvelope> | undefined {
  if (!isRecord(body)) return undefined;
  const { code, message, fields, details, requestId } = body;
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  const stringFields = isRecord(fields) ? Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string')) : undefined;
  return {
    code: code as ErrorCode,
    message,
    ...(stringFields ? { fields: stringFields } : {}),
    ...(isRecord(details) ? { details } : {}),
    ...(typeof requestId === 'string' ? { requestId } : {}),
  };
}

/** Whether `err` is a `GradualApiError` of this or any other copy of the SDK. */
export function isGradualApiError(err: unknown): err is GradualApiError {
  return isBranded(err);
}
