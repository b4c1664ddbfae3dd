import { errorCatalog, type ErrorCode } from '@gradual/contract';

export interface DomainErrorOptions {
  fields?: Record<string, string>;
  details?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  /** Overrides the catalog status (only 413 for oversized bodies). */
  status?: number;
}

/**
 * The one error type of the domain. Services throw it with a catalog code;
 * the HTTP error handler turns it into the envelope with the catalog status.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields: Record<string, string> | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.status = options.status ?? errorCatalog[code];
    this.fields = options.fields;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export const notFound = (what = 'resource') => new DomainError('not_found', `${what} not found`);

export const invalid = (fields: Record<string, string>, message = 'The request is invalid.') =>
  new DomainError('invalid_request', message, { fields });
