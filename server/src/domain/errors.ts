import type { ErrorCode } from '@gradual/contract';

/** Why a request's body was refused before anything read it as input. */
export type BodyRefusal = 'too_large' | 'unsupported_encoding';

export interface DomainErrorOptions {
  fields?: Record<string, string>;
  details?: Record<string, unknown>;
  /** The client may try again after this many seconds (a rate limit, a ruleset not built yet, an unavailable database). */
  retryAfterSeconds?: number;
  /** The body was refused unread: larger than the endpoint accepts, or in an encoding the server does not decode. */
  bodyRefused?: BodyRefusal;
  /** The connection cannot serve another request: the body was left unread, or the instance is shutting down. */
  closeConnection?: boolean;
}

/**
 * The one error type of the domain: what went wrong, as a catalog code, a
 * message, per-field problems, details for the client, and the facts a client
 * acts on (when to retry, whether the connection ends). It names no HTTP status
 * or header: http/errors.ts alone maps it to the answer.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly fields: Record<string, string> | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly bodyRefused: BodyRefusal | undefined;
  readonly closeConnection: boolean;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.fields = options.fields;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.bodyRefused = options.bodyRefused;
    this.closeConnection = options.closeConnection ?? false;
  }
}

export const notFound = (what = 'resource') => new DomainError('not_found', `${what} not found`);

export const invalid = (fields: Record<string, string>, message = 'The request is invalid.') =>
  new DomainError('invalid_request', message, { fields });
