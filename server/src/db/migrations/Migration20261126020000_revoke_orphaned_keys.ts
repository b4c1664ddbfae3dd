import { Migration } from '@mikro-orm/migrations';

/** Live API keys whose minter is no longer an admin or owner of the key's organization. */
const ORPHANED = `"k"."revoked_at" is null and "k"."created_by_user_id" is not null and not exists (
  select 1 from "memberships" "m"
  where "m"."org_id" = "k"."org_id" and "m"."user_id" = "k"."created_by_user_id" and "m"."role" in ('admin', 'owner'))`;

/**
 * A key acts with the authority of the admin who minted it, and removing, demoting or losing that
 * person revokes their keys. Keys left behind by people who left before that rule are revoked
 * here, each with an `api_token.revoked` audit row by the system naming why.
 */
export class Migration20261126020000_revoke_orphaned_keys extends Migration {

  override up(): void {
    this.addSql(`insert into "audit_events" ("id", "org_id", "created_at", "actor_type", "resource_type", "resource_key", "resource_id", "action", "reason", "previous_value", "new_value", "diff")
      select gen_random_uuid(), "k"."org_id", now(), 'system', 'api_token', "k"."name", "k"."id"::text, 'api_token.revoked',
        'Minted by a person who is no longer an admin or owner of the organization',
        jsonb_build_object('revokedAt', null), jsonb_build_object('revokedAt', now()),
        jsonb_build_array(jsonb_build_object('op', 'replace', 'path', '/revokedAt', 'value', now()))
      from "api_keys" "k" where ${ORPHANED};`);
    this.addSql(`update "api_keys" "k" set "revoked_at" = now() where ${ORPHANED};`);
  }

  override down(): void {
    // Revocations stand: a key revoked for its minter's departure is not brought back.
  }

}
