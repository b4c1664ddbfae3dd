import { Migration } from '@mikro-orm/migrations';

export class Migration20261126090606_lifecycle_segments_webhooks_usage extends Migration {

  override up(): void {
    this.addSql(`create table "segments" ("id" uuid not null, "org_id" uuid not null, "project_id" uuid not null, "key" text not null, "name" text not null, "description" text null, "rules" jsonb not null, "segment_refs" jsonb not null default '[]', "included_list_id" uuid not null, "included_count" int not null default 0, "excluded_list_id" uuid not null, "excluded_count" int not null default 0, "target_ids_version" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "segments_pkey" primary key ("id"));`);
    this.addSql(`alter table "segments" add constraint "segments_project_id_key_unique" unique ("project_id", "key");`);

    this.addSql(`create table "segment_spare_target_lists" ("list_id" uuid not null, "segment_id" uuid not null, constraint "segment_spare_target_lists_pkey" primary key ("list_id"));`);
    this.addSql(`create index "segment_spare_target_lists_segment_id_index" on "segment_spare_target_lists" ("segment_id");`);

    this.addSql(`create table "usage_hours" ("env_id" uuid not null, "primitive_id" uuid not null, "variant" text not null, "hour" timestamptz not null, "count" bigint not null, "last_seen_at" timestamptz not null, constraint "usage_hours_pkey" primary key ("env_id", "primitive_id", "variant", "hour"));`);
    this.addSql(`create index "usage_hours_primitive_id_hour_index" on "usage_hours" ("primitive_id", "hour");`);

    this.addSql(`create table "webhook_subscriptions" ("id" uuid not null, "org_id" uuid not null, "project_id" uuid not null, "name" text not null, "url" text not null, "events" jsonb not null, "format" text check ("format" in ('standard', 'slack')) not null, "enabled" boolean not null default true, "secret" text not null, "created_by_user_id" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "webhook_subscriptions_pkey" primary key ("id"));`);
    this.addSql(`create index "webhook_subscriptions_project_id_index" on "webhook_subscriptions" ("project_id");`);

    this.addSql(`create table "webhook_deliveries" ("id" text not null, "subscription_id" uuid not null, "event_type" text not null, "payload" jsonb not null, "status" text check ("status" in ('pending', 'succeeded', 'failed')) not null, "attempts" int not null default 0, "next_attempt_at" timestamptz null, "locked_until" timestamptz null, "last_attempt_at" timestamptz null, "response_status" int null, "last_error" text null, "created_at" timestamptz not null, constraint "webhook_deliveries_pkey" primary key ("id"));`);
    this.addSql(`create index "webhook_deliveries_subscription_id_created_at_index" on "webhook_deliveries" ("subscription_id", "created_at");`);
    this.addSql(`create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "status" = 'pending';`);

    this.addSql(`alter table "segments" add constraint "segments_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "usage_hours" add constraint "usage_hours_env_id_foreign" foreign key ("env_id") references "environments" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "usage_hours" add constraint "usage_hours_primitive_id_foreign" foreign key ("primitive_id") references "primitives" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "webhook_subscriptions" add constraint "webhook_subscriptions_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_subscription_id_foreign" foreign key ("subscription_id") references "webhook_subscriptions" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "primitives" add column "tags" jsonb not null default '[]', add column "maintainer" text null, add column "archived_at" timestamptz null;`);

    // A deleted segment's target-ID lists (current and spare) go with it, as a deleted rollout's do;
    // statement-level, so deleting a project's segments is one pass over the lists.
    this.addSql(`create or replace function "segment_target_ids_cascade"() returns trigger language plpgsql as $$
begin
  delete from "rollout_target_ids" t using deleted_segments d where t."list_id" in (d."included_list_id", d."excluded_list_id");
  delete from "rollout_target_ids" t using "segment_spare_target_lists" s, deleted_segments d where s."segment_id" = d."id" and t."list_id" = s."list_id";
  delete from "segment_spare_target_lists" s using deleted_segments d where s."segment_id" = d."id";
  return null;
end $$;`);
    this.addSql(`create trigger "segments_target_ids_cascade" after delete on "segments" referencing old table as deleted_segments for each statement execute function "segment_target_ids_cascade"();`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists "segments_target_ids_cascade" on "segments";`);
    this.addSql(`drop function if exists "segment_target_ids_cascade"();`);
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_subscription_id_foreign";`);

    this.addSql(`drop table if exists "segments" cascade;`);

    this.addSql(`drop table if exists "segment_spare_target_lists" cascade;`);

    this.addSql(`drop table if exists "usage_hours" cascade;`);

    this.addSql(`drop table if exists "webhook_subscriptions" cascade;`);

    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);

    this.addSql(`alter table "primitives" drop column "tags", drop column "maintainer", drop column "archived_at";`);
  }

}
