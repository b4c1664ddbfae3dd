import { Migration } from '@mikro-orm/migrations';

/**
 * rollout_target_ids loses its foreign key: the per-row referential check was half the cost of
 * a 100,000-ID add. Writers hold the rollout's row lock, so the parent exists; deleting
 * rollouts (directly or by the environment cascade) still removes their IDs, through one
 * statement-level trigger over the deleted rows instead of a per-row cascade.
 */
export class Migration20261122151711_target_ids_no_fk extends Migration {

  override up(): void {
    this.addSql(`alter table "rollout_target_ids" drop constraint "rollout_target_ids_rollout_id_foreign";`);
    this.addSql(`delete from "rollout_target_ids" t where not exists (select 1 from "rollouts" r where r."id" = t."rollout_id");`);
    this.addSql(`create function "rollout_target_ids_cascade"() returns trigger language plpgsql as $$
begin
  delete from "rollout_target_ids" t using deleted_rollouts d where t."rollout_id" = d."id";
  return null;
end $$;`);
    this.addSql(`create trigger "rollouts_delete_target_ids" after delete on "rollouts"
  referencing old table as deleted_rollouts for each statement execute function "rollout_target_ids_cascade"();`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists "rollouts_delete_target_ids" on "rollouts";`);
    this.addSql(`drop function if exists "rollout_target_ids_cascade"();`);
    this.addSql(`alter table "rollout_target_ids" add constraint "rollout_target_ids_rollout_id_foreign" foreign key ("rollout_id") references "rollouts" ("id") on update cascade on delete cascade;`);
  }

}
