import { Migration } from '@mikro-orm/migrations';

export class Migration20261126050456_audit_env_version extends Migration {

  override up(): void {
    this.addSql(`create index "audit_events_env_id_version_index" on "audit_events" ("env_id", "version");`);
  }

  override down(): void {
    this.addSql(`drop index "audit_events_env_id_version_index";`);
  }

}
