import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKey } from '../../db/entities/index.js';

/**
 * Whether a client key (`pub_…`) lets pages of `origin` use it: the origin is among the key's
 * `allowedOrigins`, or, when the key names none, among the server's default origins
 * (CORS_ALLOWED_ORIGINS). Any other kind of key is never granted to a page: its token is a secret.
 */
export function clientKeyAllowsOrigin(key: Pick<ApiKey, 'kind' | 'allowedOrigins'>, origin: string, defaults: readonly string[]): boolean {
  return key.kind === 'client' && (key.allowedOrigins ?? defaults).includes(origin);
}

/**
 * Every origin that an active client key (not revoked, not expired at `now`) names in its
 * `allowedOrigins`. A CORS preflight carries no credentials, so it is answered by these (http/cors.ts
 * reads them as one set, so preflights from ever-new origins do not each cost a read).
 */
export async function activeClientKeyOrigins(em: EntityManager, now: Date): Promise<Set<string>> {
  const rows = await em.execute<Array<{ origin: string }>>(
    `select distinct jsonb_array_elements_text("allowed_origins") as "origin" from "api_keys" where "kind" = 'client' and "revoked_at" is null and ("expires_at" is null or "expires_at" > ?) and jsonb_typeof("allowed_origins") = 'array'`,
    [now],
  );
  return new Set(rows.map((row) => row.origin));
}
