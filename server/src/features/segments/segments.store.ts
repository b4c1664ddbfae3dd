import type { EntityManager } from '@mikro-orm/postgresql';
import type { SegmentTargetList } from '@gradual/contract';
import { preparedQuery, rawQuery } from '../common/sql.js';
import type { SegmentGraph } from '../../domain/segments/references.js';

/*
 * The segments slice's queries beyond MikroORM's entity API: the reference graph, who references
 * a segment (flags' and configs' rules in every environment, other segments), which environments
 * evaluate a segment, and the pages and checks of a segment's target-ID lists.
 */

/** Whether a rule's condition (`c`, one element of `r->'conditions'`) names one of the keys bound at `?` (text[]). */
const namesKeys = `c->>'operator' in ('in_segment', 'not_in_segment') and exists (select 1 from jsonb_array_elements_text(c->'values') v where v = any(?::text[]))`;
/** Whether primitive state `s`'s rules name one of the keys bound at `?`. */
const stateNamesKeys = `exists (select 1 from jsonb_array_elements(s.rules) r, jsonb_array_elements(r->'conditions') c where ${namesKeys})`;

/** The project's segments as a reference graph (key → keys its rules reference). */
export async function segmentGraph(em: EntityManager, projectId: string): Promise<Map<string, string[]>> {
  const { rows } = await rawQuery<{ key: string; segment_refs: string[] }>(em, `select key, segment_refs from segments where project_id = ?`, [projectId]);
  return new Map(rows.map((r) => [r.key, r.segment_refs]));
}

/** The graph with `key`'s references replaced (a write being checked). */
export const withRefs = (graph: SegmentGraph, key: string, refs: readonly string[]): Map<string, readonly string[]> => new Map([...graph, [key, refs]]);

/**
 * Everything that references segment `key`: `flag.<key>` / `config.<key>` for each flag or config
 * whose rules name it in some environment, `segment.<key>` for each segment whose rules do; each
 * once, sorted.
 */
export async function referrersOf(em: EntityManager, projectId: string, key: string): Promise<string[]> {
  const { rows } = await rawQuery<{ referrer: string }>(
    em,
    `select distinct p.kind || '.' || p.key as referrer
       from primitives p join primitive_states s on s.primitive_id = p.id
      where p.project_id = ? and ${stateNamesKeys}
     union
     select 'segment.' || key from segments where project_id = ? and key <> ? and segment_refs @> jsonb_build_array(?::text)
     order by 1`,
    [projectId, [key], projectId, key, key],
  );
  return rows.map((r) => r.referrer);
}

/** The environments of the project where some flag's or config's rules name one of `keys`. */
export async function environmentsUsing(em: EntityManager, projectId: string, keys: readonly string[]): Promise<string[]> {
  if (!keys.length) return [];
  const { rows } = await rawQuery<{ env_id: string }>(
    em,
    `select distinct s.env_id from primitive_states s join primitives p on p.id = s.primitive_id where p.project_id = ? and ${stateNamesKeys} order by s.env_id`,
    [projectId, [...keys]],
  );
  return rows.map((r) => r.env_id);
}

/**
 * Locks the named segments of the project against deletion until the transaction `em` is in
 * ends (a reference written now cannot outlive its segment) and answers which of them exist.
 */
export async function lockExistingSegments(em: EntityManager, projectId: string, keys: readonly string[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const { rows } = await rawQuery<{ key: string }>(em, `select key from segments where project_id = ? and key = any(?::text[]) for key share`, [projectId, [...keys]]);
  return new Set(rows.map((r) => r.key));
}

/** Serializes the project's writes of segment references (a cycle check sees every other writer's committed graph). */
export async function lockSegmentGraph(em: EntityManager, projectId: string): Promise<void> {
  await rawQuery(em, `select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`gradual.segments.${projectId}`]);
}

const listColumn = (list: SegmentTargetList) => (list === 'included' ? 'included_list_id' : 'excluded_list_id');

/**
 * One page, in bytewise ID order after `after`, of the segment's current `list` (keyset
 * pagination on the primary key; two prepared statements as for rollouts' lists). Outside
 * transactions only.
 */
export async function pageSegmentList(em: EntityManager, segmentId: string, list: SegmentTargetList, after: string | null, limit: number): Promise<string[]> {
  const current = `(select ${listColumn(list)} from segments where id = $1)`;
  const rows =
    after === null
      ? await preparedQuery<{ target_id: string }>(em, `gradual_segment_${list}_first_page`, `select target_id from rollout_target_ids where list_id = ${current} order by target_id limit $2`, [
          segmentId,
          limit,
        ])
      : await preparedQuery<{ target_id: string }>(
          em,
          `gradual_segment_${list}_next_page`,
          `select target_id from rollout_target_ids where list_id = ${current} and target_id > $2 order by target_id limit $3`,
          [segmentId, after, limit],
        );
  return rows.map((r) => r.target_id);
}

/** Whether `targetId` is on the segment's current `list` (one statement). */
export async function segmentListContains(em: EntityManager, segmentId: string, list: SegmentTargetList, targetId: string): Promise<boolean> {
  const rows = await preparedQuery<{ contains: boolean }>(
    em,
    `gradual_segment_${list}_contains`,
    `select exists (select 1 from rollout_target_ids where list_id = (select ${listColumn(list)} from segments where id = $1) and target_id = $2) as contains`,
    [segmentId, targetId],
  );
  return rows[0]?.contains === true;
}
