import { createClient } from '@gradual/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailSink, startServerWithMail, type MailSink } from '../support/mail.js';
import { claim, expectApiError, type ClaimedInstance, type TestServer } from '../support/server.js';
import { seedUser } from '../support/users.js';

type Role = 'owner' | 'admin' | 'member';

/**
 * An API key on a session-only route. The SDK sends a key only where the
 * contract accepts one, so the header is forced, as a script might
 * (straight to the server: the request is off-contract on purpose).
 */
const withBearer = (t: TestServer, token: string) => createClient({ baseUrl: t.server.url, headers: { authorization: `Bearer ${token}` } });

describe('members and roles', () => {
  let sink: MailSink;
  let t: TestServer;
  let owner: ClaimedInstance;

  /** A new person who joined through a real invitation (mail, accept). */
  const join = async (email: string, role: Role) => {
    await owner.session.createInvitation({ path: { slug: 'acme' }, body: { email, role } });
    const token = new URL((await sink.next(email)).link).pathname.split('/').pop()!;
    const { data, response } = await t.anonymous.withResponse.acceptInvitation({ path: { token }, body: { displayName: email.split('@')[0]! } });
    const cookie = /svc_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')![1]!;
    return { userId: data.user.id, api: t.asSession(decodeURIComponent(cookie)) };
  };
  const roles = async () => Object.fromEntries((await owner.session.listMembers({ path: { slug: 'acme' } })).map((m) => [m.email, m.role]));

  beforeAll(async () => {
    sink = await startMailSink();
    t = await startServerWithMail(sink);
    owner = await claim(t);
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('lists members to any member, sorted by email; not to strangers or tokens', async () => {
    const ann = await join('ann@example.com', 'member');
    const list = await ann.api.listMembers({ path: { slug: 'acme' } });
    expect(list).toEqual([
      { userId: ann.userId, email: 'ann@example.com', displayName: 'ann', role: 'member', createdAt: expect.any(String) },
      { userId: owner.userId, email: 'owner@example.com', displayName: 'Olive Owner', role: 'owner', createdAt: expect.any(String) },
    ]);
    const stranger = await seedUser(t.server.deps.db, 'stranger@example.com');
    await expectApiError(t.asSession(stranger.sessionToken).listMembers({ path: { slug: 'acme' } }), 404, 'not_found');
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ci' } });
    await expectApiError(withBearer(t, token).listMembers({ path: { slug: 'acme' } }), 403, 'scope_denied');
    await expectApiError(withBearer(t, token).updateMember({ path: { slug: 'acme', userId: ann.userId }, body: { role: 'admin' } }), 403, 'scope_denied');
    await expectApiError(t.anonymous.listMembers({ path: { slug: 'acme' } }), 401, 'unauthorized');
  });

  it('admins change members and admins; only owners grant owner or touch owners; members change nothing', async () => {
    const adam = await join('adam@example.com', 'admin');
    const mia = await join('mia@example.com', 'member');

    expect(await adam.api.updateMember({ path: { slug: 'acme', userId: mia.userId }, body: { role: 'admin' } })).toMatchObject({ role: 'admin' });
    await adam.api.updateMember({ path: { slug: 'acme', userId: mia.userId }, body: { role: 'member' } });
    await expectApiError(adam.api.updateMember({ path: { slug: 'acme', userId: mia.userId }, body: { role: 'owner' } }), 403, 'insufficient_role');
    await expectApiError(adam.api.updateMember({ path: { slug: 'acme', userId: owner.userId }, body: { role: 'member' } }), 403, 'insufficient_role');
    await expectApiError(adam.api.removeMember({ path: { slug: 'acme', userId: owner.userId } }), 403, 'insufficient_role');
    await expectApiError(mia.api.updateMember({ path: { slug: 'acme', userId: adam.userId }, body: { role: 'member' } }), 403, 'insufficient_role');
    await expectApiError(mia.api.removeMember({ path: { slug: 'acme', userId: adam.userId } }), 403, 'insufficient_role');
    // An admin may step down.
    await adam.api.updateMember({ path: { slug: 'acme', userId: adam.userId }, body: { role: 'member' } });
    expect(await roles()).toMatchObject({ 'adam@example.com': 'member', 'mia@example.com': 'member' });

    await expectApiError(owner.session.updateMember({ path: { slug: 'acme', userId: '00000000-0000-4000-8000-000000000000' }, body: { role: 'admin' } }), 404, 'not_found');
    await expectApiError(owner.session.updateMember({ path: { slug: 'acme', userId: 'nope' }, body: { role: 'admin' } }), 404, 'not_found');
    await expectApiError(owner.session.updateMember({ path: { slug: 'acme', userId: mia.userId }, body: { role: 'king' as never } }), 400, 'invalid_request');
  });

  it('spec "Code catalog" last_owner_cannot_demote_or_remove: demoting or removing the last active owner answers 409', async () => {
    await expectApiError(
      owner.session.updateMember({ path: { slug: 'acme', userId: owner.userId }, body: { role: 'admin' } }),
      409,
      'last_owner_cannot_demote_or_remove',
    );
    await expectApiError(owner.session.removeMember({ path: { slug: 'acme', userId: owner.userId } }), 409, 'last_owner_cannot_demote_or_remove');

    const olga = await join('olga@example.com', 'admin');
    await owner.session.updateMember({ path: { slug: 'acme', userId: olga.userId }, body: { role: 'owner' } });
    // Two owners: either may step down, but not both.
    await olga.api.updateMember({ path: { slug: 'acme', userId: owner.userId }, body: { role: 'admin' } });
    await expectApiError(olga.api.updateMember({ path: { slug: 'acme', userId: olga.userId }, body: { role: 'admin' } }), 409, 'last_owner_cannot_demote_or_remove');
    await olga.api.updateMember({ path: { slug: 'acme', userId: owner.userId }, body: { role: 'owner' } });

    // A soft-deleted owner does not count: the remaining active owner is the last one.
    await t.server.deps.db.em().execute('update users set deleted_at = now() where id = ?', [olga.userId]);
    await expectApiError(owner.session.removeMember({ path: { slug: 'acme', userId: owner.userId } }), 409, 'last_owner_cannot_demote_or_remove');
    // … and removing the deleted owner is allowed.
    await owner.session.removeMember({ path: { slug: 'acme', userId: olga.userId } });
    expect(await roles()).not.toHaveProperty('olga@example.com');
  });

  it('two owners demoting each other at once: one wins, one owner remains', async () => {
    const otto = await join('otto@example.com', 'member');
    await owner.session.updateMember({ path: { slug: 'acme', userId: otto.userId }, body: { role: 'owner' } });
    const results = await Promise.allSettled([
      owner.session.updateMember({ path: { slug: 'acme', userId: otto.userId }, body: { role: 'member' } }),
      otto.api.updateMember({ path: { slug: 'acme', userId: owner.userId }, body: { role: 'member' } }),
    ]);
    const owners = Object.values(await roles()).filter((r) => r === 'owner');
    expect(owners).toHaveLength(1);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    // Put the original owner back in charge for the rest of the file.
    const current = (await owner.session.listMembers({ path: { slug: 'acme' } })).find((m) => m.role === 'owner')!;
    if (current.userId !== owner.userId) {
      await otto.api.updateMember({ path: { slug: 'acme', userId: owner.userId }, body: { role: 'owner' } });
    }
    await owner.session.removeMember({ path: { slug: 'acme', userId: otto.userId } });
  });

  it('removes members: they lose access at once; anyone may leave; audit rows say who did what', async () => {
    const rita = await join('rita@example.com', 'member');
    const lee = await join('lee@example.com', 'member');
    const adam = (await owner.session.listMembers({ path: { slug: 'acme' } })).find((m) => m.email === 'adam@example.com')!;
    await owner.session.updateMember({ path: { slug: 'acme', userId: adam.userId }, body: { role: 'admin' }, headers: { 'x-audit-reason': 'on call' } });
    // The same role again changes nothing and writes nothing.
    await owner.session.updateMember({ path: { slug: 'acme', userId: adam.userId }, body: { role: 'admin' } });

    await owner.session.removeMember({ path: { slug: 'acme', userId: rita.userId } });
    await expectApiError(rita.api.getOrg({ path: { slug: 'acme' } }), 404, 'not_found');
    expect((await rita.api.getSession()).organizations).toEqual([]);
    await expectApiError(owner.session.removeMember({ path: { slug: 'acme', userId: rita.userId } }), 404, 'not_found');

    await lee.api.removeMember({ path: { slug: 'acme', userId: lee.userId } }); // leaving needs no role
    await expectApiError(lee.api.listMembers({ path: { slug: 'acme' } }), 404, 'not_found');

    const events = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'member', limit: 200 } })).events;
    const rows = (userId: string) => events.filter((e) => e.resourceId === userId).map((e) => [e.action, e.actorId, e.reason]);
    expect(rows(rita.userId)).toEqual([
      ['member.removed', owner.userId, null],
      ['member.added', rita.userId, null],
    ]);
    expect(rows(lee.userId)[0]).toEqual(['member.removed', lee.userId, null]);
    const roleChanges = events.filter((e) => e.resourceId === adam.userId && e.action === 'member.role_changed');
    expect(roleChanges[0]).toMatchObject({ actorId: owner.userId, reason: 'on call', resourceKey: 'adam@example.com' });
    const detail = await owner.session.getAuditEvent({ path: { id: roleChanges[0]!.id } });
    expect(detail).toMatchObject({ previousValue: { role: 'member' }, newValue: { role: 'admin' } });
    // member → admin (by Adam himself, earlier: admin → member), then member → admin: no row for the no-op.
    expect(roleChanges.map((e) => e.actorId)).toEqual([owner.userId, adam.userId]);
  });
});

