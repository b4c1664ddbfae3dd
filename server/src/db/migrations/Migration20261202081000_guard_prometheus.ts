import { Migration } from '@mikro-orm/migrations';

/** A guard metric may be read from Prometheus: its counter selectors (null: from SDK events). */
export class Migration20261202081000_guard_prometheus extends Migration {

  override up(): void {
    this.addSql(`alter table "guard_metrics" add column "prometheus" jsonb null;`);
  }

  override down(): void {
    this.addSql(`alter table "guard_metrics" drop column "prometheus";`);
  }

}
