import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery } from '../common/sql.js';
import type { ChangeRow, DescribeChanges } from './live-streams.js';

/** The audited changes of an environment's versions in (after, upTo]; org_id leads so the (org_id, env_id) index serves it. */
const CHANGES = `
  select org_id::text as "orgId", env_id::text as "envId", version, resource_type as "resourceType", resource_key as "resourceKey", action
    from audit_events
   where org_id = $1 and env_id = $2 and version > $3 and version <= $4
   order by version, created_at, id`;

/**
 * What the event streams announce for a committed write (LiveStreams' describe): its audit rows,
 * read after the commit. `orgOf` names the environment's organization (the environment directory).
 */
export function describeChanges(em: () => EntityManager, orgOf: (em: EntityManager, envId: string) => Promise<string>): DescribeChanges {
  return async (envId, after, upTo) => {
    const fork = em();
    const orgId = await orgOf(fork, envId);
    return preparedQuery<ChangeRow>(fork, 'env_change_events', CHANGES, [orgId, envId, after, upTo]);
  };
}
