import { Migration } from '@mikro-orm/migrations';

/**
 * Allow-lists get ids of their own, so a large edit can write a new list beside the current one
 * in short slices and then switch to it in one short transaction (target-ids.service.ts):
 *
 * - rollout_target_ids.rollout_id becomes list_id (the rows stay: each rollout's list keeps its
 *   rollout's id, which a null rollouts.target_list_id stands for);
 * - rollouts.target_list_id: the rollout's current list, null for its own id;
 * - rollout_spare_target_lists: lists of a rollout that are not current (being written, left by a
 *   failed or killed writer, or replaced), deleted in slices by the list's next writer;
 * - the delete trigger removes a deleted rollout's current and spare lists.
 */
export class Migration20261126002109_target_id_lists extends Migration {

  override up(): void {
    this.addSql(`create table "rollout_spare_target_lists" ("list_id" uuid not null, "rollout_id" uuid not null, constraint "rollout_spare_target_lists_pkey" primary key ("list_id"));`);
    this.addSql(`create index "rollout_spare_target_lists_rollout_id_index" on "rollout_spare_target_lists" ("rollout_id");`);
    this.addSql(`alter table "rollouts" add column "target_list_id" uuid null;`);
    // A rename keeps the primary key's index ("list_id", "target_id"): nothing is rebuilt.
    this.addSql(`alter table "rollout_target_ids" rename column "rollout_id" to "list_id";`);
    this.addSql(`create or replace function "rollout_target_ids_cascade"() returns trigger language plpgsql as $$
begin
  delete from "rollout_target_ids" t using deleted_rollouts d where t."list_id" = coalesce(d."target_list_id", d."id");
  delete from "rollout_target_ids" t using "rollout_spare_target_lists" s, deleted_rollouts d where s."rollout_id" = d."id" and t."list_id" = s."list_id";
  delete from "rollout_spare_target_lists" s using deleted_rollouts d where s."rollout_id" = d."id";
  return null;
end $$;`);
  }

  override down(): void {
    this.addSql(`create or replace function "rollout_target_ids_cascade"() returns trigger language plpgsql as $$
begin
  delete from "rollout_target_ids" t using deleted_rollouts d where t."rollout_id" = d."id";
  return null;
end $$;`);
    this.addSql(`delete from "rollout_target_ids" t using "rollout_spare_target_lists" s where t."list_id" = s."list_id";`);
    this.addSql(`update "rollout_target_ids" t set "list_id" = r."id" from "rollouts" r where r."target_list_id" = t."list_id";`);
    this.addSql(`alter table "rollout_target_ids" rename column "list_id" to "rollout_id";`);
    this.addSql(`alter table "rollouts" drop column "target_list_id";`);
    this.addSql(`drop table if exists "rollout_spare_target_lists" cascade;`);
  }

}
