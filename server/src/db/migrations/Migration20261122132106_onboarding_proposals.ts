import { Migration } from '@mikro-orm/migrations';

export class Migration20261122132106_onboarding_proposals extends Migration {

  override up(): void {
    this.addSql(`create table "magic_links" ("id" uuid not null, "token_hash" text not null, "email" text not null, "purpose" text check ("purpose" in ('signin', 'signup')) not null, "signup" jsonb null, "request_ip" text null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, constraint "magic_links_pkey" primary key ("id"));`);
    this.addSql(`alter table "magic_links" add constraint "magic_links_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "magic_links_email_index" on "magic_links" ("email");`);

    this.addSql(`create table "invitations" ("id" uuid not null, "org_id" uuid not null, "email" text not null, "role" text check ("role" in ('owner', 'admin', 'member')) not null, "token_hash" text not null, "status" text check ("status" in ('pending', 'used', 'revoked')) not null, "created_at" timestamptz not null, "created_by_user_id" uuid null, "expires_at" timestamptz not null, "used_at" timestamptz null, "revoked_at" timestamptz null, constraint "invitations_pkey" primary key ("id"));`);
    this.addSql(`create index "invitations_org_id_index" on "invitations" ("org_id");`);
    this.addSql(`alter table "invitations" add constraint "invitations_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "invitations_org_id_email_index" on "invitations" ("org_id", "email");`);

    this.addSql(`create table "proposals" ("id" uuid not null, "org_id" uuid not null, "env_id" uuid not null, "kind" text not null, "resource_type" text not null, "resource_key" text not null, "request" jsonb not null, "base_version" int not null, "status" text check ("status" in ('pending', 'applied', 'cancelled', 'expired')) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "created_by_token_id" uuid not null, "applied_at" timestamptz null, "applied_by_user_id" uuid null, "cancelled_at" timestamptz null, "cancelled_by_user_id" uuid null, constraint "proposals_pkey" primary key ("id"));`);
    this.addSql(`create index "proposals_org_id_status_created_at_index" on "proposals" ("org_id", "status", "created_at");`);

    this.addSql(`alter table "invitations" add constraint "invitations_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade on delete cascade;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "magic_links" cascade;`);

    this.addSql(`drop table if exists "invitations" cascade;`);

    this.addSql(`drop table if exists "proposals" cascade;`);
  }

}
