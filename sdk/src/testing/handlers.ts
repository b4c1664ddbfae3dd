import { http, HttpResponse, type HttpHandler } from 'msw';
import { API_PREFIX } from '../api-prefix.js';
import { compileRuleset, type CompiledRuleset } from '../evaluation/evaluate.js';
import { murmur3 } from '../evaluation/murmur3.js';
import type { EvaluationResult, Ruleset } from '../evaluation/types.js';
import type { EvaluateRequest, UsageReport, UsageReportAccepted } from '../generated/types.gen.js';
import type { RulesetBuilder } from './ruleset-builder.js';

/** A ruleset, or a builder whose `build()` gives one. */
export type RulesetLike = Ruleset | Pick<RulesetBuilder, 'build'>;

export interface GradualHandlersOptions {
  /** Origin the application under test talks to, e.g. `http://gradual.test` (same as the SDK's `baseUrl`). */
  baseUrl: string;
  /**
   * The environments the mock knows, by envId. `null`: the environment exists
   * but has no ruleset yet (as a brand-new one on the server: the ruleset
   * answers `503 ruleset_not_cached`, evaluate answers no results). An envId
   * that is not listed (nor published later) answers `404 not_found`.
   */
  environments?: Record<string, RulesetLike | null>;
  /**
   * When set, only `Authorization: Bearer <token>` is accepted. Otherwise any
   * bearer token or `svc_session` cookie is. No credentials: `401 unauthorized`.
   */
  token?: string;
}

export interface GradualMock {
  /** Pass to msw: `setupServer(...gradual.handlers)` or `server.use(...gradual.handlers)`. */
  readonly handlers: HttpHandler[];
  /**
   * Makes `ruleset` the environment's current ruleset and announces it on every
   * open stream of that environment, as a write on the server does. Its
   * `envId` is set to `envId`; its `version` is kept when it is higher than the
   * current one, otherwise it becomes current + 1 (versions only grow).
   * Returns the ruleset now served.
   */
  publish(envId: string, ruleset: RulesetLike): Ruleset;
  /** The ruleset served for `envId` (a copy), or undefined (unknown, or no ruleset yet). */
  ruleset(envId: string): Ruleset | undefined;
  /** Ends the open streams (of one environment, or all), as a server restart would. Clients should reconnect. */
  disconnectStreams(envId?: string): void;
  /** Number of open streams (of one environment, or all). */
  openStreams(envId?: string): number;
  /** The usage reports the mock accepted (of one environment, or all), oldest first (copies). */
  usageReports(envId?: string): UsageReport[];
  /** Back to the environments given at creation; open streams are ended, usage reports forgotten. */
  reset(): void;
}

interface EnvState {
  /** Undefined until the first ruleset: version 0, 503 on GET. */
  ruleset: Ruleset | undefined;
  json: string;
  etag: string;
  compiled: CompiledRuleset | undefined;
}

interface Stream {
  envId: string;
  send(version: number): void;
  close(): void;
}

/** Whether the evaluator can serve `variant` for a flag or config with `rules` rules (`rule-<n>` as it writes them). */
function servable(variant: string, rules: number): boolean {
  if (variant === 'default' || variant === 'target-id' || variant === 'rollout-new' || variant === 'rollout-base') return true;
  const rule = /^rule-([1-9][0-9]*)$/.exec(variant);
  return rule !== null && Number(rule[1]) <= rules;
}

interface EvaluateBody {
  version: number;
  results: Record<string, EvaluationResult>;
}

const encoder = new TextEncoder();

/** A deep copy: later changes to the caller's object do not reach the mock. */
function build(source: RulesetLike): Ruleset {
  return 'build' in source && typeof source.build === 'function' ? source.build() : structuredClone(source as Ruleset);
}

/**
 * msw request handlers that stand in for the Gradual service in application
 * tests: `GET /envs/{envId}/ruleset` (ETag, `If-None-Match` → 304, 503 before
 * the first ruleset), the ruleset stream (server-sent events: an event
 * `ruleset` with `{version}` on connect and on every `publish`), and
 * `POST /envs/{envId}/evaluate` computed by the SDK's own evaluator, so mocked
 * answers are the ones production would give for the same ruleset, and
 * `POST /envs/{envId}/usage` (the live client's usage reports, kept for `usageReports`), and
 * `POST /envs/{envId}/ruleset-acks` (its acknowledgements, accepted).
 *
 * ```ts
 * const gradual = gradualHandlers({
 *   baseUrl: 'http://gradual.test',
 *   environments: { 'env-prod': rulesetBuilder().flag('new-checkout', true) },
 * });
 * const server = setupServer(...gradual.handlers);
 * ```
 */
