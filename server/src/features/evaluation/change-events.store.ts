import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery } from '../common/sql.js';
import type { ChangeRow, DescribeChanges } from './live-streams.js';

/** The audited changes of an environment's versions in (after, upTo], by the (env_id, version) index. */
const CHANGES = `
  select org_id::text as "orgId", env_id::text as "envId", version, resource_type as "resourceType", resource_key as "resourceKey", action
    from audit_events
   where env_id = $1 and version > $2 and version <= $3
   order by version, created_at, id`;

/** What the event streams announce for a committed write (LiveStreams' describe): its audit rows, read after the commit. */
export function describeChanges(em: () => EntityManager): DescribeChanges {
  return (envId, after, upTo) => preparedQuery<ChangeRow>(em(), 'env_change_events', CHANGES, [envId, after, upTo]);
}
