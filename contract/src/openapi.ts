import { generateSchema } from '@anatine/zod-openapi';
import { generateOpenApi } from '@ts-rest/open-api';
import type { AppRoute } from '@ts-rest/core';
import { errorCatalog } from './errors.js';
import { contract } from './index.js';
import { API_PREFIX, implicitErrorStatuses, type RouteMetadata } from './routes/common.js';
import { liveEventSchemas } from './schemas/events.js';

const statusText: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted: diverted to an approval proposal',
  '204': 'No content',
  '303': 'See other',
  '304': 'Not modified',
  '400': 'Invalid request',
  '401': 'Not authenticated',
  '403': 'Not authorized',
  '404': 'Not found, or another tenant’s resource',
  '409': 'Conflict',
  '410': 'Gone',
  '412': 'If-Match precondition failed',
  '413': 'Request body too large',
  '415': 'Unsupported body charset or content encoding',
  '429': 'Rate limited (see Retry-After)',
  '503': 'Temporarily unavailable',
};

const tagDescriptions: Record<string, string> = {
  auth: 'Sessions, first-install claim and sign-in.',
  orgs: 'Organizations.',
  members: 'Members of an organization and their roles.',
  invitations: 'Invitations to join an organization: sent by admins, previewed and accepted through the mailed link.',
  projects: 'Projects group environments, flags, configs and rollout plans.',
  environments: 'Environments hold the per-environment state of every flag and config, and a version.',
  flags: 'Feature flags: definitions (per project) and state (per environment).',
  configs: 'Configs: JSON values with the same per-environment lifecycle as flags.',
  flagRollouts: 'Gradual rollouts of a flag per environment: state, ramp steps and the target-ID allow-list.',
  configRollouts: 'The same rollout family for configs (`/configs/{key}` instead of `/flags/{key}`).',
  rolloutPlans: 'Project-scoped ramp templates: steps, cadence and blackout days.',
  evaluation: 'Rulesets for local evaluation, their live stream, and server-side evaluation.',
  rollback: 'Automatic rollback: per-environment webhook secrets for alerting tools, the fire endpoints, fire history.',
  apiKeys: 'Bearer API keys for scripts, CI and SDKs.',
  audit: 'The audit log of every change.',
  proposals: 'Approval proposals: rollout and target-ID mutations of approval-required API keys, held until an admin applies or cancels them.',
  ofrep: 'The OpenFeature Remote Evaluation Protocol (OFREP): any OpenFeature SDK\'s OFREP provider evaluates flags here with an SDK or client key (provider `baseUrl`: this server followed by `/api/v1`).',
  segments: 'Segments: named audiences of a project (rules and included or excluded target IDs) that flag, config and segment rules reference with `in_segment` / `not_in_segment`.',
  webhooks: 'Outbound webhooks: subscriptions that receive the project\'s rollout, proposal and lifecycle events, signed per Standard Webhooks, with a delivery log.',
  usage: 'Usage insights: evaluation counts reported by SDKs and counted by the server, per flag, variant, environment and hour; stale and ready-to-remove flags.',
  guards: 'Guarded ramp steps: the metrics a project\'s guards watch (docs/guards.md).',
  convergence: 'Which ruleset version each SDK instance serves: acknowledgements and the ledger (docs/convergence.md).',
  manifest: 'The project\'s flags as an OpenFeature flag manifest, and the OpenFeature CLI\'s pull and push (docs/typed-flags.md).',
  events: 'Live changes: server-sent events announcing each committed write in an environment or across an organization, for screens that show live state.',
};

const securityFor: Record<NonNullable<RouteMetadata['auth']>, Array<Record<string, string[]>>> = {
  public: [],
  session: [{ sessionCookie: [] }],
  // `{}`: no credentials is also accepted.
  optionalSession: [{ sessionCookie: [] }, {}],
  // An API key is also taken as `X-API-Key` wherever it is taken as a bearer token.
  any: [{ bearerAuth: [] }, { apiKeyHeader: [] }, { sessionCookie: [] }],
  rollback: [{ rollbackSecret: [] }],
  apiKey: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
};

