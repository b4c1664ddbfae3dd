import { Migration } from '@mikro-orm/migrations';

export class Migration20261122122028_initial extends Migration {

  override up(): void {
    this.addSql(`create table "audit_events" ("id" uuid not null, "org_id" uuid not null, "project_id" uuid null, "env_id" uuid null, "created_at" timestamptz not null, "actor_type" text not null, "actor_id" text null, "actor_email" text null, "delegator_user_id" uuid null, "approver_user_id" uuid null, "resource_type" text not null, "resource_key" text null, "resource_id" text null, "action" text not null, "version" int null, "reason" text null, "previous_value" jsonb null, "new_value" jsonb null, "diff" jsonb null, constraint "audit_events_pkey" primary key ("id"));`);
    this.addSql(`create index "audit_events_org_id_created_at_id_index" on "audit_events" ("org_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "audit_events_org_id_resource_type_index" on "audit_events" ("org_id", "resource_type");`);
    this.addSql(`create index "audit_events_org_id_env_id_index" on "audit_events" ("org_id", "env_id");`);
    this.addSql(`create index "audit_events_org_id_actor_id_index" on "audit_events" ("org_id", "actor_id");`);

    this.addSql(`create table "orgs" ("id" uuid not null, "slug" text not null, "name" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "orgs_pkey" primary key ("id"));`);
    this.addSql(`alter table "orgs" add constraint "orgs_slug_unique" unique ("slug");`);

    this.addSql(`create table "api_keys" ("id" uuid not null, "org_id" uuid not null, "name" text not null, "kind" text check ("kind" in ('api', 'agent')) not null, "token_prefix" text not null, "token_hash" text not null, "actions" jsonb not null, "environments" jsonb null, "resources" jsonb null, "ip_allowlist" jsonb null, "rate_limit_per_min" int not null, "expires_at" timestamptz null, "requires_approval" boolean not null, "created_at" timestamptz not null, "created_by_user_id" uuid null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, constraint "api_keys_pkey" primary key ("id"));`);
    this.addSql(`create index "api_keys_org_id_index" on "api_keys" ("org_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "projects" ("id" uuid not null, "org_id" uuid not null, "key" text not null, "name" text not null, "target_id_field" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "projects_pkey" primary key ("id"));`);
    this.addSql(`alter table "projects" add constraint "projects_org_id_key_unique" unique ("org_id", "key");`);

    this.addSql(`create table "primitives" ("id" uuid not null, "org_id" uuid not null, "project_id" uuid not null, "kind" text check ("kind" in ('flag', 'config')) not null, "key" text not null, "name" text not null, "description" text null, "value_type" text check ("value_type" in ('boolean', 'string', 'number', 'json')) not null, "default_value" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "primitives_pkey" primary key ("id"));`);
    this.addSql(`alter table "primitives" add constraint "primitives_project_id_kind_key_unique" unique ("project_id", "kind", "key");`);

    this.addSql(`create table "environments" ("id" uuid not null, "project_id" uuid not null, "org_id" uuid not null, "key" text not null, "name" text not null, "version" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "environments_pkey" primary key ("id"));`);
    this.addSql(`alter table "environments" add constraint "environments_project_id_key_unique" unique ("project_id", "key");`);

    this.addSql(`create table "primitive_states" ("id" uuid not null, "primitive_id" uuid not null, "env_id" uuid not null, "value" jsonb null, "rules" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "primitive_states_pkey" primary key ("id"));`);
    this.addSql(`create index "primitive_states_env_id_index" on "primitive_states" ("env_id");`);
    this.addSql(`alter table "primitive_states" add constraint "primitive_states_primitive_id_env_id_unique" unique ("primitive_id", "env_id");`);

    this.addSql(`create table "users" ("id" uuid not null, "email" text not null, "display_name" text not null, "created_at" timestamptz not null, "deleted_at" timestamptz null, constraint "users_pkey" primary key ("id"), constraint users_email_lowercase_check check (email = lower(email)));`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(`create table "sessions" ("id" uuid not null, "token_hash" text not null, "user_id" uuid not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, constraint "sessions_pkey" primary key ("id"));`);
    this.addSql(`alter table "sessions" add constraint "sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);

    this.addSql(`create table "memberships" ("id" uuid not null, "org_id" uuid not null, "user_id" uuid not null, "role" text check ("role" in ('owner', 'admin', 'member')) not null, "created_at" timestamptz not null, constraint "memberships_pkey" primary key ("id"));`);
    this.addSql(`create index "memberships_user_id_index" on "memberships" ("user_id");`);
    this.addSql(`alter table "memberships" add constraint "memberships_org_id_user_id_unique" unique ("org_id", "user_id");`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "projects" add constraint "projects_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "primitives" add constraint "primitives_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "environments" add constraint "environments_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "primitive_states" add constraint "primitive_states_primitive_id_foreign" foreign key ("primitive_id") references "primitives" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "primitive_states" add constraint "primitive_states_env_id_foreign" foreign key ("env_id") references "environments" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "memberships" add constraint "memberships_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "memberships" add constraint "memberships_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

  override down(): void {
    this.addSql(`alter table "api_keys" drop constraint "api_keys_org_id_foreign";`);

    this.addSql(`alter table "projects" drop constraint "projects_org_id_foreign";`);

    this.addSql(`alter table "memberships" drop constraint "memberships_org_id_foreign";`);

    this.addSql(`alter table "primitives" drop constraint "primitives_project_id_foreign";`);

    this.addSql(`alter table "environments" drop constraint "environments_project_id_foreign";`);

    this.addSql(`alter table "primitive_states" drop constraint "primitive_states_primitive_id_foreign";`);

    this.addSql(`alter table "primitive_states" drop constraint "primitive_states_env_id_foreign";`);

    this.addSql(`alter table "sessions" drop constraint "sessions_user_id_foreign";`);

    this.addSql(`alter table "memberships" drop constraint "memberships_user_id_foreign";`);

    this.addSql(`drop table if exists "audit_events" cascade;`);

    this.addSql(`drop table if exists "orgs" cascade;`);

    this.addSql(`drop table if exists "api_keys" cascade;`);

    this.addSql(`drop table if exists "projects" cascade;`);

    this.addSql(`drop table if exists "primitives" cascade;`);

    this.addSql(`drop table if exists "environments" cascade;`);

    this.addSql(`drop table if exists "primitive_states" cascade;`);

    this.addSql(`drop table if exists "users" cascade;`);

    this.addSql(`drop table if exists "sessions" cascade;`);

    this.addSql(`drop table if exists "memberships" cascade;`);
  }

}
