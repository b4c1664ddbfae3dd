import * as operations from './generated/sdk.gen.js';
import { createClient as createFetchClient, createConfig } from './generated/client/index.js';
import type { Client as FetchClient } from './generated/client/index.js';
import { envelopeOf, GradualApiError } from './errors.js';

export interface ClientOptions {
  /** Origin of the Gradual server, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** An API key (`svc_…`), sent as `Authorization: Bearer`. */
  token?: string;
  /**
   * A dashboard session token, sent as the `svc_session` cookie. Browsers send
   * the cookie themselves; this is for server-side callers and tests.
   */
  sessionToken?: string;
  /** Custom fetch (tests, proxies, instrumentation). */
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

type Operations = typeof operations;
type OperationName = {
  [K in keyof Operations]: Operations[K] extends (...args: never[]) => unknown ? K : never;
}[keyof Operations];

type OptionsOf<K extends OperationName> = Parameters<Operations[K]>[0];
type DataOf<K extends OperationName> = Exclude<Awaited<ReturnType<Operations[K]>>['data'], undefined>;
type ResultOf<K extends OperationName> = [DataOf<K>] extends [never] ? void : DataOf<K>;
type Args<K extends OperationName> = undefined extends OptionsOf<K>
  ? [options?: Omit<NonNullable<OptionsOf<K>>, 'client'>]
  : [options: Omit<NonNullable<OptionsOf<K>>, 'client'>];

/** Each API operation: resolves with the response body, rejects with `GradualApiError`. */
export type GradualOperations = { [K in OperationName]: (...args: Args<K>) => Promise<ResultOf<K>> };

/** The same operations resolving with `{ data, response }`, for callers that need headers (ETag, rate limits). */
export type GradualRawOperations = {
  [K in OperationName]: (...args: Args<K>) => Promise<{ data: ResultOf<K>; response: Response }>;
};

export type GradualClient = GradualOperations & {
  withResponse: GradualRawOperations;
  /** The underlying generated fetch client (interceptors, config). */
  http: FetchClient;
};

export function createClient(options: ClientOptions): GradualClient {
  const http = createFetchClient(
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
    }),
  );

  const call = async (name: OperationName, args: Record<string, unknown> | undefined) => {
    const fn = operations[name] as (o: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const result = await fn({ ...(args ?? {}), client: http });
    if (!result.response) {
      // fetch threw (network error, abort…): the generated client hands its error back as `error`.
      const cause = result.error;
      const reason = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : 'unknown error';
      throw new GradualApiError(0, { message: `no response: ${reason}` }, undefined, { cause });
    }
    if (!result.response.ok) {
      throw new GradualApiError(result.response.status, envelopeOf(result.error), result.response);
    }
    return { data: result.data, response: result.response };
  };

  const plain: Record<string, unknown> = {};
  const withResponse: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(operations)) {
    if (typeof fn !== 'function') continue;
    plain[name] = async (args?: Record<string, unknown>) => (await call(name as OperationName, args)).data;
    withResponse[name] = (args?: Record<string, unknown>) => call(name as OperationName, args);
  }
  return Object.assign(plain as GradualOperations, { withResponse: withResponse as GradualRawOperations, http });
}
