/**
 * Shared machinery of the hostile-input tests: the contract's routes as a flat
 * list, a raw HTTP caller that can send anything (bytes fetch would refuse
 * too), the envelope checker every answer goes through, and a "tenant": an
 * organization with one of every resource, built through the public API.
 */
import { connect } from 'node:net';
import { contract, errorCatalog, type RouteAuth } from '@gradual/contract';
import type { AppRoute, AppRouter } from '@ts-rest/core';
import type { GradualClient } from '@gradual/sdk';
import { expect } from 'vitest';
import { sessionTokenFrom, startTestServer, type TestServer } from '../support/server.js';
import { seedUser } from '../support/users.js';

export interface RouteEntry {
  /** `flags.setFlagValue` */
  name: string;
  /** The route key (operationId), e.g. `setFlagValue`. */
  key: string;
  route: AppRoute;
  auth: RouteAuth;
  /** `:envId`, `:key`, … in path order. */
  params: string[];
  hasBody: boolean;
  hasQuery: boolean;
}

/** Every route of the contract, flattened. */
export function contractRoutes(): RouteEntry[] {
  const out: RouteEntry[] = [];
  const walk = (router: AppRouter, prefix: string[]) => {
    for (const [k, v] of Object.entries(router)) {
      if (v && typeof v === 'object' && 'method' in v && 'path' in v) {
        const route = v as AppRoute;
        const meta = (route.metadata ?? {}) as { auth?: RouteAuth };
        out.push({
          name: [...prefix, k].join('.'),
          key: k,
          route,
          auth: meta.auth ?? 'any',
          params: [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!),
          hasBody: 'body' in route && route.body !== undefined && (route.body as { _def?: unknown } | null)?._def !== undefined,
          hasQuery: route.query !== undefined && route.query !== null,
        });
      } else walk(v, [...prefix, k]);
    }
  };
  walk(contract, []);
  return out;
}

/** A JSON text fragment inserted verbatim by `toJsonText` (numbers JSON.stringify cannot write, e.g. 1e309). */
export class RawJson {
  constructor(readonly text: string) {}
  toString() {
    return `RawJson(${this.text})`;
  }
}

/** JSON.stringify that also writes RawJson fragments verbatim and keeps `__proto__` as an own key. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  const parts: string[] = [];
  for (const k of Reflect.ownKeys(value)) {
    if (typeof k !== 'string') continue;
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${toJsonText(v)}`);
  }
  return `{${parts.join(',')}}`;
}

export interface Caller {
  /** Bearer API key (all actions, every environment). */
  token?: string;
  /** svc_session cookie value. */
  session?: string;
  /** Rollback webhook secret (svcrb_…). */
  rollback?: string;
}

