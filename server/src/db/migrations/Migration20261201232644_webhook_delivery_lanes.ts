import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook delivery lanes: a delivery can be `dropped` (over its subscription's pending cap, or its
 * subscription disabled); each subscription's queue and its leased (in-flight) attempts are indexed
 * for the worker's per-subscription claim.
 */
export class Migration20261201232644_webhook_delivery_lanes extends Migration {

  override up(): void {
    this.addSql(`alter table "webhook_deliveries" drop constraint if exists "webhook_deliveries_status_check";`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_status_check" check("status" in ('pending', 'succeeded', 'failed', 'dropped'));`);
    this.addSql(`create index "webhook_deliveries_queue_index" on "webhook_deliveries" ("subscription_id", "next_attempt_at", "id") where "status" = 'pending';`);
    this.addSql(`create index "webhook_deliveries_leased_index" on "webhook_deliveries" ("subscription_id") where "status" = 'pending' and "locked_until" is not null;`);
  }

  override down(): void {
    this.addSql(`alter table "webhook_deliveries" drop constraint if exists "webhook_deliveries_status_check";`);

    this.addSql(`drop index "webhook_deliveries_queue_index";`);
    this.addSql(`drop index "webhook_deliveries_leased_index";`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_status_check" check("status" in ('pending', 'succeeded', 'failed'));`);
  }

}
