import { Migration } from '@mikro-orm/migrations';

/** A webhook delivery keeps the URL it was queued for: a later change of the subscription's URL does not redirect it. */
export class Migration20261126094500_webhook_delivery_url extends Migration {

  override up(): void {
    this.addSql(`alter table "webhook_deliveries" add column "url" text null;`);
    this.addSql(`update "webhook_deliveries" d set "url" = s."url" from "webhook_subscriptions" s where s."id" = d."subscription_id";`);
    this.addSql(`alter table "webhook_deliveries" alter column "url" set not null;`);
  }

  override down(): void {
    this.addSql(`alter table "webhook_deliveries" drop column "url";`);
  }

}
