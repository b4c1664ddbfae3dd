import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../tests/support/database.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t?.cleanup());

const PREVIOUS = 'Migration20261126002109_target_id_lists';

it('revokes the live keys of minters who are no longer admins or owners, with an audit row each, and leaves the rest', async () => {
  const sql = t.db.orm.em.getConnection();
  const org = randomUUID();
  await sql.execute(`insert into "orgs" ("id", "slug", "name", "created_at", "updated_at") values (?, 'orphans', 'Orphans', now(), now())`, [org]);
  const user = async (role: string | null) => {
    const id = randomUUID();
    await sql.execute(`insert into "users" ("id", "email", "display_name", "created_at") values (?, ?, 'U', now())`, [id, `${id}@example.com`]);
    if (role) await sql.execute(`insert into "memberships" ("id", "org_id", "user_id", "role", "created_at") values (?, ?, ?, ?, now())`, [randomUUID(), org, id, role]);
    return id;
  };
  const key = async (name: string, minter: string | null, revoked = false) => {
    const id = randomUUID();
    await sql.execute(
      `insert into "api_keys" ("id", "org_id", "name", "kind", "token_prefix", "token_hash", "actions", "rate_limit_per_min", "requires_approval", "created_at", "created_by_user_id", "revoked_at")
       values (?, ?, ?, 'api', 'svc_x', ?, '["read"]', 600, false, now(), ?, ${revoked ? 'now()' : 'null'})`,
      [id, org, name, randomUUID(), minter],
    );
    return id;
  };
  const [owner, admin, demoted, gone] = [await user('owner'), await user('admin'), await user('member'), await user(null)];
  const kept = [await key('by-owner', owner), await key('by-admin', admin), await key('no-minter', null)];
  const orphaned = [await key('by-demoted', demoted), await key('by-gone', gone)];
  await key('already-revoked', gone, true);

  const migrator = t.db.orm.getMigrator();
  await migrator.down({ to: PREVIOUS });
  await migrator.up();

  const live = await sql.execute<{ id: string }[]>(`select "id" from "api_keys" where "org_id" = ? and "revoked_at" is null order by "name"`, [org]);
  expect(live.map((r) => r.id).sort()).toEqual([...kept].sort());
  const rows = await sql.execute<{ resource_id: string; actor_type: string; action: string; reason: string }[]>(
    `select "resource_id", "actor_type", "action", "reason" from "audit_events" where "org_id" = ?`,
    [org],
  );
  expect(rows.map((r) => r.resource_id).sort()).toEqual([...orphaned].sort());
  for (const row of rows) {
    expect(row).toMatchObject({ actor_type: 'system', action: 'api_token.revoked' });
    expect(row.reason).toMatch(/no longer an admin or owner/);
  }
});