type Json = Record<string, unknown>;

/**
 * ts-rest's generator emits a few constructs OpenAPI 3.0 linters reject; fix
 * them in one walk: numeric `exclusiveMinimum/Maximum` (3.1 style), and
 * `z.unknown()` rendered as a type-less `{nullable: true}` (any JSON value → `{}`).
 */
function normalizeSchemas(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalizeSchemas);
  if (!node || typeof node !== 'object') return node;
  const obj = { ...(node as Json) };
  for (const bound of ['exclusiveMinimum', 'exclusiveMaximum'] as const) {
    const limit = bound === 'exclusiveMinimum' ? 'minimum' : 'maximum';
    if (typeof obj[bound] === 'number') {
      obj[limit] = obj[bound];
      obj[bound] = true;
    }
  }
  const keys = Object.keys(obj);
  if (obj.nullable === true && keys.every((k) => ['nullable', 'description', 'example'].includes(k))) {
    delete obj.nullable;
  }
  for (const [k, v] of Object.entries(obj)) obj[k] = normalizeSchemas(v);
  return obj;
}

/**
 * The example of an error answer: the catalog's first code of that status, so a
 * mock (Prism) answers a 404 with `not_found`, a 401 with `unauthorized` and so
 * on, instead of one envelope for every status.
 */
function errorExample(status: string): Json {
  const code =
    Object.entries(errorCatalog).find(([, s]) => String(s) === status)?.[0] ?? (status.startsWith('5') ? 'internal' : 'invalid_request');
  return { code, message: statusText[status] ?? `HTTP ${status}`, requestId: '9b2f1c7e-4d1a-4c3e-8f5b-1a2b3c4d5e6f' };
}

/**
 * The API key's token bucket, on the answers of every route an API key calls (2xx, 304 and a 429
 * of a bucket; the server's http/api-rate-limit.ts), never on a session's answers. Each is a
 * bucket of requests a minute, refilled evenly: the key's own (`rateLimitPerMin`, default 600)
 * and its organization's, shared by all its keys (`ORG_RATE_LIMIT_PER_MIN`, default 6000).
 */
const rateLimitHeaders: Json = {
  'X-RateLimit-Limit': {
    description:
      "Requests a minute of the API key's bucket: the key's `rateLimitPerMin` (default 600) or its organization's (`ORG_RATE_LIMIT_PER_MIN`, default 6000), whichever has fewer requests left. On a 429, the bucket that refused. Sent on answers to API keys (bearer) only, never on answers to a session.",
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in that bucket.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until that bucket is full again.', schema: { type: 'integer' } },
};

function envelopeResponse(status: string): Json {
  return { description: statusText[status] ?? status, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } };
}

/** An OpenAPI operation as the generator hands it to `operationMapper`. */
type Operation = Parameters<NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>['operationMapper']>>[0];