export interface RawRequest {
  method: string;
  /** Already encoded path and query, e.g. `/api/v1/envs/x/flags/%2F`. */
  path: string;
  headers?: Record<string, string>;
  /** Sent as-is: the exact body text. */
  body?: string;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** One request through fetch. Streams (SSE) are cancelled after the headers. */
export async function send(baseUrl: string, req: RawRequest, caller: Caller = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  if (caller.token) headers.authorization = `Bearer ${caller.token}`;
  if (caller.rollback) headers.authorization = `Bearer ${caller.rollback}`;
  if (caller.session) headers.cookie = `svc_session=${caller.session}`;
  if (req.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${req.path}`, { method: req.method, headers, body: req.body, redirect: 'manual' });
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, headers: res.headers, text: '', json: undefined };
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/**
 * One request over a bare TCP socket: anything can be written (CRLF in
 * header values, duplicate headers, 100 KiB headers). Answers the parsed status
 * line, headers (lower-cased, duplicates kept) and body.
 */
export async function sendRaw(baseUrl: string, bytes: string | Buffer, timeoutMs = 10_000): Promise<{ status: number; headers: Array<[string, string]>; body: string; raw: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let settled = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const lines = head.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      const headers = lines.slice(1).map((l) => {
        const i = l.indexOf(':');
        return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as [string, string];
      });
      let body = rest.join('\r\n\r\n');
      if (headers.some(([k, v]) => k === 'transfer-encoding' && v === 'chunked')) body = dechunk(body);
      resolve({ status, headers, body, raw });
    };
    let done = false;
    const complete = () => {
      // A full answer with a Content-Length: stop there (the server may still be waiting for our body).
      const raw = Buffer.concat(chunks);
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const length = /\r\ncontent-length: *(\d+)/i.exec(raw.subarray(0, end).toString('latin1'))?.[1];
      return length !== undefined && raw.length >= end + 4 + Number(length);
    };
    socket.on('data', (c) => {
      chunks.push(c);
      if (!done && complete()) {
        done = true;
        finish();
        socket.destroy();
      }
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (err) => {
      if (chunks.length > 0) finish();
      else {
        clearTimeout(timer);
        reject(err);
      }
    });
    socket.write(bytes);
  });
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const i = rest.indexOf('\r\n');
    if (i < 0) break;
    const size = parseInt(rest.slice(0, i), 16);
    if (!size) break;
    out += rest.slice(i + 2, i + 2 + size);
    rest = rest.slice(i + 2 + size + 2);
  }
  return out;
}

/** Codes whose envelope may carry `fields` (validation errors, key/slug conflicts, confirmation, ramp; docs/api.md). */
export const FIELDS_CODES = new Set([
  'invalid_request',
  'invalid_confirmation',
  'key_in_use',
  'slug_unavailable',
  'already_member',
  'rollout_plan_invalid_ramp',
  'rollout_seed_locked',
  'rollout_plan_key_conflict',
  'in_use',
]);
/** Codes whose envelope may carry `details` (docs/api.md; plan delete counts the live rollouts). */
export const DETAILS_CODES = new Set(['quota_exceeded', 'version_drift', 'token_rate_limit', 'rollback_rate_limited', 'rollout_plan_in_use']);
/** invalid_request may be sent with these statuses besides 400 (body limits, encodings, header limits). */
const INVALID_REQUEST_STATUSES = new Set([400, 408, 413, 415, 431]);

/**
 * The spec's rules for any answer: never a 5xx except a documented 503; every
 * non-2xx/3xx answer is exactly the envelope (catalog code at its status,
 * message, requestId = X-Request-Id, `fields`/`details` only where documented).
 * Returns a list of problems (empty when the answer is acceptable).
 */
export function envelopeProblems(res: { status: number; headers: Headers | Array<[string, string]>; json: unknown; text?: string }, route?: AppRoute): string[] {
  const problems: string[] = [];
  const header = (name: string) =>
    Array.isArray(res.headers) ? (res.headers.find(([k]) => k === name)?.[1] ?? null) : res.headers.get(name);
  if (res.status >= 500) {
    const documented503 = res.status === 503 && (!route || 503 in route.responses);
    if (!documented503) problems.push(`status ${res.status}`);
  }
  if (res.status < 400) return problems;
  const body = res.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    problems.push(`no JSON envelope (${res.status}): ${(res.text ?? '').slice(0, 200)}`);
    return problems;
  }
  const allowed = new Set(['code', 'message', 'fields', 'details', 'requestId']);
  const extra = Object.keys(body).filter((k) => !allowed.has(k));
  if (extra.length) problems.push(`extra envelope members ${extra.join(',')}`);
  const code = body.code as string;
  if (typeof code !== 'string' || !(code in errorCatalog)) problems.push(`code ${String(code)} not in the catalog`);
  else {
    const expected = errorCatalog[code as keyof typeof errorCatalog];
    const ok = res.status === expected || (code === 'invalid_request' && INVALID_REQUEST_STATUSES.has(res.status));
    if (!ok) problems.push(`code ${code} with status ${res.status} (catalog: ${expected})`);
    if (body.fields !== undefined && !FIELDS_CODES.has(code)) problems.push(`fields on ${code}`);
    if (body.details !== undefined && !DETAILS_CODES.has(code)) problems.push(`details on ${code}`);
  }
  if (typeof body.message !== 'string' || body.message.length === 0) problems.push('message missing');
  if (typeof body.requestId !== 'string' || body.requestId.length === 0) problems.push('requestId missing');
  else if (header('x-request-id') !== body.requestId) problems.push(`requestId ${body.requestId} ≠ X-Request-Id ${header('x-request-id')}`);
  if (body.fields !== undefined) {
    const f = body.fields as Record<string, unknown>;
    if (!f || typeof f !== 'object' || Array.isArray(f) || Object.values(f).some((v) => typeof v !== 'string')) problems.push('fields is not a string map');
  }
  if (body.details !== undefined && (!body.details || typeof body.details !== 'object' || Array.isArray(body.details))) problems.push('details is not an object');
  return problems;
}

/**
 * Statuses the route's contract entry does not list. Transport-level answers
 * any route can give (413 body too large, 415 charset, 429 rate limit, 431
 * headers too large, 400 without fields for an undecodable URL) are not counted.
 */
export function undocumentedStatus(res: { status: number; json: unknown }, route: AppRoute): boolean {
  if (res.status in route.responses || [413, 415, 429, 431].includes(res.status)) return false;
  // 400 without fields: the URL itself could not be decoded (Express, before any route).
  if (res.status === 400 && (res.json as { fields?: unknown } | undefined)?.fields === undefined) return false;
  return true;
}

export function expectEnvelope(res: RawResponse, status: number, code: string): Record<string, unknown> {
  expect(envelopeProblems(res), `${res.status} ${res.text.slice(0, 300)}`).toEqual([]);
  expect({ status: res.status, code: (res.json as { code?: string })?.code }).toEqual({ status, code });
  return res.json as Record<string, unknown>;
}

/** An organization with one of each resource, and every kind of credential for it. */
export interface Tenant {
  slug: string;
  orgId: string;
  userId: string;
  sessionToken: string;
  session: GradualClient;
  /** All actions, every environment, rate limit 100,000/min. */
  apiKey: { id: string; token: string };
  projectId: string;
  envId: string;
  /** A second environment in the same project (no rollout in it). */
  env2Id: string;
  flagKey: string;
  configKey: string;
  planKey: string;
  /** Rollouts exist on flagKey (plan attached, target IDs) and configKey, in envId. */
  flagRolloutId: string;
  rollbackSecret: { id: string; token: string };
  auditEventId: string;
  proposalId: string;
  invitationId: string;
  /** A member (not the owner) of this org. */
  memberUserId: string;
  /** A webhook subscription of the project. */
  webhookSubscriptionId: string;
}

/** Starts a test server with limits high enough for fuzzing (per-org and per-key caps). */
export function startHostileServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ ORG_RATE_LIMIT_PER_MIN: '10000000', ...env });
}

/**
 * Builds a tenant through the API. `owner` is an existing session of its
 * owner (the instance claim for the first org); without it a fresh user is
 * seeded and creates the org with POST /orgs.
 */
export async function buildTenant(
  t: TestServer,
  opts: { slug: string; prefix: string; owner?: { sessionToken: string; userId: string } },
): Promise<Tenant> {
  const ownerUser = opts.owner ?? (await seedUser(t.server.deps.db, `${opts.prefix}-owner@example.com`));
  const session = t.asSession(ownerUser.sessionToken);
  const org = opts.owner
    ? await session.getOrg({ path: { slug: opts.slug } })
    : await session.createOrg({ body: { name: `Org ${opts.prefix}`, slug: opts.slug } });
  const p = opts.prefix;
  const project = await session.createProject({ path: { slug: opts.slug }, body: { key: `${p}-web`, name: 'Web' } });
  const env = await session.createEnvironment({ path: { id: project.id }, body: { key: `${p}-prod`, name: 'Prod' } });
  const env2 = await session.createEnvironment({ path: { id: project.id }, body: { key: `${p}-stage`, name: 'Stage' } });
  const flagKey = `${p}-checkout`;
  const configKey = `${p}.limits`;
  const planKey = `${p}-ramp`;
  await session.createFlag({ path: { id: project.id }, body: { key: flagKey, name: 'Checkout', defaultValue: false } });
  await session.createConfig({ path: { id: project.id }, body: { key: configKey, name: 'Limits', defaultValue: { max: 1 } } });
  await session.createRolloutPlan({
    path: { id: project.id },
    body: { key: planKey, name: 'Ramp', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] },
  });
  const put = await session.putFlagRollout({ path: { envId: env.id, key: flagKey }, body: { percent: 5, newValue: true, planKey } });
  if (put.kind !== 'applied') throw new Error('the owner\'s rollout was diverted to a proposal');
  const rollout = put.data;
  await session.addFlagTargetIds({ path: { envId: env.id, key: flagKey }, body: { targetIds: [`${p}-user-1`, `${p}-user-2`] } });
  await session.putConfigRollout({ path: { envId: env.id, key: configKey }, body: { percent: 5, newValue: { max: 2 } } });
  const key = await session.createApiKey({ path: { slug: opts.slug }, body: { name: `${p} all`, rateLimitPerMin: 100_000 } });
  const approval = await session.createApiKey({ path: { slug: opts.slug }, body: { name: `${p} approval`, requiresApproval: true, rateLimitPerMin: 100_000 } });
  const { data: diverted, response } = await t.asToken(approval.token).withResponse.pauseConfigRollout({ path: { envId: env.id, key: configKey } });
  if (diverted.kind !== 'proposed') throw new Error(`expected a proposal, got ${response.status}`);
  const secret = await session.createRollbackSecret({ path: { envId: env.id }, body: { name: `${p}-alerts` } });
  const webhook = await session.createWebhookSubscription({
    path: { id: project.id },
    body: { name: `${p}-hook`, url: `https://hooks.example.com/${p}`, events: ['rollout.created'] },
  });
  const invitation = await session.createInvitation({ path: { slug: opts.slug }, body: { email: `${p}-invitee@example.com`, role: 'member' } });
  const member = await seedUser(t.server.deps.db, `${p}-member@example.com`, { orgId: org.id, role: 'member' });
  const audit = await session.listAuditEvents({ path: { slug: opts.slug }, query: { limit: 1 } });
  return {
    slug: opts.slug,
    orgId: org.id,
    userId: ownerUser.userId,
    sessionToken: ownerUser.sessionToken,
    session,
    apiKey: { id: key.id, token: key.token },
    projectId: project.id,
    envId: env.id,
    env2Id: env2.id,
    flagKey,
    configKey,
    planKey,
    flagRolloutId: rollout.id,
    rollbackSecret: { id: secret.id, token: secret.token },
    auditEventId: audit.events[0]!.id,
    proposalId: diverted.proposal.id,
    invitationId: invitation.id,
    memberUserId: member.userId,
    webhookSubscriptionId: webhook.id,
  };
}

