import fc from 'fast-check';
import type { ZodTypeAny } from 'zod';
import { isZodType, type AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.js';
import { hostile, hostileSegment, NASTY_STRINGS, queryArb, validish } from './arbitraries.js';
import {
  buildTenant,
  callerFor,
  claimFor,
  contractRoutes,
  envelopeProblems,
  fillPath,
  send,
  startHostileServer,
  tenantParams,
  toJsonText,
  undocumentedStatus,
  type RawRequest,
  type RouteEntry,
  type Tenant,
} from './support.js';

/**
 * Contract-driven fuzzing: every route of the contract gets generated bad and
 * edge-case requests (bodies, path params, query strings, headers) from a real,
 * authorized caller. Whatever the input, the answer is never a 5xx (but a
 * documented 503) and every error is exactly the spec's envelope.
 *
 * Reproduce a failure with the printed seed: HOSTILE_SEED=<seed> npx vitest run tests/hostile/fuzz.test.ts
 * More cases per route: HOSTILE_RUNS=200.
 */
const SEED = Number(process.env.HOSTILE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.HOSTILE_RUNS ?? 30);
console.log(`hostile fuzz: seed ${SEED}, ${RUNS} runs per route (HOSTILE_SEED=${SEED} to reproduce)`);

/**
 * Valid path + no body would destroy the fuzzing caller or its fixtures: these get only hostile paths
 * (an archived flag or config would turn its writes into 409s for the rest of the run).
 */
const SELF_DESTRUCTIVE = new Set(['logout', 'revokeApiKey', 'revokeRollbackSecret', 'removeMember', 'revokeInvitation', 'deleteRolloutPlan', 'deleteOrg', 'deleteWebhookSubscription', 'archiveFlag', 'archiveConfig', 'deleteSegment']);

/** The OFREP evaluation routes evaluate the environment their key is bound to, and answer their 400 and 404 in the protocol's shape. */
const isOfrepEvaluation = (route: AppRoute) => route.path.includes('/ofrep/v1/evaluate/');

/**
 * An OFREP failure body (`errorCode`, docs/ofrep.md) checked against the contract's schema for its
 * status; null when the answer is not one (the envelope check applies).
 */
function ofrepProblems(res: { status: number; json: unknown }, route: AppRoute): string[] | null {
  const errorCode = (res.json as { errorCode?: unknown } | undefined)?.errorCode;
  if (!isOfrepEvaluation(route) || res.status < 400 || errorCode === undefined) return null;
  const schema: unknown = (route.responses as Record<number, unknown>)[res.status];
  if (!isZodType(schema)) return [`status ${res.status} has no OFREP body in the contract`];
  const parsed = schema.safeParse(res.json);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
}

/** A dot segment as a URL parser reads it: `.`, `..`, or the same percent-encoded. */
const isDotSegment = (segment: string) => /^(\.|%2e){1,2}$/i.test(segment);

/**
 * The route a request really reaches. A hostile dot segment never reaches the server as written:
 * the client's URL parser resolves it (WHATWG URL), so `…/flags/.` is sent as `…/flags/`, which
 * the server (not strict about a trailing slash) routes to the list of flags. The answer is judged
 * against that route; null when no route of the contract has that path (the server's 404).
 */
function routeReached(entries: RouteEntry[], entry: RouteEntry, requestPath: string): RouteEntry | null {
  const rawPath = requestPath.split('?')[0]!;
  if (!rawPath.split('/').some(isDotSegment)) return entry;
  const sent = new URL(rawPath, 'http://gradual.test').pathname.replace(/(.)\/$/, '$1');
  const matching = entries.filter(
    (e) => e.route.method === entry.route.method && new RegExp(`^${e.route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}$`).test(sent),
  );
  // A path with fewer parameters is the more specific route (`/flags/evaluate` before `/flags/:key`).
  return matching.sort((x, y) => x.params.length - y.params.length)[0] ?? null;
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/octet-stream',
  'multipart/form-data; boundary=x',
];

interface Case {
  mode: string;
  request: RawRequest;
}

/** What fetch can send as a header value (no NUL, CR, LF; Latin-1; no edge whitespace). The rest: targeted.test.ts, over a raw socket. */
const sendable = (v: string) => /^[\x21-\x7e\x80-\xff]([\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?$/.test(v) || v === '';

/** Mutation headers with hostile values. */
const headerArb = fc.record(
  {
    'x-audit-reason': fc.oneof(
      fc.constantFrom('', ' ', 'r'.repeat(500), 'r'.repeat(501), 'x'.repeat(8000)),
      fc.string({ maxLength: 30 }).map((s) => Buffer.from(s, 'utf8').toString('latin1')),
      fc.constantFrom(...NASTY_STRINGS).map((s) => Buffer.from(s, 'utf8').toString('latin1')),
    ).filter(sendable),
    'if-match': fc.constantFrom('*', '"x"', 'W/"x"', '', '"' + 'a'.repeat(600) + '"', 'null', '"\\u0000"', '"é"'),
    'if-none-match': fc.constantFrom('*', '"x"', 'W/"x"', '', 'a'.repeat(600)),
  },
  { requiredKeys: [] },
);

function caseArb(entry: RouteEntry, tenant: Tenant): fc.Arbitrary<Case> {
  const { route } = entry;
  const valid = tenantParams(tenant, entry);
  const validPath = fillPath(route.path, valid);
  const bodySchema = entry.hasBody ? (route as { body: ZodTypeAny }).body : undefined;
  const querySchema = entry.hasQuery ? (route.query as ZodTypeAny) : undefined;
  const withQuery = (path: string, q: string) => (q ? `${path}?${q}` : path);
  const bodyText = (schema: ZodTypeAny | undefined, kind: 'hostile' | 'valid') =>
    schema ? (kind === 'hostile' ? hostile(schema) : validish(schema)).map(toJsonText) : fc.constant(undefined);
  const contentType = fc.oneof({ arbitrary: fc.constant('application/json'), weight: 8 }, { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 2 });
  const build = (mode: string, path: string, body: string | undefined, ct: string, headers: Record<string, string>): Case => ({
    mode,
    request: { method: route.method, path, ...(body !== undefined && route.method !== 'GET' ? { body, headers: { 'content-type': ct, ...headers } } : { headers }) },
  });

  // Hostile path params: each one replaced or kept.
  const hostilePath = fc
    .tuple(...entry.params.map((p) => fc.option(hostileSegment, { nil: undefined, freq: 2 }).map((seg) => [p, seg] as const)))
    .map((pairs) => {
      const raw: Record<string, boolean> = {};
      const params: Record<string, string> = { ...valid };
      let replaced = 0;
      for (const [p, seg] of pairs) {
        if (seg === undefined) continue;
        params[p] = seg;
        raw[p] = true;
        replaced++;
      }
      // Never the unchanged valid path here (SELF_DESTRUCTIVE routes rely on it).
      if (replaced === 0 && entry.params.length > 0) {
        params[entry.params[0]!] = '00000000-0000-4000-8000-000000000000';
        raw[entry.params[0]!] = true;
      }
      return fillPath(route.path, params, raw);
    });

  const modes: Array<fc.Arbitrary<Case>> = [];
  if (entry.params.length > 0) {
    modes.push(
      fc
        .tuple(hostilePath, queryArb(querySchema), bodyText(bodySchema, 'hostile'), contentType, headerArb)
        .map(([p, q, b, ct, h]) => build('hostile-path', withQuery(p, q), b, ct, h)),
    );
  }
  if (!SELF_DESTRUCTIVE.has(entry.key) || entry.key === 'deleteOrg') {
    if (bodySchema) {
      modes.push(
        fc.tuple(bodyText(bodySchema, 'hostile'), contentType, headerArb).map(([b, ct, h]) => build('hostile-body', validPath, b, ct, h)),
        fc.tuple(bodyText(bodySchema, 'valid'), headerArb).map(([b, h]) => build('validish-body', validPath, b, 'application/json', h)),
      );
    }
    if (querySchema) {
      modes.push(fc.tuple(queryArb(querySchema), headerArb).map(([q, h]) => build('hostile-query', withQuery(validPath, q), undefined, 'application/json', h)));
    }
    if (!bodySchema && !querySchema && entry.key !== 'deleteOrg') {
      modes.push(headerArb.map((h) => build('valid-path-headers', validPath, undefined, 'application/json', h)));
    }
  }
  if (modes.length === 0) modes.push(headerArb.map((h) => build('headers-only', validPath, undefined, 'application/json', h)));
  return fc.oneof(...modes);
}

describe('contract-driven fuzzing (every route)', () => {
  let t: TestServer;
  let a: Tenant;
  /** A key bound to the tenant's environment, the caller of the OFREP evaluation routes. */
  let ofrepToken: string;
  const stats = new Map<string, Map<number, number>>();
  /** route → statuses it answered that its contract entry does not list (each one fails its route's test). */
  const undocumented = new Map<string, Set<number>>();

  beforeAll(async () => {
    t = await startHostileServer();
    const owner = await claimFor(t, 'fuzz');
    a = await buildTenant(t, { slug: 'fuzz', prefix: 'fz', owner });
    ofrepToken = (await a.session.createApiKey({ path: { slug: a.slug }, body: { name: 'fz ofrep', actions: ['read'], environments: [a.envId], rateLimitPerMin: 100_000 } })).token;
  });
  afterAll(async () => {
    const lines = [...stats].map(([name, s]) => `  ${name.padEnd(44)} ${[...s].sort(([x], [y]) => x - y).map(([st, n]) => `${st}×${n}`).join(' ')}`);
    console.log(`hostile fuzz: statuses per route (seed ${SEED})\n${lines.join('\n')}`);
    if (undocumented.size > 0) console.log(`hostile fuzz: undocumented statuses\n${[...undocumented].map(([n, s]) => `  ${n}: ${[...s].join(', ')}`).join('\n')}`);
    await t?.close();
  });

  const entries = contractRoutes();
  it('covers every route of the contract', () => {
    expect(entries.length).toBeGreaterThan(80);
  });

  entries.forEach((entry, i) => {
    it(`${entry.name} (${entry.route.method} ${entry.route.path})`, async () => {
      const s = new Map<number, number>();
      stats.set(entry.name, s);
      await fc.assert(
        fc.asyncProperty(caseArb(entry, a), async (c) => {
          const caller = isOfrepEvaluation(entry.route) ? { token: ofrepToken } : callerFor(a, entry);
          const res = await send(t.url, c.request, caller);
          s.set(res.status, (s.get(res.status) ?? 0) + 1);
          const reached = routeReached(entries, entry, c.request.path);
          if (reached === null) {
            // No route: a 404, or what a hostile query or header earns before routing; never a 5xx.
            const problems = res.status >= 400 && res.status < 500 ? envelopeProblems(res) : [`status ${res.status}, not a 4xx`];
            if (problems.length > 0) throw new Error(`${c.mode} ${c.request.method} ${c.request.path.slice(0, 300)} reaches no route → ${res.status}: ${problems.join('; ')}\n${res.text.slice(0, 300)}`);
            return;
          }
          if (undocumentedStatus(res, reached.route)) {
            if (!undocumented.has(entry.name)) undocumented.set(entry.name, new Set());
            undocumented.get(entry.name)!.add(res.status);
            // openapi.yaml is what Prism mocks and SDK users code against: every status must be in it.
            throw new Error(`${c.mode} ${c.request.method} ${c.request.path.slice(0, 300)} → ${res.status}, which the contract does not list for ${reached.name}\n${res.text.slice(0, 300)}`);
          }
          const problems = ofrepProblems(res, reached.route) ?? envelopeProblems(res, reached.route);
          if (problems.length > 0) {
            throw new Error(`${c.mode} ${c.request.method} ${c.request.path.slice(0, 300)} body=${String(c.request.body).slice(0, 300)} → ${res.status}: ${problems.join('; ')}\n${res.text.slice(0, 300)}`);
          }
        }),
        { seed: SEED + i, numRuns: RUNS, endOnFailure: true },
      );
    });
  });
});