describe('API keys of people who leave, are removed or lose the admin role', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let orgId: string;
  let envId: string;

  beforeAll(async () => {
    t = await startServerWithMail(null);
    owner = await claim(t);
    orgId = (await owner.session.getOrg({ path: { slug: 'acme' } })).id;
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
  });
  afterAll(() => t?.close());

  /** A person with `role` who mints a key; the key has polled the ruleset twice (the second poll answered from memory). */
  const adminWithKey = async (email: string, role: Role) => {
    const person = await seedUser(t.server.deps.db, email, { orgId, role });
    const api = t.asSession(person.sessionToken);
    const key = await api.createApiKey({ path: { slug: 'acme' }, body: { name: `${email} key` } });
    for (let i = 0; i < 2; i++) expect((await t.asToken(key.token).getRuleset({ path: { envId } })).version).toBeGreaterThan(0);
    return { ...person, api, key };
  };
  const poll = (token: string) => fetch(`${t.url}/api/v1/envs/${envId}/ruleset`, { headers: { authorization: `Bearer ${token}` } });

  it('revokes the keys a removed admin minted at once, with an audit row each; other keys keep working', async () => {
    const ada = await adminWithKey('ada@example.com', 'admin');
    const second = await ada.api.createApiKey({ path: { slug: 'acme' }, body: { name: 'ada second' } });
    const ownKey = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'owner key' } });
    expect((await poll(ownKey.token)).status).toBe(200);

    await owner.session.removeMember({ path: { slug: 'acme', userId: ada.userId }, headers: { 'x-audit-reason': 'left the company' } });
    for (const token of [ada.key.token, second.token]) {
      const res = await poll(token);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
    }
    await expectApiError(t.asToken(ada.key.token).getOrg({ path: { slug: 'acme' } }), 401, 'unauthorized');
    expect((await poll(ownKey.token)).status).toBe(200);

    const keys = await owner.session.listApiKeys({ path: { slug: 'acme' } });
    expect(keys.filter((k) => k.createdByUserId === ada.userId).map((k) => k.revokedAt)).toEqual([expect.any(String), expect.any(String)]);
    expect(keys.find((k) => k.id === ownKey.id)?.revokedAt).toBeNull();
    const rows = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'api_token', limit: 200 } })).events;
    const revoked = rows.filter((e) => e.action === 'api_token.revoked');
    expect(revoked.map((e) => e.resourceId).sort()).toEqual([ada.key.id, second.id].sort());
    expect(revoked.every((e) => e.actorId === owner.userId && e.reason === 'left the company')).toBe(true);
    const detail = await owner.session.getAuditEvent({ path: { id: revoked[0]!.id } });
    expect(detail).toMatchObject({ previousValue: { revokedAt: null }, newValue: { revokedAt: expect.any(String) } });
  });

  it('revokes the keys of an admin who leaves, and of one demoted to member; an owner made admin keeps them', async () => {
    const leaver = await adminWithKey('leaver@example.com', 'admin');
    await leaver.api.removeMember({ path: { slug: 'acme', userId: leaver.userId } });
    expect((await poll(leaver.key.token)).status).toBe(401);

    const demoted = await adminWithKey('demoted@example.com', 'admin');
    await owner.session.updateMember({ path: { slug: 'acme', userId: demoted.userId }, body: { role: 'member' } });
    expect((await poll(demoted.key.token)).status).toBe(401);
    // Promoted again, the old key stays revoked.
    await owner.session.updateMember({ path: { slug: 'acme', userId: demoted.userId }, body: { role: 'admin' } });
    expect((await poll(demoted.key.token)).status).toBe(401);

    const coOwner = await adminWithKey('co-owner@example.com', 'owner');
    await owner.session.updateMember({ path: { slug: 'acme', userId: coOwner.userId }, body: { role: 'admin' } });
    expect((await poll(coOwner.key.token)).status).toBe(200);
  });
});