/** Claims the instance for the first tenant (POST /auth/install-claim). */
export async function claimFor(t: TestServer, slug: string): Promise<{ sessionToken: string; userId: string }> {
  const { data, response } = await t.anonymous.withResponse.claimInstall({
    body: { email: `${slug}-owner@example.com`, displayName: 'Owner', orgName: `Org ${slug}`, orgSlug: slug },
  });
  return { sessionToken: sessionTokenFrom(response), userId: data.user.id };
}

/** The value of each path parameter for this tenant's own resources. */
export function tenantParams(x: Tenant, entry: RouteEntry): Record<string, string> {
  const isConfig = /config/i.test(entry.key);
  const out: Record<string, string> = {};
  for (const p of entry.params) {
    switch (p) {
      case 'slug':
        out[p] = x.slug;
        break;
      case 'envId':
        out[p] = x.envId;
        break;
      case 'key':
        out[p] = isConfig ? x.configKey : x.flagKey;
        break;
      case 'flagKey':
        out[p] = x.flagKey;
        break;
      case 'configKey':
        out[p] = x.configKey;
        break;
      case 'planKey':
        out[p] = x.planKey;
        break;
      case 'userId':
        out[p] = x.memberUserId;
        break;
      case 'targetId':
        out[p] = `${x.slug}-user-1`;
        break;
      case 'token':
        out[p] = 'not-a-real-invitation-token';
        break;
      case 'subscriptionId':
        out[p] = x.webhookSubscriptionId;
        break;
      case 'id':
        out[p] = idFor(x, entry);
        break;
      default:
        throw new Error(`no tenant value for :${p} in ${entry.name}`);
    }
  }
  return out;
}

