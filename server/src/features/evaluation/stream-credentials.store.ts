import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery } from '../common/sql.js';
import { sessionInOrg, type CredentialCheck, type StillValid } from './live-streams.js';

/**
 * Which of the credentials holding open streams still hold, in one statement: API keys neither
 * revoked, expired nor deleted; sessions neither ended (logout deletes the row) nor expired,
 * whose user is not deleted and is still a member of the stream's organization; and which of the
 * open streams' environments still exist.
 */
const STILL_VALID = `
  select 'key' as kind, k.id::text as id, null::text as org_id
    from api_keys k
   where k.id = any($1::uuid[]) and k.revoked_at is null and (k.expires_at is null or k.expires_at > $3)
  union all
  select 'session', s.id::text, m.org_id::text
    from sessions s
    join users u on u.id = s.user_id and u.deleted_at is null
    join memberships m on m.user_id = s.user_id and m.org_id = any($4::uuid[])
   where s.id = any($2::uuid[]) and s.expires_at > $3
  union all
  select 'env', e.id::text, null
    from environments e
   where e.id = any($5::uuid[])`;

/** The live streams' credential check (LiveStreams re-runs it every STREAM_RECHECK_INTERVAL_MS). */
export function streamCredentialCheck(em: () => EntityManager): CredentialCheck {
  return async ({ keyIds, sessions, envIds = [] }, now) => {
    const sessionIds = [...new Set(sessions.map((s) => s.sessionId))];
    const orgIds = [...new Set(sessions.map((s) => s.orgId))];
    const rows = await preparedQuery<{ kind: 'key' | 'session' | 'env'; id: string; org_id: string | null }>(em(), 'stream_credentials_still_valid', STILL_VALID, [
      uuidArray(keyIds),
      uuidArray(sessionIds),
      now,
      uuidArray(orgIds),
      uuidArray(envIds),
    ]);
    const existing = new Set<string>();
    const valid: StillValid = { keyIds: new Set(), sessions: new Set(), envIds: existing };
    for (const row of rows) {
      if (row.kind === 'key') valid.keyIds.add(row.id);
      else if (row.kind === 'env') existing.add(row.id);
      else valid.sessions.add(sessionInOrg(row.id, row.org_id ?? ''));
    }
    return valid;
  };
}

/** A PostgreSQL array literal of UUIDs (bound as one text value, whichever way the statement runs). */
function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(',')}}`;
}
