import { Migration } from '@mikro-orm/migrations';

export class Migration20261122130103_rollback extends Migration {

  override up(): void {
    this.addSql(`create table "rollback_fires" ("id" uuid not null, "org_id" uuid null, "env_id" uuid not null, "rollout_id" uuid null, "secret_id" uuid null, "secret_name" text null, "primitive_kind" text check ("primitive_kind" in ('flag', 'config')) not null, "primitive_key" text not null, "outcome" text check ("outcome" in ('transitioned', 'noop_already_rolled_back', 'noop_terminal_state', 'error_unauthorized', 'error_not_found', 'error_rate_limited', 'error_invalid_request')) not null, "source_ip" text not null, "parsed_monitor_url" text null, "payload_fingerprint" text not null, "fired_at" timestamptz not null, constraint "rollback_fires_pkey" primary key ("id"));`);
    this.addSql(`create index "rollback_fires_env_index" on "rollback_fires" ("env_id", "fired_at" desc, "id" desc);`);
    this.addSql(`create index "rollback_fires_secret_index" on "rollback_fires" ("secret_id", "fired_at" desc, "id" desc);`);
    this.addSql(`create index "rollback_fires_primitive_index" on "rollback_fires" ("env_id", "primitive_kind", "primitive_key", "fired_at" desc, "id" desc);`);

    this.addSql(`create table "rollback_webhook_secrets" ("id" uuid not null, "org_id" uuid not null, "env_id" uuid not null, "name" text not null, "token_prefix" text not null, "token_hash" text not null, "created_at" timestamptz not null, "created_by_user_id" uuid null, "last_fired_at" timestamptz null, "revoked_at" timestamptz null, constraint "rollback_webhook_secrets_pkey" primary key ("id"));`);
    this.addSql(`create index "rollback_webhook_secrets_env_id_index" on "rollback_webhook_secrets" ("env_id");`);
    this.addSql(`alter table "rollback_webhook_secrets" add constraint "rollback_webhook_secrets_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create unique index "rollback_webhook_secrets_live_name_unique" on "rollback_webhook_secrets" ("env_id", "name") where "revoked_at" is null;`);

    this.addSql(`alter table "rollback_webhook_secrets" add constraint "rollback_webhook_secrets_env_id_foreign" foreign key ("env_id") references "environments" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "rollouts" add column "last_auto_rollback" jsonb null;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "rollback_fires" cascade;`);

    this.addSql(`drop table if exists "rollback_webhook_secrets" cascade;`);

    this.addSql(`alter table "rollouts" drop column "last_auto_rollback";`);
  }

}
