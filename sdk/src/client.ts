// A plain object, not `import * as`: a namespace object would keep every operation in the bundle of
// an application that uses only the live client (see sdk/scripts/generate.ts).
import { operations } from './generated/operations.gen.js';
import type { Options } from './generated/sdk.gen.js';
import type { Client as FetchClient } from './generated/client/index.js';
import type { Proposal } from './generated/types.gen.js';
import { envelopeOf, GradualApiError } from './errors.js';
import { createHttpClient, type ClientOptions } from './http-client.js';
import { retryingFetch } from './retry.js';

export type { ClientOptions } from './http-client.js';
export type { RetryOptions } from './retry.js';

type Operations = typeof operations;
export type OperationName = {
  [K in keyof Operations]: Operations[K] extends (...args: never[]) => unknown ? K : never;
}[keyof Operations];

type OptionsOf<K extends OperationName> = Parameters<Operations[K]>[0];
/** The generated `<Op>Data` (path, query, body, headers, url) of an operation. */
type DataOf<K extends OperationName> = OptionsOf<K> extends Options<infer D, boolean> ? D : never;
/** The union of the generated `<Op>Responses` bodies (`void` for a 204). */
type BodyOf<K extends OperationName> = Exclude<Awaited<ReturnType<Operations[K]>>['data'], undefined>;
type Args<K extends OperationName> = undefined extends OptionsOf<K>
  ? [options?: Omit<NonNullable<OptionsOf<K>>, 'client'>]
  : [options: Omit<NonNullable<OptionsOf<K>>, 'client'>];

/**
 * The operations an approval-required API key diverts: their generated `<Op>Responses` hold a
 * `202: Proposal` beside the operation's own answer (a 2xx body, or `void` for a 204). The
 * generated functions hand those responses on only as the union of their bodies, so the 202 is
 * the `Proposal` member of that union; an operation that answers nothing but a Proposal (reading
 * one) is not among them.
 */
type Proposable<K extends OperationName> = [Extract<BodyOf<K>, Proposal>] extends [never]
  ? false
  : [Exclude<BodyOf<K>, Proposal>] extends [never]
    ? false
    : true;
type AppliedOf<K extends OperationName> = [Exclude<BodyOf<K>, Proposal | void>] extends [never] ? undefined : Exclude<BodyOf<K>, Proposal | void>;

/** The names of the operations `Proposable` finds. */
export type ProposableOperation = { [K in OperationName]: Proposable<K> extends true ? K : never }[OperationName];

/**
 * The same operations at run time, where the types are gone. Its type makes the compiler hold
 * it to exactly `ProposableOperation`: an operation the contract gives a 202 Proposal, or takes
 * it from, stops the build until this record agrees.
 */
const proposable: { readonly [K in ProposableOperation]: true } = {
  deleteFlagRollout: true,
  putFlagRollout: true,
  pauseFlagRollout: true,
  resumeFlagRollout: true,
  cancelFlagRollout: true,
  advanceFlagRollout: true,
  addFlagTargetIds: true,
  removeFlagTargetIds: true,
  replaceFlagTargetIds: true,
  deleteConfigRollout: true,
  putConfigRollout: true,
  pauseConfigRollout: true,
  resumeConfigRollout: true,
  cancelConfigRollout: true,
  advanceConfigRollout: true,
  addConfigTargetIds: true,
  removeConfigTargetIds: true,
  replaceConfigTargetIds: true,
};

/**
 * What a rollout or target-ID mutation did, from the HTTP status: `applied` (2xx; `data` is the
 * answer's body, `undefined` for a 204) or `proposed` (202: an approval-required API key's
 * request was stored as `proposal` and nothing changed until an admin applies it).
 */
export type MutationResult<T> = { kind: 'applied'; data: T } | { kind: 'proposed'; proposal: Proposal };

/**
 * Conditional GETs: operations that answer `304 Not Modified`. The generated `<Op>Responses` leave
 * the bodyless 304 out, so they are found by the `If-None-Match` header in their generated
 * `<Op>Data`, which the contract gives exactly the GETs that answer 304.
 */