function mapOperation(operation: Operation, route: AppRoute): Operation {
  const meta = (route.metadata ?? {}) as RouteMetadata;
  const responses = operation.responses as Record<string, Json>;
  for (const [status, response] of Object.entries(responses)) {
    if (response.description === status) response.description = statusText[status] ?? status;
  }
  if (responses['202']) {
    responses['202'].headers = {
      Location: { description: `The proposal: \`${API_PREFIX}/proposals/{id}\`.`, schema: { type: 'string' } },
    };
  }
  if (meta.etag && responses['200']) {
    responses['200'].headers = {
      ETag: { description: 'Strong entity tag of this representation.', schema: { type: 'string' } },
    };
  }
  if (meta.redirect) {
    for (const [status, response] of Object.entries(responses)) {
      if (status.startsWith('3')) {
        response.headers = { Location: { description: 'Where to go next.', schema: { type: 'string' } } };
      }
    }
    // A redirect has no 2XX; the envelope still answers what cannot redirect (503 without a database).
    responses.default ??= {
      description: 'Unexpected error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  const requestBody = operation.requestBody as Json | undefined;
  if (requestBody) {
    requestBody.required = !meta.optionalBody;
    requestBody.description = 'Request body';
    if (meta.rawBody) {
      (requestBody.content as Json)['*/*'] = { schema: { type: 'string', description: 'Any other payload, taken as is.' } };
    }
  }
  const ok = responses['200'];
  if (meta.sseEvents && ok) {
    ok['x-sse-events'] = Object.fromEntries(Object.entries(meta.sseEvents).map(([event, schema]) => [event, { $ref: `#/components/schemas/${schema}` }]));
  }
  // Answers the server gives before or around any handler, so no route lists them itself
  // (implicitErrorStatuses, which the test servers' response check allows too): a JSON body over
  // the size limit (1 MiB; 64 MiB for target IDs), or in a charset or content encoding other than
  // UTF-8 / identity, gzip, deflate (413, 415 `invalid_request`); an API key over its own or its
  // org's rate limit, a signed-in user over theirs, or a client address refused after too many
  // failed authentications (429 `token_rate_limit`); an API key on a sign-in-only endpoint (403
  // `scope_denied`).
  const implicit = implicitErrorStatuses(route);
  for (const status of implicit.filter((s) => s !== 429)) responses[String(status)] ??= envelopeResponse(String(status));
  if (implicit.includes(429)) {
    // The X-RateLimit headers are an API key's: a route that takes only a session never sends them.
    const takesApiKey = meta.auth !== 'session';
    responses['429'] ??= {
      ...envelopeResponse('429'),
      headers: {
        'Retry-After': { description: 'Seconds until the bucket that refused has a token again.', schema: { type: 'integer' } },
        ...(takesApiKey ? rateLimitHeaders : {}),
      },
    };
    // Every answer an API key's buckets admitted carries their state.
    for (const [status, response] of Object.entries(responses)) {
      if (takesApiKey && (/^2/.test(status) || status === '304')) response.headers = { ...(response.headers as Json | undefined), ...rateLimitHeaders };
    }
  }
  for (const [status, response] of Object.entries(responses)) {
    const json = (response.content as Record<string, Json> | undefined)?.['application/json'];
    if (/^[45]/.test(status) && (json?.schema as Json | undefined)?.$ref === '#/components/schemas/ErrorEnvelope') json!.example = errorExample(status);
  }
  const byStatus = Object.entries(responses).sort(([a], [b]) => (a === 'default' ? 1 : b === 'default' ? -1 : Number(a) - Number(b)));
  const parameters = operation.parameters?.map((p) =>
    'in' in p && p.in === 'path' && !p.description ? { ...p, description: `The ${p.name} of the resource.` } : p,
  );
  return {
    ...operation,
    description: operation.description ?? operation.summary,
    parameters,
    responses: Object.fromEntries(byStatus),
    security: securityFor[meta.auth ?? 'any'],
  };
}

/**
 * A nullable `$ref` is emitted as `{nullable: true, allOf: [$ref]}`. In OpenAPI
 * 3.0 `nullable` does not reach into `allOf`, so validators (Prism) reject
 * `null` there, and a `null` rollout, paused reason or cadence broke the spec.
 * Rewrite it as `anyOf: [$ref, {type, nullable: true, enum: [null]}]` (the
 * 3.0.3 way to say "this or null"; the generated SDK type stays `T | null`).
 */
function nullableRefs(node: unknown, schemas: Record<string, Json>): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((n) => nullableRefs(n, schemas));
  const obj = node as Json;
  const allOf = obj.allOf as Json[] | undefined;
  if (obj.nullable === true && allOf?.length === 1 && typeof allOf[0]!.$ref === 'string') {
    const target = schemas[(allOf[0]!.$ref).split('/').pop()!];
    const type = (obj.type ?? target?.type) as string | undefined;
    delete obj.nullable;
    delete obj.allOf;
    delete obj.type;
    obj.anyOf = [allOf[0], { ...(type ? { type } : {}), nullable: true, enum: [null] }];
  }
  for (const v of Object.values(obj)) nullableRefs(v, schemas);
}

/**
 * Schemas no route body names: the data of the event streams' events (their responses are
 * `text/event-stream` strings). They go into `components.schemas` like the routes' titled schemas,
 * nested titled schemas as `$ref`s, so the SDK generates their types and consumers parse events
 * against the contract.
 */
function standaloneSchemas(schemas: Record<string, Json>): void {
  const hoist = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => hoist(n, false));
    if (!node || typeof node !== 'object') return node;
    const obj = Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, hoist(v, false)]));
    if (top || typeof obj.title !== 'string') return obj;
    const existing = schemas[obj.title];
    if (existing && JSON.stringify(existing) !== JSON.stringify(obj)) throw new Error(`schema title ${obj.title} names two different schemas`);
    schemas[obj.title] = obj;
    return { $ref: `#/components/schemas/${obj.title}` };
  };
  for (const [name, schema] of Object.entries(liveEventSchemas)) {
    const generated = hoist(generateSchema(schema), true) as Json;
    const existing = schemas[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(generated)) throw new Error(`schema title ${name} names two different schemas`);
    schemas[name] = generated;
  }
}

