import type { EntityManager } from '@mikro-orm/postgresql';
import type { Rollout } from '../../db/entities/index.js';
import { isStateChange, recordedState, type RecordedTransition } from '../../domain/rollouts/ramp.js';
import { rawQuery } from '../common/sql.js';

/** The newest state changes read at most: a ramp has far fewer. */
const MAX_TRANSITIONS = 5000;

/**
 * The recorded transitions of `rollout`, oldest first, in one statement: its own audit rows
 * (resource `rollout`, its id, its environment, from its creation on) with the state each left
 * (the row's `newValue`, the rollout as the change left it). Allow-list edits and rows whose value
 * is not a rollout's state are left out.
 */
export async function readRecordedTransitions(em: EntityManager, rollout: Pick<Rollout, 'id' | 'orgId' | 'envId' | 'createdAt'>): Promise<RecordedTransition[]> {
  const { rows } = await rawQuery<{ created_at: Date | string; action: string; new_value: unknown }>(
    em,
    `select created_at, action, new_value from audit_events
      where org_id = ? and env_id = ? and resource_type = 'rollout' and resource_id = ? and created_at >= ?
        and action not like 'rollout.target\\_ids%'
      order by created_at desc, id desc limit ?`,
    [rollout.orgId, rollout.envId, rollout.id, rollout.createdAt, MAX_TRANSITIONS],
  );
  const transitions: RecordedTransition[] = [];
  for (const row of rows.reverse()) {
    const state = isStateChange(row.action) ? recordedState(row.new_value) : null;
    if (state) transitions.push({ at: new Date(row.created_at), action: row.action, state });
  }
  return transitions;
}
