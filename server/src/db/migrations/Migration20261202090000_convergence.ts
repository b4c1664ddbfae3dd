import { Migration } from '@mikro-orm/migrations';

/**
 * The convergence ledger (features/convergence): each SDK instance's last acknowledgement per
 * environment, and when it first acknowledged each version (the time to converge).
 */
export class Migration20261202090000_convergence extends Migration {

  override up(): void {
    this.addSql(`create table "sdk_instances" ("env_id" uuid not null, "instance_id" text not null, "sdk_name" text not null, "sdk_version" text not null, "service" text null, "mode" text not null, "version" integer not null, "last_seen" timestamptz not null, constraint "sdk_instances_pkey" primary key ("env_id", "instance_id"));`);
    this.addSql(`create index "sdk_instances_env_id_last_seen_index" on "sdk_instances" ("env_id", "last_seen");`);
    this.addSql(`alter table "sdk_instances" add constraint "sdk_instances_env_id_foreign" foreign key ("env_id") references "environments" ("id") on update cascade on delete cascade;`);
    this.addSql(`create table "sdk_instance_versions" ("env_id" uuid not null, "version" integer not null, "instance_id" text not null, "first_acked_at" timestamptz not null, "moved" boolean not null, constraint "sdk_instance_versions_pkey" primary key ("env_id", "version", "instance_id"));`);
    this.addSql(`alter table "sdk_instance_versions" add constraint "sdk_instance_versions_env_id_foreign" foreign key ("env_id") references "environments" ("id") on update cascade on delete cascade;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "sdk_instance_versions" cascade;`);
    this.addSql(`drop table if exists "sdk_instances" cascade;`);
  }

}
