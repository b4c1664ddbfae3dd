/**
 * The generated fetch client, configured from `ClientOptions`: base URL, bearer token or session
 * cookie, custom fetch, extra headers, and path parameters checked before anything is sent. The
 * REST client (client.ts) wraps every operation around it; the live client calls only the two it
 * needs on it, so a bundle of the live client carries no table of every operation.
 */
import { createClient as createFetchClient, createConfig } from './generated/client/index.js';
import type { Client as FetchClient } from './generated/client/index.js';
import { GradualApiError } from './errors.js';
import type { RetryOptions } from './retry.js';

export interface ClientOptions {
  /** Origin of the Gradual server, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** An API key (`svc_…`), sent as `Authorization: Bearer`. */
  token?: string | undefined;
  /**
   * A dashboard session token, sent as the `svc_session` cookie. Browsers send
   * the cookie themselves; this is for server-side callers and tests.
   */
  sessionToken?: string | undefined;
  /** Custom fetch (tests, proxies, instrumentation). */
  fetch?: typeof globalThis.fetch | undefined;
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined;
  /**
   * Retry transient failures (`true` for the defaults; off unless given): a 429 whatever the
   * method, a 5xx or no answer for reads only, with jittered backoff that honours `Retry-After`
   * (retry.ts `retryingFetch`). The REST client's only: the live client has retries of its own.
   */
  retry?: boolean | RetryOptions | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The generated client writes a path parameter it was not given as the literal `{name}`
 * (percent-encoded): a request to the wrong resource. Refuse it before anything is sent.
 */
function checkPathParameters(options: unknown): Promise<void> {
  if (!isRecord(options) || typeof options.url !== 'string') return Promise.resolve();
  const path = isRecord(options.path) ? options.path : {};
  const fields: Record<string, string> = {};
  for (const [, name] of options.url.matchAll(/\{([^{}]+)\}/g)) {
    if (name === undefined) continue;
    const value = path[name];
    if (typeof value === 'number' ? !Number.isFinite(value) : typeof value !== 'string' || value === '') {
      fields[name] = value === undefined ? 'missing path parameter' : 'must be a non-empty string or a number';
    }
  }
  const missing = Object.keys(fields);
  if (missing.length === 0) return Promise.resolve();
  return Promise.reject(
    new GradualApiError(0, {
      code: 'invalid_request',
      message: `path parameter${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${options.url}: not given as a non-empty string or number`,
      fields,
    }),
  );
}

export function createHttpClient(options: ClientOptions): FetchClient {
  return createFetchClient(
    createConfig({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      // Called once per security scheme of the operation: answer only for ours.
      auth: (auth) => {
        if (auth.scheme === 'bearer') return options.token;
        if (auth.in === 'cookie') return options.sessionToken;
        return undefined;
      },
      // Runs before the URL is built and before anything is sent.
      requestValidator: checkPathParameters,
    }),
  );
}
