/**
 * Reads a rollout's recorded transitions from its organization's audit log through the SDK
 * client (the dashboard's only source of the ramp's past; see ramp-history.ts for what is built
 * from them).
 */
import type { AuditEventDetail, GradualClient, Rollout } from '@gradual/sdk';
import { transitionFromAuditEvent, type RecordedTransition } from './ramp-history.js';

/** The fields of a rollout its history is found by. */
export type HistoryRollout = Pick<Rollout, 'id' | 'environmentId' | 'primitiveKey' | 'createdAt'>;

/** The two audit operations of the SDK client the history is read with. */
export type AuditReader = Pick<GradualClient, 'listAuditEvents' | 'getAuditEvent'>;

/** Audit rows never change: their details are kept once read. */
const details = new Map<string, Promise<AuditEventDetail>>();
/** Pages of 200 rows read at most, newest first: a ramp has far fewer transitions. */
const MAX_PAGES = 10;

/**
 * The recorded transitions of `rollout`, oldest first: the rollout rows of its flag or config in
 * its environment (newest first, until the rows predate the rollout), then each row's detail for
 * the state it left.
 */
export async function loadRampHistory(reader: AuditReader, slug: string, rollout: HistoryRollout): Promise<RecordedTransition[]> {
  const created = Date.parse(rollout.createdAt);
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = { resourceType: 'rollout', resourceKey: rollout.primitiveKey, envId: rollout.environmentId, limit: 200, ...(cursor ? { cursor } : {}) };
    const answer = await reader.listAuditEvents({ path: { slug }, query });
    for (const e of answer.events) {
      if (e.resourceId === rollout.id && !e.action.startsWith('rollout.target_ids')) ids.push(e.id);
    }
    if (!answer.nextCursor || answer.events.some((e) => Date.parse(e.createdAt) < created)) break;
    cursor = answer.nextCursor;
  }
  const rows = await Promise.all(
    ids.reverse().map((id) => {
      let d = details.get(id);
      if (!d) {
        d = reader.getAuditEvent({ path: { id } });
        details.set(id, d);
        d.catch(() => details.delete(id));
      }
      return d;
    }),
  );
  return rows
    .map((row) => transitionFromAuditEvent(row, rollout.id))
    .filter((t): t is RecordedTransition => t !== null)
    .sort((a, b) => a.at - b.at);
}