/** `:id` means a different resource per route family. */
function idFor(x: Tenant, entry: RouteEntry): string {
  const path = entry.route.path;
  if (path.startsWith('/api/v1/projects/:id')) return x.projectId;
  if (path.includes('/api-keys/:id')) return x.apiKey.id;
  if (path.includes('/invitations/:id')) return x.invitationId;
  if (path.includes('/rollback-webhook-secrets/:id')) return x.rollbackSecret.id;
  if (path.startsWith('/api/v1/audit/events/:id')) return x.auditEventId;
  if (path.startsWith('/api/v1/proposals/:id')) return x.proposalId;
  throw new Error(`unknown :id in ${entry.name} (${path})`);
}

/** Fills `:params` (values are encoded with encodeURIComponent unless `raw`). */
export function fillPath(path: string, params: Record<string, string>, raw: Record<string, boolean> = {}): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`missing :${name}`);
    return raw[name] ? v : encodeURIComponent(v);
  });
}

/** The caller a route expects, for this tenant. */
export function callerFor(x: Tenant, entry: RouteEntry, prefer: 'token' | 'session' = 'token'): Caller {
  switch (entry.auth) {
    case 'public':
      return {};
    case 'session':
      return { session: x.sessionToken };
    case 'optionalSession':
      return {};
    case 'rollback':
      return { rollback: x.rollbackSecret.token };
    case 'apiKey':
      return { token: x.apiKey.token };
    case 'any':
      return prefer === 'token' ? { token: x.apiKey.token } : { session: x.sessionToken };
  }
}

/** The environment's version and the org's audit row count: what a write would move. */
export async function writeMarks(x: Tenant): Promise<{ versions: Record<string, number>; auditCount: number }> {
  const versions: Record<string, number> = {};
  for (const envId of [x.envId, x.env2Id]) versions[envId] = (await x.session.getEnvironment({ path: { envId } })).version;
  let auditCount = 0;
  let cursor: string | undefined;
  do {
    const page = await x.session.listAuditEvents({ path: { slug: x.slug }, query: { limit: 200, ...(cursor ? { cursor } : {}) } });
    auditCount += page.events.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return { versions, auditCount };
}
