import type { EntityManager } from '@mikro-orm/postgresql';
import { LIVE_STATUSES_SQL, type Primitive } from '../../db/entities/index.js';
import { rawQuery } from '../common/sql.js';

/**
 * What keeps a flag or config from being archived or deleted, as the `fields` of `409 in_use`:
 * `rollout.<envKey>` for each environment where a rollout of it is active or paused, and
 * `proposal.<id>` for each pending, unexpired proposal that targets it. Empty when nothing does.
 */
export async function primitiveReferrers(em: EntityManager, primitive: Pick<Primitive, 'id' | 'projectId' | 'kind' | 'key'>, now: Date): Promise<Record<string, string>> {
  const { rows } = await rawQuery<{ what: 'rollout' | 'proposal'; ref: string; detail: string }>(
    em,
    `select 'rollout' as what, e.key as ref, r.status as detail
       from rollouts r join environments e on e.id = r.env_id
      where r.primitive_id = ? and r.status in ${LIVE_STATUSES_SQL}
     union all
     select 'proposal', p.id::text, p.kind
       from proposals p join environments e on e.id = p.env_id
      where e.project_id = ? and p.resource_type = ? and p.resource_key = ? and p.status = 'pending' and p.expires_at > ?::timestamptz
      order by 1 desc, 2`,
    [primitive.id, primitive.projectId, primitive.kind, primitive.key, now.toISOString()],
  );
  const fields: Record<string, string> = {};
  for (const row of rows) {
    fields[`${row.what}.${row.ref}`] = row.what === 'rollout' ? `a rollout is ${row.detail} in this environment` : `a pending proposal (${row.detail}) targets it`;
  }
  return fields;
}
