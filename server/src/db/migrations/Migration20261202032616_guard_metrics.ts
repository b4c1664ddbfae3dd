import { Migration } from '@mikro-orm/migrations';

/**
 * Guarded steps' data: the metrics a project's guards watch, each arm's per-minute samples, when a
 * rollout's guarded step is next checked (indexed for the scheduler), and the check that last
 * stopped a rollout.
 */
export class Migration20261202032616_guard_metrics extends Migration {

  override up(): void {
    this.addSql(`create table "guard_metrics" ("id" uuid not null, "org_id" uuid not null, "project_id" uuid not null, "key" text not null, "name" text not null, "description" text not null, "kind" text check ("kind" in ('count', 'mean')) not null, "worse" text check ("worse" in ('higher', 'lower')) not null, "event" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "guard_metrics_pkey" primary key ("id"));`);
    this.addSql(`alter table "guard_metrics" add constraint "guard_metrics_project_id_key_unique" unique ("project_id", "key");`);

    this.addSql(`create table "guard_samples" ("rollout_id" uuid not null, "percent" double precision not null, "minute" timestamptz not null, "arm" text check ("arm" in ('treatment', 'control')) not null, "metric" text not null, "units" bigint not null, "events" bigint not null, "sum" double precision not null, "sum_squares" double precision not null, constraint "guard_samples_pkey" primary key ("rollout_id", "percent", "minute", "arm", "metric"));`);

    this.addSql(`alter table "guard_metrics" add constraint "guard_metrics_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "guard_samples" add constraint "guard_samples_rollout_id_foreign" foreign key ("rollout_id") references "rollouts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "rollouts" add column "guard_check_at" timestamptz null, add column "last_guard_stop" jsonb null;`);
    this.addSql(`create index "rollouts_guard_check_index" on "rollouts" ("guard_check_at") where "status" = 'active' and "guard_check_at" is not null;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "guard_metrics" cascade;`);

    this.addSql(`drop table if exists "guard_samples" cascade;`);

    this.addSql(`drop index "rollouts_guard_check_index";`);
    this.addSql(`alter table "rollouts" drop column "guard_check_at", drop column "last_guard_stop";`);
  }

}
