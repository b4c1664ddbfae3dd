import { initContract, isAppRouteNoBody, type AppRoute } from '@ts-rest/core';
import { z } from 'zod';

export const c = initContract();

/** The base path of every route of the API (the contract's `pathPrefix`). */
export const API_PREFIX = '/api/v1';

/**
 * Who may call a route. Drives the OpenAPI `security` of each operation, and the server's body
 * reader (a body beyond 16 KiB is read only once a route that needs credentials has admitted its
 * caller); the server enforces authentication in its handlers.
 * - `public`: no credentials
 * - `session`: the dashboard's `svc_session` cookie only
 * - `optionalSession`: the session cookie when there is one, or nothing (idempotent logout)
 * - `any` (default): a bearer API token or the session cookie
 * - `rollback`: a rollback webhook secret (bearer `svcrb_…`)
 * - `apiKey`: an API key only, as `Authorization: Bearer …` or `X-API-Key: …` (OFREP)
 */
export type RouteAuth = 'public' | 'session' | 'optionalSession' | 'any' | 'rollback' | 'apiKey';
export interface RouteMetadata {
  auth?: RouteAuth;
  /** The 200 response carries a strong ETag (documented in OpenAPI). */
  etag?: boolean;
  /** The request body may be omitted. */
  optionalBody?: boolean;
  /**
   * The server reads the body as raw bytes of any media type (JSON is parsed
   * when it is JSON), under its own size limit rather than the 1 MiB JSON one.
   */
  rawBody?: boolean;
  /** Answers with a redirect (documented with its `Location` header). */
  redirect?: boolean;
  /**
   * A server-sent event stream: each event name with the component schema of its data, documented
   * on the 200 answer as `x-sse-events` (OpenAPI 3.0 cannot describe the events themselves).
   */
  sseEvents?: Record<string, 'LiveChangeEvent' | 'LiveOrgChangeEvent'>;
}

/** Optional headers every mutation accepts. */
export const MutationHeaders = z.object({
  'x-audit-reason': z.string().max(500).optional(),
});

/** GETs that send a strong ETag accept If-None-Match (→ 304). */
export const ConditionalGetHeaders = z.object({
  'if-none-match': z.string().max(512).optional(),
});

/** Mutations of resources with an ETag accept If-Match (→ 412 precondition_failed). */
export const ConditionalMutationHeaders = MutationHeaders.extend({
  'if-match': z.string().max(512).optional(),
});

/**
 * A body the server hands over already serialized: the cached bytes of a JSON document, or a
 * stream it writes as events happen. `@ts-rest/express` pipes any Node stream it is given
 * instead of serializing (and skips response validation for it); this is the structural part of
 * a Node `Readable` that it relies on, so the contract needs no Node types.
 */
export interface SerializedBody {
  pipe(destination: never): unknown;
}

/**
 * The response `schema` on the wire, which a server handler may also answer with a
 * `SerializedBody`. ts-rest types a handler's response by the schema's zod *input* type, so this
 * is a zod effect (a refinement that accepts every value `schema` accepts) whose input type
 * admits both; OpenAPI, clients and response validation see `schema` alone.
 */
export function serializable<T extends z.ZodTypeAny>(schema: T) {
  return new z.ZodEffects<T, z.output<T>, z.input<T> | SerializedBody>({
    schema,
    typeName: z.ZodFirstPartyTypeKind.ZodEffects,
    effect: { type: 'refinement', refinement: () => undefined },
  });
}

/** A route's metadata (every member optional; the contract's routes set only these). */
export function metadataOf(route: AppRoute): RouteMetadata {
  const metadata = route.metadata;
  return typeof metadata === 'object' && metadata !== null ? metadata : {};
}

/** Whether a route takes a request body (a mutation whose body is not `c.noBody()`). */
export function takesBody(route: AppRoute): boolean {
  return route.method !== 'GET' && 'body' in route && !isAppRouteNoBody(route.body);
}

/**
 * Error statuses the server answers on a route before or around its handler, which the OpenAPI
 * document adds to the route's own list (with the error envelope): `413`/`415` for a JSON body over
 * the size limit or in another charset or encoding, `429` from the caller's rate limit, `403`
 * (`scope_denied`) for an API key on a sign-in-only route. Server errors (5xx) are listed nowhere.
 */
export function implicitErrorStatuses(route: AppRoute): number[] {
  const meta = metadataOf(route);
  const auth = meta.auth ?? 'any';
  const statuses: number[] = [];
  if (takesBody(route) && !meta.rawBody) statuses.push(413, 415);
  if (auth === 'any' || auth === 'session' || auth === 'apiKey') statuses.push(429);
  if (auth === 'session') statuses.push(403);
  return statuses;
}