describe('deleting an organization', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let orgId: string;

  beforeAll(async () => {
    t = await startServerWithMail(null);
    owner = await claim(t);
    orgId = (await owner.session.getOrg({ path: { slug: 'acme' } })).id;
  });
  afterAll(() => t?.close());

  it('spec "Code catalog" invalid_confirmation: deleting an org is owner-only and needs the slug typed as confirm (400 invalid_confirmation)', async () => {
    const admin = await seedUser(t.server.deps.db, 'admin@example.com', { orgId, role: 'admin' });
    await expectApiError(t.asSession(admin.sessionToken).deleteOrg({ path: { slug: 'acme' }, body: { confirm: 'acme' } }), 403, 'insufficient_role');
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ci' } });
    await expectApiError(withBearer(t, token).deleteOrg({ path: { slug: 'acme' }, body: { confirm: 'acme' } }), 403, 'scope_denied');
    const stranger = await seedUser(t.server.deps.db, 'stranger@example.com');
    await expectApiError(t.asSession(stranger.sessionToken).deleteOrg({ path: { slug: 'acme' }, body: { confirm: 'acme' } }), 404, 'not_found');

    const missing = await expectApiError(owner.session.deleteOrg({ path: { slug: 'acme' } }), 400, 'invalid_confirmation');
    expect(missing.fields).toEqual({ confirm: expect.any(String) });
    const empty = await expectApiError(owner.session.deleteOrg({ path: { slug: 'acme' }, body: {} }), 400, 'invalid_confirmation');
    expect(empty.fields).toHaveProperty('confirm');
    const wrong = await expectApiError(owner.session.deleteOrg({ path: { slug: 'acme' }, body: { confirm: 'ACME' } }), 400, 'invalid_confirmation');
    expect(wrong.fields).toEqual({ confirm: 'does not match the organization slug' });
    expect((await owner.session.getOrg({ path: { slug: 'acme' } })).id).toBe(orgId);
  });

  it('removes everything of the org in one go and leaves other orgs and the users alone', async () => {
    const s = owner.session;
    const other = await s.createOrg({ body: { name: 'Other', slug: 'other' } });
    const otherProject = await s.createProject({ path: { slug: 'other' }, body: { key: 'web', name: 'Web' } });
    await s.createEnvironment({ path: { id: otherProject.id }, body: { key: 'prod', name: 'Prod' } });

    const project = await s.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    const env = await s.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } });
    await s.createFlag({ path: { id: project.id }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    await s.createConfig({ path: { id: project.id }, body: { key: 'limits', name: 'Limits', defaultValue: { n: 1 } } });
    await s.createRolloutPlan({
      path: { id: project.id },
      body: { key: 'slow', name: 'Slow', rampSteps: [{ percent: 10, holdForSeconds: 3600 }, { percent: 100, holdForSeconds: 0 }] },
    });
    await s.putFlagRollout({ path: { envId: env.id, key: 'checkout' }, body: { percent: 5, newValue: true } });
    await s.addFlagTargetIds({ path: { envId: env.id, key: 'checkout' }, body: { targetIds: ['u1', 'u2'] } });
    const secret = await s.createRollbackSecret({ path: { envId: env.id }, body: { name: 'alerts' } });
    const fire = await fetch(`${t.url}/api/v1/webhooks/rollback/envs/${env.id}/flags/checkout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret.token}` },
    });
    expect(fire.status).toBe(200);
    const key = await s.createApiKey({ path: { slug: 'acme' }, body: { name: 'doomed' } });
    await s.createInvitation({ path: { slug: 'acme' }, body: { email: 'invitee@example.com', role: 'member' } });

    const db = t.server.deps.db;
    const exec = (sql: string, params: unknown[] = []) => db.em().execute<Array<Record<string, unknown>>>(sql, params);
    const envIds = (await exec('select id from environments where org_id = ?', [orgId])).map((r) => String(r.id));
    const projectIds = (await exec('select id from projects where org_id = ?', [orgId])).map((r) => String(r.id));
    const rolloutIds = (await exec('select id from rollouts where org_id = ?', [orgId])).map((r) => String(r.id));
    expect(rolloutIds.length).toBeGreaterThan(0);
    /** Rows anywhere in the database that still point at the deleted org. */
    const leftovers = async () => {
      const columns = await exec(
        `select table_name, column_name from information_schema.columns
          where table_schema = current_schema() and column_name in ('org_id', 'env_id', 'project_id', 'rollout_id')
            and table_name not like 'mikro_orm%'`,
      );
      const ids: Record<string, string[]> = { org_id: [orgId], env_id: envIds, project_id: projectIds, rollout_id: rolloutIds };
      const found: Record<string, number> = {};
      for (const { table_name, column_name } of columns) {
        const values = ids[String(column_name)]!;
        if (!values.length) continue;
        const [row] = await exec(
          `select count(*)::int as n from "${String(table_name)}" where "${String(column_name)}"::text in (${values.map(() => '?').join(', ')})`,
          values,
        );
        if (Number(row!.n) > 0) found[`${String(table_name)}.${String(column_name)}`] = Number(row!.n);
      }
      const [orgRow] = await exec('select count(*)::int as n from orgs where id = ?', [orgId]);
      if (Number(orgRow!.n) > 0) found.orgs = Number(orgRow!.n);
      return found;
    };
    expect(Object.keys(await leftovers()).length).toBeGreaterThan(5); // the check sees the data

    await s.deleteOrg({ path: { slug: 'acme' }, body: { confirm: 'acme' } });

    expect(await leftovers()).toEqual({});
    await expectApiError(s.getOrg({ path: { slug: 'acme' } }), 404, 'not_found');
    await expectApiError(s.getProject({ path: { id: project.id } }), 404, 'not_found');
    await expectApiError(t.asToken(key.token).listProjects({ path: { slug: 'acme' } }), 401, 'unauthorized');
    const me = await s.getSession();
    expect(me.organizations.map((o) => o.slug)).toEqual(['other']);
    expect((await s.getOrg({ path: { slug: 'other' } })).id).toBe(other.id);
    expect((await s.listProjects({ path: { slug: 'other' } })).map((p) => p.key)).toEqual(['web']);
    const [users] = await exec('select count(*)::int as n from users');
    expect(Number(users!.n)).toBe(3); // owner, admin, stranger

    // The slug is free again.
    expect((await s.createOrg({ body: { name: 'Acme again', slug: 'acme' } })).slug).toBe('acme');
  });
});
