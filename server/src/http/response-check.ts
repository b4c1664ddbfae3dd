import { isDeepStrictEqual } from 'node:util';
import { isAppRoute, isAppRouteNoBody, isAppRouteOtherResponse, isZodType, type AppRoute, type AppRouter } from '@ts-rest/core';
import { contract, ErrorEnvelope, implicitErrorStatuses } from '@gradual/contract';
import type { RequestHandler } from 'express';

/** Every route of the contract by `METHOD path` (the contract route's path, as Express matched it). */
function routesOf(router: AppRouter, into = new Map<string, AppRoute>()): Map<string, AppRoute> {
  for (const value of Object.values(router)) {
    if (isAppRoute(value)) into.set(`${value.method} ${value.path}`, value);
    else routesOf(value, into);
  }
  return into;
}

/** What a JSON body looks like on the wire (undefined members dropped, dates as strings). */
const onTheWire = (body: unknown): unknown => (body === undefined ? undefined : JSON.parse(JSON.stringify(body)));

/**
 * Why `body`, answered with `status` by `route`, is not what the contract says (null when it is).
 * The schema must accept the body and give it back unchanged: a member the contract does not
 * know (zod would strip it) is drift as much as a missing or mistyped one. A status must be the
 * route's own or one openapi.yaml adds to every such route (implicitErrorStatuses: 413, 415, 429,
 * a sign-in-only route's 403), carrying the error envelope; server errors (5xx) carry it too.
 */
export function responseProblem(route: AppRoute, status: number, body: unknown): string | null {
  const declared = route.responses[status];
  const implicit = status >= 500 || implicitErrorStatuses(route).includes(status);
  const schema = declared === undefined ? (implicit ? ErrorEnvelope : undefined) : declared;
  if (schema === undefined) return `status ${status} is not in the contract`;
  if (isAppRouteNoBody(schema)) return body === undefined ? null : `status ${status} has no body in the contract`;
  const bodySchema = isAppRouteOtherResponse(schema) ? schema.body : schema;
  if (!isZodType(bodySchema)) return null;
  const wire = onTheWire(body);
  const parsed = bodySchema.safeParse(wire);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
  return isDeepStrictEqual(onTheWire(parsed.data), wire) ? null : 'the body has members the contract does not describe';
}

/**
 * Checks every JSON answer of a contract route against the contract before it is sent, so a
 * handler that drifts from the contract fails where the compiler cannot see it (a member added
 * to a non-literal object, a status the route does not declare). A mismatch is thrown: the
 * request answers 500 and the log says which route, status and member. On with
 * SERVICE_CHECK_RESPONSES (the test servers); production never mounts it. Streams and cached
 * bytes (the ruleset, SSE) bypass res.json and are checked by their own tests.
 */
export function responseCheck(): RequestHandler {
  const routes = routesOf(contract);
  return (req, res, next) => {
    const json = res.json.bind(res);
    let failed = false;
    res.json = (body: unknown) => {
      // Express leaves the matched route untyped: read its path as unknown.
      const matched: unknown = req.route;
      const path = typeof matched === 'object' && matched !== null && 'path' in matched ? matched.path : undefined;
      const route = typeof path === 'string' ? routes.get(`${req.method} ${path}`) : undefined;
      const problem = route && !failed ? responseProblem(route, res.statusCode, body) : null;
      if (problem) {
        failed = true;
        throw new Error(`response of ${req.method} ${String(path)} breaks the contract (${res.statusCode}): ${problem}`);
      }
      return json(body);
    };
    next();
  };
}
