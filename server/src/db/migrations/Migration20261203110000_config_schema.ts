import { Migration } from '@mikro-orm/migrations';

/** A config's JSON Schema, which every value written must satisfy: none on the existing ones. */
export class Migration20261203110000_config_schema extends Migration {

  override up(): void {
    this.addSql(`alter table "primitives" add column "schema" jsonb null;`);
  }

  override down(): void {
    this.addSql(`alter table "primitives" drop column "schema";`);
  }

}
