import { Migration } from '@mikro-orm/migrations';

/** Evaluations each reporter's usage reports added per hour, which the hourly caps are checked against (features/usage). */
export class Migration20261201232601_usage_budgets extends Migration {

  override up(): void {
    this.addSql(`create table "usage_budgets" ("subject" text not null, "hour" timestamptz not null, "used" bigint not null, constraint "usage_budgets_pkey" primary key ("subject", "hour"));`);
    this.addSql(`create index "usage_budgets_hour_index" on "usage_budgets" ("hour");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "usage_budgets" cascade;`);
  }

}