type Conditional<K extends OperationName> = DataOf<K> extends { headers?: infer H }
  ? 'if-none-match' extends keyof NonNullable<H>
    ? true
    : false
  : false;

/** What an operation resolves with: its body, `MutationResult` for the operations an approval can divert, `void` for a 204. */
export type OperationResult<K extends OperationName> =
  Proposable<K> extends true ? MutationResult<AppliedOf<K>> : [BodyOf<K>] extends [never] ? void : BodyOf<K>;

/**
 * `withResponse.<op>()`: the result with the HTTP response. For a conditional GET answered
 * `304 Not Modified`, `notModified` is `true` and `data` is `undefined`.
 */
export type ResponseResult<K extends OperationName> =
  | { data: OperationResult<K>; response: Response; notModified: false }
  | (Conditional<K> extends true ? { data: undefined; response: Response; notModified: true } : never);

/**
 * Each API operation: resolves with the response body (or a `MutationResult`), rejects with
 * `GradualApiError`. A `304 Not Modified` has no body to resolve with: send `If-None-Match`
 * through `withResponse`.
 */
export type GradualOperations = { [K in OperationName]: (...args: Args<K>) => Promise<OperationResult<K>> };

/** The same operations resolving with `{ data, response, notModified }`, for callers that need headers (ETag, rate limits) or conditional GETs. */
export type GradualRawOperations = { [K in OperationName]: (...args: Args<K>) => Promise<ResponseResult<K>> };

export type GradualClient = GradualOperations & {
  withResponse: GradualRawOperations;
  /** The underlying generated fetch client (interceptors, config). */
  http: FetchClient;
};

type RawResult = { data?: unknown; error?: unknown; response?: Response };

export function createClient(options: ClientOptions): GradualClient {
  const { retry } = options;
  // Without a fetch of the caller's, the global one is looked up on each request (as the generated client does), so one replaced later, a mock, is used.
  const fetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const http = createHttpClient(retry ? { ...options, fetch: retryingFetch(fetch, retry === true ? {} : retry) } : options);

  const call = async (name: OperationName, args: Record<string, unknown> | undefined) => {
    const fn = operations[name] as (o: Record<string, unknown>) => Promise<RawResult>;
    const result = await fn({ ...(args ?? {}), client: http });
    if (!result.response) {
      // fetch threw (network error, abort…): the generated client hands its error back as `error`.
      const cause = result.error;
      const reason = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : 'unknown error';
      throw new GradualApiError(0, { message: `no response: ${reason}` }, undefined, { cause });
    }
    const { response } = result;
    if (response.status === 304) return { data: undefined, response, notModified: true };
    if (!response.ok) throw new GradualApiError(response.status, envelopeOf(result.error), response);
    // An approval-required API key's mutation is stored as a proposal: 202 with its body. Other
    // operations answering 202 (an accepted usage report, a queued test delivery) resolve with their body.
    if (response.status === 202 && Object.hasOwn(proposable, name)) return { data: { kind: 'proposed', proposal: result.data }, response, notModified: false };
    const data = Object.hasOwn(proposable, name) ? { kind: 'applied', data: response.status === 204 ? undefined : result.data } : result.data;
    return { data, response, notModified: false };
  };

  const plain: Record<string, unknown> = {};
  const withResponse: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(operations)) {
    if (typeof fn !== 'function') continue;
    plain[name] = async (args?: Record<string, unknown>) => {
      const result = await call(name as OperationName, args);
      if (result.notModified) {
        throw new GradualApiError(304, {
          code: 'invalid_request',
          message: `304 Not Modified has no body: send If-None-Match through withResponse.${name}()`,
        }, result.response);
      }
      return result.data;
    };
    withResponse[name] = (args?: Record<string, unknown>) => call(name as OperationName, args);
  }
  return Object.assign(plain as GradualOperations, { withResponse: withResponse as GradualRawOperations, http });
}
