import { Migration } from '@mikro-orm/migrations';

export class Migration20261122123959_rollouts extends Migration {

  override up(): void {
    this.addSql(`create table "rollouts" ("id" uuid not null, "org_id" uuid not null, "project_id" uuid not null, "env_id" uuid not null, "primitive_id" uuid not null, "primitive_kind" text check ("primitive_kind" in ('flag', 'config')) not null, "primitive_key" text not null, "status" text check ("status" in ('active', 'paused', 'completed', 'cancelled')) not null, "percent" double precision not null, "paused_at_percent" double precision null, "paused_reason" text check ("paused_reason" in ('user', 'approval_gate', 'auto_rollback')) null, "rolled_back_from_percent" double precision null, "seed" text not null, "bucket_field" text not null, "new_value" jsonb null, "gates_rules" boolean not null, "plan_key" text null, "plan" jsonb null, "ramp_step_idx" int null, "next_step_at" timestamptz null, "target_ids_count" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "rollouts_pkey" primary key ("id"));`);
    this.addSql(`create unique index "rollouts_live_unique" on "rollouts" ("env_id", "primitive_id") where "status" in ('active', 'paused');`);
    this.addSql(`create index "rollouts_env_id_primitive_id_created_at_index" on "rollouts" ("env_id", "primitive_id", "created_at");`);
    this.addSql(`create index "rollouts_due_index" on "rollouts" ("next_step_at") where "status" = 'active' and "next_step_at" is not null;`);
    this.addSql(`create index "rollouts_project_id_plan_key_index" on "rollouts" ("project_id", "plan_key");`);

    this.addSql(`create table "rollout_migration_warnings" ("id" uuid not null, "org_id" uuid not null, "env_id" uuid not null, "flag_key" text not null, "rollout_id" uuid not null, "rule_indices" jsonb not null, "hoisted_rule_index" int not null, "created_at" timestamptz not null, constraint "rollout_migration_warnings_pkey" primary key ("id"));`);
    this.addSql(`create index "rollout_migration_warnings_org_id_index" on "rollout_migration_warnings" ("org_id");`);

    this.addSql(`create table "rollout_plans" ("id" uuid not null, "org_id" uuid not null, "project_id" uuid not null, "key" text not null, "name" text not null, "description" text null, "ramp_steps" jsonb not null, "cadence" text check ("cadence" in ('auto', 'manual')) not null, "blackout_days_of_week" jsonb not null, "blackout_timezone" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, constraint "rollout_plans_pkey" primary key ("id"));`);
    this.addSql(`create unique index "rollout_plans_live_key_unique" on "rollout_plans" ("project_id", "key") where "deleted_at" is null;`);

    this.addSql(`create table "rollout_target_ids" ("rollout_id" uuid not null, "target_id" text collate "C" not null, constraint "rollout_target_ids_pkey" primary key ("rollout_id", "target_id"));`);

    this.addSql(`alter table "rollouts" add constraint "rollouts_env_id_foreign" foreign key ("env_id") references "environments" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "rollouts" add constraint "rollouts_primitive_id_foreign" foreign key ("primitive_id") references "primitives" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "rollout_plans" add constraint "rollout_plans_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "rollout_target_ids" add constraint "rollout_target_ids_rollout_id_foreign" foreign key ("rollout_id") references "rollouts" ("id") on update cascade on delete cascade;`);
  }

  override down(): void {
    this.addSql(`alter table "rollout_target_ids" drop constraint "rollout_target_ids_rollout_id_foreign";`);

    this.addSql(`drop table if exists "rollouts" cascade;`);

    this.addSql(`drop table if exists "rollout_migration_warnings" cascade;`);

    this.addSql(`drop table if exists "rollout_plans" cascade;`);

    this.addSql(`drop table if exists "rollout_target_ids" cascade;`);
  }

}
