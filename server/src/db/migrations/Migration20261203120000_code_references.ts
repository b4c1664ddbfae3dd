import { Migration } from '@mikro-orm/migrations';

/** Code bases' type checks of a project's keys (features/usage: `gradual flags stale --report`), one row per repository. */
export class Migration20261203120000_code_references extends Migration {

  override up(): void {
    this.addSql(`create table "code_reference_reports" ("project_id" uuid not null, "repository" text not null, "commit" text null, "checked_at" timestamptz not null, "checks" jsonb not null, constraint "code_reference_reports_pkey" primary key ("project_id", "repository"));`);
    this.addSql(`alter table "code_reference_reports" add constraint "code_reference_reports_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "code_reference_reports" cascade;`);
  }

}
