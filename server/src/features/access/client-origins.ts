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
 * Whether any active client key (not revoked, not expired at `now`) names `origin` in its
 * `allowedOrigins`. A CORS preflight carries no credentials, so it is answered by this.
 */
export async function activeClientKeyAllowsOrigin(em: EntityManager, origin: string, now: Date): Promise<boolean> {
  const rows = await em.execute<Array<{ found: number }>>(
    `select 1 as "found" from "api_keys" where "kind" = 'client' and "revoked_at" is null and ("expires_at" is null or "expires_at" > ?) and "allowed_origins" @> ?::jsonb limit 1`,
    [now, JSON.stringify([origin])],
  );
  return rows.length > 0;
}
