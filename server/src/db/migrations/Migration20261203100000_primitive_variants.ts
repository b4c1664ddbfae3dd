import { Migration } from '@mikro-orm/migrations';

/** A flag's or config's declared variants (name → value): none on the existing ones. */
export class Migration20261203100000_primitive_variants extends Migration {

  override up(): void {
    this.addSql(`alter table "primitives" add column "variants" jsonb not null default '{}';`);
  }

  override down(): void {
    this.addSql(`alter table "primitives" drop column "variants";`);
  }

}
