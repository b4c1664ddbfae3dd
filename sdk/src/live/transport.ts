/**
 * The one place the live client's requests are built: the generated fetch
 * client configured as the REST client's (base URL, bearer token, custom fetch,
 * extra headers; http-client.ts), and the translation of the generated client's results into
 * `GradualApiError`, the SDK's one error type.
 */
import { createHttpClient } from '../http-client.js';
import type { Client as FetchClient } from '../generated/client/index.js';
import { envelopeOf, GradualApiError } from '../errors.js';
import type { ErrorEnvelope } from '../generated/types.gen.js';

export interface TransportOptions {
  baseUrl: string;
  token?: string | undefined;
  fetch?: typeof globalThis.fetch | undefined;
  headers?: Record<string, string> | undefined;
}

export function createHttp(options: TransportOptions): FetchClient {
  return createHttpClient({
    baseUrl: options.baseUrl,
    ...(options.token ? { token: options.token } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

/** The innermost message of a thrown value (fetch's TypeError wraps the socket error as `cause`). */
function reasonOf(err: unknown): string {
  const inner = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  return inner instanceof Error ? inner.message : typeof inner === 'string' ? inner : 'unknown error';
}

/** No response at all (network error, refused connection, timeout, abort): status 0, `service_unavailable`. */
export function noResponse(what: string, cause: unknown): GradualApiError {
  return new GradualApiError(0, { message: `${what}: no response: ${reasonOf(cause)}` }, undefined, { cause });
}

/** A non-2xx answer, with the server's error envelope when it sent one. */
export function httpError(response: Response, body: unknown): GradualApiError {
  return new GradualApiError(response.status, envelopeOf(body), response);
}

/** An answer the client cannot use (not JSON, not a ruleset). */
export function invalidResponse(what: string, message: string, response: Response | undefined, cause?: unknown): GradualApiError {
  const envelope: Partial<ErrorEnvelope> = { code: 'internal', message: `${what}: ${message}` };
  return new GradualApiError(response?.status ?? 0, envelope, response, cause === undefined ? undefined : { cause });
}

/**
 * `promise`, or a rejection as soon as `signal` aborts: a custom fetch that
 * ignores its abort signal cannot hold `close()` or a timeout.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** A controller aborted whenever `parent` is; `unlink` detaches it. */
export function childController(parent: AbortSignal): { controller: AbortController; unlink: () => void } {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, unlink: () => {} };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { controller, unlink: () => parent.removeEventListener('abort', onAbort) };
}