export function buildOpenApiDocument(): Json {
  const doc = generateOpenApi(
    contract,
    {
      info: {
        title: 'Gradual API',
        version: '1.0.0',
        description:
          'Feature-flag rollout service: flags and configs per environment, gradual rollouts on plans, automatic rollback and an audit log. Every non-2xx response carries the `ErrorEnvelope`.\n\n' +
          '**Rate limits.** Requests are counted in token buckets of requests a minute, refilled evenly: each API key has its own (`rateLimitPerMin`, set when the key is created, 1–100,000, default 600) and shares its organization\'s (`ORG_RATE_LIMIT_PER_MIN`, default 6000); each signed-in user has one for all their sessions (`SESSION_RATE_LIMIT_PER_MIN`, default 1200). Answers to API keys (2xx, 304 and 429) report the bucket in `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (seconds until it is full); answers to a session never carry them. A request over a limit gets `429 token_rate_limit` with `Retry-After` (seconds), as does a client address after too many failed authentications (`AUTH_FAILURES_PER_IP_PER_MIN`, default 30).',
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
        contact: { name: 'Gradual', url: 'https://github.com/gradual' },
      },
      // Relative: the API is served from the same origin as this document (`/docs`).
      servers: [{ url: '/', description: 'This server' }],
      tags: Object.entries(tagDescriptions).map(([name, description]) => ({ name, description })),
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: `Authorization: Bearer svc_…` (SDK keys `sdk_…`, client keys `pub_…`).',
          },
          apiKeyHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'An API key in the header OFREP providers use (`X-API-Key: sdk_…`), taken wherever `Authorization: Bearer` is.',
          },
          rollbackSecret: {
            type: 'http',
            scheme: 'bearer',
            description: 'A rollback webhook secret of the environment: `Authorization: Bearer svcrb_…`. It can only fire rollbacks.',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'svc_session',
            description: 'The dashboard session, set by sign-in.',
          },
        },
      },
    },
    { setOperationId: true, operationMapper: mapOperation },
  );
  standaloneSchemas((doc.components as { schemas: Record<string, Json> }).schemas);
  const normalized = normalizeSchemas(doc) as Json;
  nullableRefs(normalized, (normalized.components as { schemas: Record<string, Json> }).schemas);
  const { openapi, info, servers, tags, paths, components, ...rest } = normalized;
  return { openapi, info, servers, tags, paths, components, ...rest };
}
