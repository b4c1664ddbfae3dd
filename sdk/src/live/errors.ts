import { envelopeOf, GradualApiError } from '../errors.js';

/**
 * What went wrong while keeping the ruleset in sync:
 * - `network`: the request failed (connection refused, reset, DNS, TLS);
 * - `timeout`: a ruleset request took longer than `requestTimeoutMs`, or
 *   `waitForReady` ran out of time;
 * - `unauthorized` (401), `forbidden` (403), `not_found` (404): the token,
 *   its scope or the environment id is wrong. These are `fatal`: retrying will
 *   not help until someone fixes the configuration (the client still retries,
 *   at the slowest backoff, so a fix is picked up without a restart);
 * - `not_cached` (503 ruleset_not_cached): the environment has had no write
 *   yet, so there is no ruleset to serve; retried after `Retry-After`;
 * - `http`: any other non-2xx answer (5xx, 429 …);
 * - `invalid_response`: the body is not a ruleset, or a stream ended before
 *   announcing a version;
 * - `stream_idle`: the stream sent nothing (not even a heartbeat) for
 *   `streamIdleTimeoutMs`; it is dropped and reopened;
 * - `closed`: the client was closed while something waited for it.
 */
export type FlagClientErrorCode =
  | 'network'
  | 'timeout'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'not_cached'
  | 'http'
  | 'invalid_response'
  | 'stream_idle'
  | 'closed';

/** Where the error happened: the ruleset GET, the event stream, or the client itself. */
export type FlagClientErrorSource = 'ruleset' | 'stream' | 'client';

export class FlagClientError extends Error {
  override readonly name = 'FlagClientError';
  readonly code: FlagClientErrorCode;
  readonly source: FlagClientErrorSource;
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** Retrying will not help until the configuration (token, scope, env id) changes. */
  readonly fatal: boolean;
  /** The server's `Retry-After`, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The server's error envelope, when it sent one. */
  readonly apiError: GradualApiError | undefined;

  constructor(
    code: FlagClientErrorCode,
    message: string,
    options: {
      source: FlagClientErrorSource;
      status?: number;
      retryAfterMs?: number;
      apiError?: GradualApiError;
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.source = options.source;
    this.status = options.status;
    this.fatal = code === 'unauthorized' || code === 'forbidden' || code === 'not_found';
    this.retryAfterMs = options.retryAfterMs;
    this.apiError = options.apiError;
  }
}

export function isFlagClientError(err: unknown): err is FlagClientError {
  return err instanceof FlagClientError;
}

/** A FlagClientError for a non-2xx answer (reads the error envelope when there is one). */
export async function httpError(res: Response, source: FlagClientErrorSource): Promise<FlagClientError> {
  let envelope: unknown;
  try {
    envelope = await res.json();
  } catch {
    envelope = undefined;
  }
  const apiError = new GradualApiError(res.status, envelopeOf(envelope), res);
  const code: FlagClientErrorCode =
    res.status === 401
      ? 'unauthorized'
      : res.status === 403
        ? 'forbidden'
        : res.status === 404
          ? 'not_found'
          : res.status === 503 && apiError.code === 'ruleset_not_cached'
            ? 'not_cached'
            : 'http';
  const seconds = apiError.retryAfterSeconds;
  const what = source === 'stream' ? 'ruleset stream' : 'ruleset';
  return new FlagClientError(code, `${what}: HTTP ${res.status} ${apiError.code}: ${apiError.message}`, {
    source,
    status: res.status,
    apiError,
    ...(seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? { retryAfterMs: seconds * 1000 } : {}),
  });
}

export function networkError(err: unknown, source: FlagClientErrorSource): FlagClientError {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const detail = cause instanceof Error ? cause.message : String(cause);
  const what = source === 'stream' ? 'ruleset stream' : 'ruleset';
  return new FlagClientError('network', `${what}: ${detail}`, { source, cause: err });
}
