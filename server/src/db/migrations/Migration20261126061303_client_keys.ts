import { Migration } from '@mikro-orm/migrations';

export class Migration20261126061303_client_keys extends Migration {

  override up(): void {
    this.addSql(`alter table "api_keys" drop constraint if exists "api_keys_kind_check";`);

    this.addSql(`alter table "api_keys" add column "allowed_origins" jsonb null;`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_kind_check" check("kind" in ('api', 'agent', 'sdk', 'client'));`);

    this.addSql(`alter table "primitives" add column "client_visible" boolean not null default false;`);
  }

  override down(): void {
    this.addSql(`alter table "api_keys" drop constraint if exists "api_keys_kind_check";`);

    this.addSql(`alter table "api_keys" drop column "allowed_origins";`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_kind_check" check("kind" in ('api', 'agent'));`);

    this.addSql(`alter table "primitives" drop column "client_visible";`);
  }

}
