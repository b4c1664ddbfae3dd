import { Migration } from '@mikro-orm/migrations';

/**
 * rollouts.target_ids_version: raised by every allow-list edit, so an in-memory copy of a list
 * (the contains fast path) can tell whether an edit committed while it was being read.
 */
export class Migration20261122204337_rollout_target_ids_version extends Migration {

  override up(): void {
    this.addSql(`alter table "rollouts" add column "target_ids_version" int not null default 0;`);
  }

  override down(): void {
    this.addSql(`alter table "rollouts" drop column "target_ids_version";`);
  }

}
