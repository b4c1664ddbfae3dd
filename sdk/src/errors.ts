import type { ErrorEnvelope } from './generated/types.gen.js';

export type ErrorCode = ErrorEnvelope['code'];

/**
 * Every non-2xx answer of the API, carrying the server's error envelope.
 * Switch on `code` (typed as the catalog union), never on `message`.
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
  /** The HTTP response, when there was one (absent when the request never got an answer). */
  readonly response: Response | undefined;

  /**
   * `status` 0 means no response at all (network error, DNS, refused connection, abort):
   * `code` is then `service_unavailable` and `cause` the error fetch threw.
   */
  constructor(status: number, envelope: Partial<ErrorEnvelope> | undefined, response?: Response, options?: { cause?: unknown }) {
    super(envelope?.message ?? `HTTP ${status}`, options && 'cause' in options ? { cause: options.cause } : undefined);
    this.status = status;
    this.response = response;
    this.code = (envelope?.code ?? (status === 0 ? 'service_unavailable' : status >= 500 ? 'internal' : 'invalid_request'));
    this.fields = envelope?.fields;
    this.details = envelope?.details;
    this.requestId = envelope?.requestId ?? response?.headers.get('x-request-id') ?? undefined;
    const retryAfter = response?.headers.get('retry-after');
    this.retryAfterSeconds = retryAfter != null && retryAfter !== '' ? Number(retryAfter) : undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The error envelope's fields found in a non-2xx body (parsed JSON of any shape, or nothing).
 * `code` is taken as the server sent it: the catalog's union names every code this SDK knows.
 */
export function envelopeOf(body: unknown): Partial<ErrorEnvelope> | undefined {
  if (!isRecord(body)) return undefined;
  const { code, message, fields, details, requestId } = body;
  const stringFields = isRecord(fields) ? Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string')) : undefined;
  return {
    ...(typeof code === 'string' ? { code: code as ErrorCode } : {}),
    ...(typeof message === 'string' ? { message } : {}),
    ...(stringFields ? { fields: stringFields } : {}),
    ...(isRecord(details) ? { details } : {}),
    ...(typeof requestId === 'string' ? { requestId } : {}),
  };
}

export function isGradualApiError(err: unknown): err is GradualApiError {
  return err instanceof GradualApiError;
}