export function gradualHandlers(options: GradualHandlersOptions): GradualMock {
  const api = `${options.baseUrl.replace(/\/+$/, '')}${API_PREFIX}`;
  const envs = new Map<string, EnvState>();
  const streams = new Set<Stream>();
  const usage: { envId: string; report: UsageReport }[] = [];
  let requestSeq = 0;

  const stateOf = (envId: string, ruleset: Ruleset | undefined): EnvState => {
    if (!ruleset) return { ruleset: undefined, json: '', etag: '', compiled: undefined };
    const served: Ruleset = { ...ruleset, envId };
    const json = JSON.stringify(served);
    return { ruleset: served, json, etag: `"${served.version}-${murmur3(json).toString(16)}"`, compiled: undefined };
  };

  const reset = () => {
    for (const s of [...streams]) s.close();
    envs.clear();
    usage.length = 0;
    for (const [envId, source] of Object.entries(options.environments ?? {})) {
      envs.set(envId, stateOf(envId, source == null ? undefined : build(source)));
    }
  };
  reset();

  const error = (status: number, code: string, message: string, extra: { fields?: Record<string, string>; headers?: Record<string, string> } = {}) => {
    const requestId = `mock-${++requestSeq}`;
    return HttpResponse.json(
      { code, message, ...(extra.fields ? { fields: extra.fields } : {}), requestId },
      { status, headers: { 'x-request-id': requestId, ...extra.headers } },
    );
  };

  /** The error response when the request may not see `envId`, or undefined. */
  const denied = (request: Request, envId: string) => {
    const authorization = request.headers.get('authorization') ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
    const session = /(?:^|;\s*)svc_session=[^;]+/.test(request.headers.get('cookie') ?? '');
    const ok = options.token !== undefined ? bearer === options.token : bearer !== undefined || session;
    if (!ok) return error(401, 'unauthorized', 'Missing or invalid credentials.');
    if (!envs.has(envId)) return error(404, 'not_found', 'Environment not found.');
    return undefined;
  };

  const envIdOf = (params: Record<string, unknown>) => String(params.envId);

  const handlers: HttpHandler[] = [
    http.get(`${api}/envs/:envId/ruleset`, ({ request, params }) => {
      const envId = envIdOf(params);
      const refusal = denied(request, envId);
      if (refusal) return refusal;
      const env = envs.get(envId)!;
      if (!env.ruleset) {
        return error(503, 'ruleset_not_cached', 'This environment has no ruleset until its first write.', { headers: { 'retry-after': '1' } });
      }
      const headers = { etag: env.etag, 'cache-control': 'no-cache', vary: 'Accept-Encoding' };
      const ifNoneMatch = request.headers.get('if-none-match');
      if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim() === env.etag || t.trim() === '*')) {
        return new HttpResponse(null, { status: 304, headers });
      }
      return new HttpResponse(env.json, { status: 200, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' } });
    }),

    http.get(`${api}/envs/:envId/ruleset/stream`, ({ request, params }) => {
      const envId = envIdOf(params);
      const refusal = denied(request, envId);
      if (refusal) return refusal;
      let stream: Stream | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          let last = -1;
          const s: Stream = {
            envId,
            send(version) {
              if (version <= last) return;
              last = version;
              controller.enqueue(encoder.encode(`event: ruleset\nid: ${version}\ndata: ${JSON.stringify({ version })}\n\n`));
            },
            close() {
              if (!streams.delete(s)) return;
              try {
                controller.close();
              } catch {
                // already closed or cancelled by the reader
              }
            },
          };
          stream = s;
          streams.add(s);
          controller.enqueue(encoder.encode('retry: 1000\n'));
          s.send(envs.get(envId)?.ruleset?.version ?? 0);
        },
        cancel() {
          if (stream) streams.delete(stream);
        },
      });
      request.signal?.addEventListener('abort', () => stream?.close(), { once: true });
      return new HttpResponse(body, {
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform' },
      });
    }),

    http.post(`${api}/envs/:envId/evaluate`, async ({ request, params }) => {
      const envId = envIdOf(params);
      const refusal = denied(request, envId);
      if (refusal) return refusal;
      let input: unknown;
      try {
        input = await request.json();
      } catch {
        return error(400, 'invalid_request', 'The body is not valid JSON.');
      }
      const { context, keys } = (input ?? {}) as Partial<Record<keyof EvaluateRequest, unknown>>;
      if (!context || typeof context !== 'object' || Array.isArray(context)) {
        return error(400, 'invalid_request', 'Invalid request.', { fields: { context: 'Expected object' } });
      }
      if (keys !== undefined && !(Array.isArray(keys) && keys.every((k) => typeof k === 'string' && k.length > 0))) {
        return error(400, 'invalid_request', 'Invalid request.', { fields: { keys: 'Expected an array of non-empty strings' } });
      }
      const env = envs.get(envId)!;
      if (!env.ruleset) return HttpResponse.json({ version: 0, results: {} });
      env.compiled ??= compileRuleset(env.ruleset);
      const results = env.compiled.evaluateAll(context as Record<string, unknown>, keys as string[] | undefined);
      return HttpResponse.json({ version: env.ruleset.version, results } satisfies EvaluateBody);
    }),

    http.post(`${api}/envs/:envId/usage`, async ({ request, params }) => {
      const envId = envIdOf(params);
      const refusal = denied(request, envId);
      if (refusal) return refusal;
      let input: unknown;
      try {
        input = await request.json();
      } catch {
        return error(400, 'invalid_request', 'The body is not valid JSON.');
      }
      const report = (input ?? {}) as Partial<Record<keyof UsageReport, unknown>>;
      if (typeof report.windowStart !== 'string' || typeof report.windowEnd !== 'string' || !Array.isArray(report.entries)) {
        return error(400, 'invalid_request', 'Invalid request.', { fields: { entries: 'Expected windowStart, windowEnd and entries' } });
      }
      const entries = (input as UsageReport).entries;
      usage.push({ envId, report: structuredClone(input as UsageReport) });
      const known = envs.get(envId)?.ruleset?.primitives;
      let matched = 0;
      let accepted = 0;
      for (const e of entries) {
        const primitive = known?.find((p) => p.key === e.key && p.kind === e.kind);
        if (!primitive) continue;
        matched++;
        if (servable(e.variant, primitive.archived === true ? 0 : (primitive.rules?.length ?? 0))) accepted++;
      }
      // As the server, less its hourly caps: entries of unknown keys are skipped, variants the flag cannot serve dropped.
      return HttpResponse.json({ accepted, skipped: entries.length - matched, dropped: matched - accepted, overLimit: 0 } satisfies UsageReportAccepted, { status: 202 });
    }),

    // The live client's ruleset acknowledgements (docs/convergence.md): accepted and forgotten.
    http.post(`${api}/envs/:envId/ruleset-acks`, ({ request, params }) => denied(request, envIdOf(params)) ?? new HttpResponse(null, { status: 204 })),
  ];

  return {
    handlers,
    publish(envId, source) {
      const current = envs.get(envId)?.ruleset?.version ?? 0;
      const built = build(source);
      const state = stateOf(envId, { ...built, version: built.version > current ? built.version : current + 1 });
      envs.set(envId, state);
      for (const s of streams) if (s.envId === envId) s.send(state.ruleset!.version);
      return structuredClone(state.ruleset!);
    },
    ruleset(envId) {
      const r = envs.get(envId)?.ruleset;
      return r ? structuredClone(r) : undefined;
    },
    disconnectStreams(envId) {
      for (const s of [...streams]) if (envId === undefined || s.envId === envId) s.close();
    },
    openStreams(envId) {
      let n = 0;
      for (const s of streams) if (envId === undefined || s.envId === envId) n++;
      return n;
    },
    usageReports(envId) {
      return usage.filter((u) => envId === undefined || u.envId === envId).map((u) => structuredClone(u.report));
    },
    reset,
  };
}
