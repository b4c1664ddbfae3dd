import { Migration } from '@mikro-orm/migrations';

/** A flag's or config's custom metadata (OpenFeature `flagMetadata`, OFREP `metadata`): none on the existing ones. */
export class Migration20261203090000_primitive_metadata extends Migration {

  override up(): void {
    this.addSql(`alter table "primitives" add column "metadata" jsonb not null default '{}';`);
  }

  override down(): void {
    this.addSql(`alter table "primitives" drop column "metadata";`);
  }

}
