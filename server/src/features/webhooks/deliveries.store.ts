import type { EntityManager } from '@mikro-orm/postgresql';
import { rawQuery } from '../common/sql.js';

/*
 * Deliveries that will not be sent (again): `dropped`, with the reason in `lastError`, so the
 * delivery log says what happened to every event. An attempt in flight (leased) is never dropped
 * here: its outcome is recorded when it ends.
 */

export const droppedOverCap = (cap: number) =>
  `dropped: more than ${cap.toLocaleString('en-US')} deliveries were pending for this subscription; the oldest are dropped`;
export const DROPPED_DISABLED = 'dropped: the subscription was disabled';

/** `and d.subscription_id = ?` when one subscription is meant, with its binding. */
const oneSubscription = (subscriptionId: string | undefined) =>
  subscriptionId === undefined ? { sql: '', bindings: [] } : { sql: ' and d.subscription_id = ?', bindings: [subscriptionId] };

/**
 * Drops the oldest pending deliveries of every subscription (or of one) beyond `cap`, attempts in
 * flight kept (they count as the newest). Answers how many were dropped.
 */
export async function dropOverCap(em: EntityManager, now: Date, cap: number, subscriptionId?: string): Promise<number> {
  const one = oneSubscription(subscriptionId);
  const at = now.toISOString();
  const { rowCount } = await rawQuery(
    em,
    `with over as (
       select d.subscription_id from webhook_deliveries d
        where d.status = 'pending'${one.sql}
        group by d.subscription_id having count(*) > ?),
     ranked as (
       select d.id, row_number() over (
                partition by d.subscription_id
                order by (d.locked_until is not null and d.locked_until > ?::timestamptz) desc, d.created_at desc, d.id desc) as n
         from webhook_deliveries d join over o on o.subscription_id = d.subscription_id
        where d.status = 'pending')
     update webhook_deliveries x set status = 'dropped', next_attempt_at = null, locked_until = null, last_error = ?
       from ranked r
      where x.id = r.id and r.n > ? and x.status = 'pending' and (x.locked_until is null or x.locked_until <= ?::timestamptz)`,
    [...one.bindings, cap, at, droppedOverCap(cap), cap, at]
  );
  return rowCount;
}

/**
 * Drops the pending deliveries of disabled subscriptions (or of one), test events excepted: they
 * are sent also to a disabled subscription. Answers how many were dropped.
 */
export async function dropPendingOfDisabled(em: EntityManager, now: Date, subscriptionId?: string): Promise<number> {
  const one = oneSubscription(subscriptionId);
  const at = now.toISOString();
  const { rowCount } = await rawQuery(
    em,
    `update webhook_deliveries d set status = 'dropped', next_attempt_at = null, locked_until = null, last_error = ?
       from webhook_subscriptions s
      where s.id = d.subscription_id and not s.enabled and d.status = 'pending' and d.event_type <> 'webhook.test'
        and (d.locked_until is null or d.locked_until <= ?::timestamptz)${one.sql}`,
    [DROPPED_DISABLED, at, ...one.bindings]
  );
  return rowCount;
}
