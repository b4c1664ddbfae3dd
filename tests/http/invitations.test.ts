import { createClient } from '@gradual/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open, startMailSink, startServerWithMail, type MailSink } from '../support/mail.js';
import { claim, expectApiError, sessionTokenFrom, type ClaimedInstance, type TestServer } from '../support/server.js';
import { seedUser } from '../support/users.js';

const DAY = 24 * 3600;

describe('from an empty self-hosted instance to a signed-in teammate', () => {
  let sink: MailSink;
  let t: TestServer;

  beforeAll(async () => {
    sink = await startMailSink();
    t = await startServerWithMail(sink);
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('spec "Authentication and onboarding" 9: accept answers the Session with Set-Cookie, attaches the membership and marks the invitation used (preview and accept then answer 410 invitation_used)', async () => {
    // The owner claims the empty instance.
    const owner = await claim(t, { orgName: 'Acme', orgSlug: 'acme' });

    // … and invites a teammate.
    const invitation = await owner.session.createInvitation({ path: { slug: 'acme' }, body: { email: 'Teammate@Example.com', role: 'admin' } });
    expect(invitation).toEqual({
      id: expect.any(String),
      email: 'teammate@example.com',
      role: 'admin',
      status: 'pending',
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).toBe(7 * DAY * 1000);

    // The teammate receives the mail; the only thing they have is its link.
    const mail = await sink.next('teammate@example.com');
    expect(mail.subject).toBe('Olive Owner invited you to Acme on Gradual');
    expect(mail.text).toContain('as an admin');
    const link = new URL(mail.link);
    expect(`${link.origin}`).toBe(t.server.url);
    expect(link.pathname).toMatch(/^\/app\/invite\/[A-Za-z0-9]{43}$/);

    // Opening the link loads the dashboard's invitation page …
    const page = await fetch(mail.link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    // … which previews the invitation with the token from its own URL, unauthenticated.
    const token = link.pathname.split('/').pop()!;
    expect(await t.anonymous.getInvitation({ path: { token } })).toEqual({ orgName: 'Acme', role: 'admin', email: 'teammate@example.com' });

    // Accepting signs the teammate in.
    const { data: session, response } = await t.anonymous.withResponse.acceptInvitation({ path: { token }, body: { displayName: 'Tess Teammate' } });
    expect(session.user).toMatchObject({ email: 'teammate@example.com', displayName: 'Tess Teammate' });
    expect(session.organizations).toEqual([{ id: expect.any(String), slug: 'acme', name: 'Acme', role: 'admin' }]);
    expect(response.headers.get('set-cookie')).toMatch(/svc_session=[^;]+;.*HttpOnly/i);
    const teammate = t.asSession(sessionTokenFrom(response));
    expect((await teammate.getSession()).user.id).toBe(session.user.id);
    expect((await teammate.listMembers({ path: { slug: 'acme' } })).map((m) => [m.email, m.role])).toEqual([
      ['owner@example.com', 'owner'],
      ['teammate@example.com', 'admin'],
    ]);
    expect((await owner.session.listInvitations({ path: { slug: 'acme' } }))[0]).toMatchObject({ id: invitation.id, status: 'used' });

    // The link is spent.
    await expectApiError(t.anonymous.getInvitation({ path: { token } }), 410, 'invitation_used');
    await expectApiError(t.anonymous.acceptInvitation({ path: { token }, body: { displayName: 'Again' } }), 410, 'invitation_used');
  });
});

describe('invitations', () => {
  let sink: MailSink;
  let t: TestServer;
  let owner: ClaimedInstance;
  let orgId: string;

  /** Invites through the API and returns the token from the mail that arrives. */
  const invite = async (email: string, role: 'owner' | 'admin' | 'member' = 'member', by = owner.session) => {
    const invitation = await by.createInvitation({ path: { slug: 'acme' }, body: { email, role } });
    const mail = await sink.next(email);
    return { invitation, token: new URL(mail.link).pathname.split('/').pop()! };
  };

  beforeAll(async () => {
    sink = await startMailSink();
    t = await startServerWithMail(sink);
    owner = await claim(t);
    orgId = (await owner.session.getOrg({ path: { slug: 'acme' } })).id;
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('spec "Code catalog" invitation_pending and already_member: a second live invitation and an invitation of a member answer 409', async () => {
    await invite('dup@example.com');
    const pending = await expectApiError(
      owner.session.createInvitation({ path: { slug: 'acme' }, body: { email: 'DUP@example.com', role: 'admin' } }),
      409,
      'invitation_pending',
    );
    expect(pending.fields).toEqual({ email: 'already invited' });
    await expectApiError(
      owner.session.createInvitation({ path: { slug: 'acme' }, body: { email: 'owner@example.com', role: 'member' } }),
      409,
      'already_member',
    );
    const bad = await expectApiError(
      owner.session.createInvitation({ path: { slug: 'acme' }, body: { email: 'nope', role: 'boss' as never } }),
      400,
      'invalid_request',
    );
    expect(Object.keys(bad.fields ?? {}).sort()).toEqual(['email', 'role']);
  });

  it('spec "Other one-shot resources" 2: an invitation expires after 7 days (410 invitation_expired to preview and accept); an expired one no longer blocks a new invitation', async () => {
    await t.setClock(new Date(Date.now() + 60_000)); // pinned: only advanceClock moves it from here on
    const { invitation, token } = await invite('late@example.com');
    await t.advanceClock(7 * DAY - 1);
    expect(await t.anonymous.getInvitation({ path: { token } })).toMatchObject({ email: 'late@example.com' });
    await t.advanceClock(1);
    await expectApiError(t.anonymous.getInvitation({ path: { token } }), 410, 'invitation_expired');
    await expectApiError(t.anonymous.acceptInvitation({ path: { token }, body: { displayName: 'Late' } }), 410, 'invitation_expired');
    const listed = await owner.session.listInvitations({ path: { slug: 'acme' } });
    expect(listed.find((i) => i.id === invitation.id)?.status).toBe('expired');
    const fresh = await invite('late@example.com');
    expect((await t.anonymous.acceptInvitation({ path: { token: fresh.token }, body: { displayName: 'Late' } })).organizations[0]!.role).toBe('member');
  });

  it('spec "Authentication and onboarding" 8: invitation preview and accept answer 404 not_found for unknown, forged and malformed tokens', async () => {
    const forged = 'A'.repeat(43);
    await expectApiError(t.anonymous.getInvitation({ path: { token: forged } }), 404, 'not_found');
    await expectApiError(t.anonymous.acceptInvitation({ path: { token: forged }, body: { displayName: 'X' } }), 404, 'not_found');
    await expectApiError(t.anonymous.getInvitation({ path: { token: 'short' } }), 404, 'not_found');
    await expectApiError(t.anonymous.getInvitation({ path: { token: 'x'.repeat(2000) } }), 404, 'not_found');
  });

  it('revokes: the link stops working (404), the list forgets it; idempotent; an accepted one is 410', async () => {
    const { invitation, token } = await invite('revoked@example.com');
    await owner.session.revokeInvitation({ path: { slug: 'acme', id: invitation.id } });
    await owner.session.revokeInvitation({ path: { slug: 'acme', id: invitation.id } });
    await expectApiError(t.anonymous.getInvitation({ path: { token } }), 404, 'not_found');
    await expectApiError(t.anonymous.acceptInvitation({ path: { token }, body: { displayName: 'R' } }), 404, 'not_found');
    expect((await owner.session.listInvitations({ path: { slug: 'acme' } })).map((i) => i.id)).not.toContain(invitation.id);
    await expectApiError(owner.session.revokeInvitation({ path: { slug: 'acme', id: '00000000-0000-4000-8000-000000000000' } }), 404, 'not_found');
    await expectApiError(owner.session.revokeInvitation({ path: { slug: 'acme', id: 'not-a-uuid' } }), 404, 'not_found');

    const used = await invite('used@example.com');
    await t.anonymous.acceptInvitation({ path: { token: used.token }, body: { displayName: 'U' } });
    await expectApiError(owner.session.revokeInvitation({ path: { slug: 'acme', id: used.invitation.id } }), 410, 'invitation_used');
  });

  it('an existing user joins with their account (name kept); a soft-deleted one is locked out (invitation_email_locked)', async () => {
    const elsewhere = await seedUser(t.server.deps.db, 'known@example.com');
    const { token } = await invite('known@example.com', 'admin');
    const session = await t.anonymous.acceptInvitation({ path: { token }, body: { displayName: 'Ignored' } });
    expect(session.user).toEqual({ id: elsewhere.userId, email: 'known@example.com', displayName: 'known' });

    // Removed, invited again, then the account is deleted: the new invitation cannot be used.
    await owner.session.removeMember({ path: { slug: 'acme', userId: elsewhere.userId } });
    const again = await invite('known@example.com');
    await t.server.deps.db.em().execute('update users set deleted_at = now() where id = ?', [elsewhere.userId]);
    expect(await t.anonymous.getInvitation({ path: { token: again.token } })).toMatchObject({ email: 'known@example.com' });
    await expectApiError(t.anonymous.acceptInvitation({ path: { token: again.token }, body: { displayName: 'K' } }), 410, 'invitation_email_locked');
    // Nothing half-done: still pending, no membership.
    expect((await owner.session.listInvitations({ path: { slug: 'acme' } })).find((i) => i.id === again.invitation.id)?.status).toBe('pending');
    expect((await owner.session.listMembers({ path: { slug: 'acme' } })).map((m) => m.email)).not.toContain('known@example.com');
    // And such an address cannot be invited any more.
    await owner.session.revokeInvitation({ path: { slug: 'acme', id: again.invitation.id } });
    await expectApiError(
      owner.session.createInvitation({ path: { slug: 'acme' }, body: { email: 'known@example.com', role: 'member' } }),
      410,
      'invitation_email_locked',
    );
  });

  it('two concurrent accepts of one invitation: one session, one invitation_used', async () => {
    const { token } = await invite('racer@example.com');
    const results = await Promise.allSettled([
      t.anonymous.acceptInvitation({ path: { token }, body: { displayName: 'Racer' } }),
      t.anonymous.acceptInvitation({ path: { token }, body: { displayName: 'Racer' } }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ status: 410, code: 'invitation_used' });
    const [{ n }] = await t.server.deps.db.em().execute<[{ n: number }]>('select count(*)::int as n from users where email = ?', ['racer@example.com']);
    expect(n).toBe(1);
  });

  it('validates the accept body', async () => {
    const { token } = await invite('blank@example.com');
    const err = await expectApiError(t.anonymous.acceptInvitation({ path: { token }, body: { displayName: '   ' } }), 400, 'invalid_request');
    expect(err.fields).toHaveProperty('displayName');
  });

  it('admins invite members and admins; only owners invite owners; members cannot invite; tokens and strangers cannot either', async () => {
    const admin = await seedUser(t.server.deps.db, 'admin@example.com', { orgId, role: 'admin' });
    const member = await seedUser(t.server.deps.db, 'member@example.com', { orgId, role: 'member' });
    const adminApi = t.asSession(admin.sessionToken);
    const memberApi = t.asSession(member.sessionToken);

    await invite('by-admin@example.com', 'admin', adminApi);
    await expectApiError(adminApi.createInvitation({ path: { slug: 'acme' }, body: { email: 'boss@example.com', role: 'owner' } }), 403, 'insufficient_role');
    await invite('boss@example.com', 'owner');
    await expectApiError(memberApi.createInvitation({ path: { slug: 'acme' }, body: { email: 'x@example.com', role: 'member' } }), 403, 'insufficient_role');
    await expectApiError(memberApi.listInvitations({ path: { slug: 'acme' } }), 403, 'insufficient_role');
    expect((await adminApi.listInvitations({ path: { slug: 'acme' } })).length).toBeGreaterThan(0);

    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ci' } });
    // The SDK sends a key only where the contract accepts one: force the header, as a script might (straight to the server: off-contract on purpose).
    const bearer = createClient({ baseUrl: t.server.url, headers: { authorization: `Bearer ${token}` } });
    await expectApiError(bearer.createInvitation({ path: { slug: 'acme' }, body: { email: 'x@example.com', role: 'member' } }), 403, 'scope_denied');
    await expectApiError(bearer.listInvitations({ path: { slug: 'acme' } }), 403, 'scope_denied');
    await expectApiError(t.anonymous.createInvitation({ path: { slug: 'acme' }, body: { email: 'x@example.com', role: 'member' } }), 401, 'unauthorized');

    const stranger = await seedUser(t.server.deps.db, 'stranger@example.com');
    await expectApiError(t.asSession(stranger.sessionToken).createInvitation({ path: { slug: 'acme' }, body: { email: 'x@example.com', role: 'member' } }), 404, 'not_found');
    await expectApiError(t.asSession(stranger.sessionToken).listInvitations({ path: { slug: 'acme' } }), 404, 'not_found');
    await expectApiError(t.asSession(stranger.sessionToken).revokeInvitation({ path: { slug: 'acme', id: '00000000-0000-4000-8000-000000000000' } }), 404, 'not_found');
  });

  it('writes audit rows (resourceType invitation) for create, revoke and accept', async () => {
    const { invitation, token } = await invite('audited@example.com');
    const accepted = await t.anonymous.acceptInvitation({ path: { token }, body: { displayName: 'Audited' } });
    const revoked = await invite('audited-revoked@example.com');
    await owner.session.revokeInvitation({ path: { slug: 'acme', id: revoked.invitation.id }, headers: { 'x-audit-reason': 'typo' } });

    const events = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'invitation', limit: 200 } })).events;
    const about = (id: string) => events.filter((e) => e.resourceId === id).map((e) => [e.action, e.actorId, e.reason]);
    expect(about(invitation.id)).toEqual([
      ['invitation.accepted', accepted.user.id, null],
      ['invitation.created', owner.userId, null],
    ]);
    expect(about(revoked.invitation.id)).toEqual([
      ['invitation.revoked', owner.userId, 'typo'],
      ['invitation.created', owner.userId, null],
    ]);
    const created = events.find((e) => e.resourceId === invitation.id && e.action === 'invitation.created')!;
    const detail = await owner.session.getAuditEvent({ path: { id: created.id } });
    expect(detail.newValue).toMatchObject({ email: 'audited@example.com', role: 'member', status: 'pending' });
    expect(JSON.stringify(detail)).not.toContain(token);
    const members = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'member', actorId: accepted.user.id } })).events;
    expect(members.map((e) => e.action)).toEqual(['member.added']);
  });

  it('the invitation page is the dashboard; the invite link does not sign anyone in by itself', async () => {
    const { token } = await invite('page@example.com');
    const page = await open(`${t.server.url}/app/invite/${token}`);
    expect(page.status).toBe(200);
    expect(page.sessionToken).toBeNull();
    expect(await t.anonymous.getInvitation({ path: { token } })).toMatchObject({ email: 'page@example.com' });
  });
});
