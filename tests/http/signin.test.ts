import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { open, startMailSink, startServerWithMail, type MailSink } from '../support/mail.js';
import { claim, expectApiError, type ClaimedInstance, type TestServer } from '../support/server.js';
import { seedUser } from '../support/users.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const TOKEN = /^[A-Za-z0-9]{43}$/;
const tokenOf = (link: string) => new URL(link).searchParams.get('t') ?? '';
const rows = (t: TestServer, sql: string, params: unknown[] = []) => t.server.deps.db.em().execute<Array<Record<string, unknown>>>(sql, params);

describe('magic-link sign-in', () => {
  let sink: MailSink;
  let t: TestServer;
  let owner: ClaimedInstance;
  /** Every raw credential the server handed out in this file, for the "hashes only" check. */
  const secrets: Record<string, string[]> = { session: [], magicLink: [], invitation: [], apiKey: [], rollbackSecret: [] };

  // A minute apart: an address gets at most one sign-in mail a minute.
  const ask = async (email: string) => {
    await t.advanceClock(60);
    return t.anonymous.requestMagicLink({ body: { email } });
  };
  const linkFor = async (email: string) => {
    expect(await ask(email)).toEqual({ sent: true });
    const mail = await sink.next(email);
    secrets.magicLink!.push(tokenOf(mail.link));
    return mail.link;
  };
  const invite = async (email: string, role: 'owner' | 'admin' | 'member' = 'member') => {
    const invitation = await owner.session.createInvitation({ path: { slug: 'acme' }, body: { email, role } });
    const mail = await sink.next(email);
    secrets.invitation!.push(mail.link.split('/').pop()!);
    return { invitation, link: mail.link };
  };

  beforeAll(async () => {
    sink = await startMailSink();
    t = await startServerWithMail(sink);
    owner = await claim(t);
    secrets.session!.push(owner.sessionToken);
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('spec "Authentication and onboarding" 2: a magic link signs in with a 303 to /app/ and the session cookie; a second use redirects with error=magic_link_already_used', async () => {
    expect(await ask('Owner@Example.com')).toEqual({ sent: true }); // addresses are case-insensitive
    const mail = await sink.next('owner@example.com');
    expect(mail.subject).toBe('Your Gradual sign-in link');
    expect(mail.from).toContain('no-reply@127.0.0.1');
    expect(mail.link.startsWith(`${t.server.url}/api/v1/auth/link?t=`)).toBe(true);
    expect(tokenOf(mail.link)).toMatch(TOKEN);
    expect(mail.text).toContain('expires in 15 minutes');
    secrets.magicLink!.push(tokenOf(mail.link));

    const first = await open(mail.link);
    expect(first.status).toBe(303);
    expect(first.location).toBe('/app/');
    expect(first.response.headers.get('cache-control')).toBe('no-store');
    expect(first.response.headers.get('set-cookie')).toMatch(/svc_session=[^;]+;.*HttpOnly/i);
    expect(first.response.headers.get('set-cookie')).toMatch(/SameSite=Lax/i);
    secrets.session!.push(first.sessionToken!);
    const me = await t.asSession(first.sessionToken!).getSession();
    expect(me.user).toMatchObject({ id: owner.userId, email: 'owner@example.com' });
    expect(me.organizations).toEqual([expect.objectContaining({ slug: 'acme', role: 'owner' })]);

    const again = await open(mail.link);
    expect(again).toMatchObject({ status: 303, location: '/app/signin?error=magic_link_already_used', sessionToken: null });
  });

  it('spec "Authentication" 2: a magic link is valid for 15 minutes after issue, then redirects with error=magic_link_expired', async () => {
    await t.setClock(new Date(Date.now() + 60_000)); // pinned: only advanceClock moves it from here on
    const early = await linkFor('owner@example.com');
    const late = await linkFor('owner@example.com'); // a minute later
    await t.advanceClock(15 * 60 - 60 - 1);
    expect(await open(early)).toMatchObject({ status: 303, location: '/app/' });
    await t.advanceClock(60 + 1);
    expect(await open(late)).toMatchObject({ status: 303, location: '/app/signin?error=magic_link_expired', sessionToken: null });
  });

  it('spec "Authentication and onboarding" 2: forged, malformed and missing link tokens redirect with error=magic_link_invalid', async () => {
    const base = `${t.server.url}/api/v1/auth/link`;
    const forged = randomBytes(64).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, 43);
    for (const url of [`${base}?t=${forged}`, `${base}?t=abc`, `${base}?t=${'x'.repeat(5000)}`, base, `${base}?t=`]) {
      expect(await open(url)).toMatchObject({ status: 303, location: '/app/signin?error=magic_link_invalid', sessionToken: null });
    }
    // Credentials that come along are ignored, not answered with 401.
    const withJunk = await open(`${base}?t=${forged}`, { headers: { authorization: 'Bearer nonsense', cookie: 'svc_session=stale' } });
    expect(withJunk.location).toBe('/app/signin?error=magic_link_invalid');
    // Only an unreadable query is an envelope.
    const twice = await fetch(`${base}?t=a&t=b`, { redirect: 'manual' });
    expect(twice.status).toBe(400);
    expect(await twice.json()).toMatchObject({ code: 'invalid_request', requestId: expect.any(String) });
  });

  it('spec "Authentication and onboarding" 1: POST /auth/magic-link answers {sent: true} for an unknown address too, and mails nothing', async () => {
    expect(await ask('nobody@example.com')).toEqual({ sent: true });
    await linkFor('owner@example.com');
    await t.server.deps.mailer.idle();
    expect(sink.pending('nobody@example.com')).toEqual([]);
    await expectApiError(ask('not-an-address'), 400, 'invalid_request').then((e) => expect(e.fields).toHaveProperty('email'));
  });

  it('a new address with a pending invitation: the link creates the user, who joins with the invited role', async () => {
    const { invitation } = await invite('newbie@example.com', 'admin');
    const link = await linkFor('newbie@example.com');
    const opened = await open(link);
    expect(opened).toMatchObject({ status: 303, location: '/app/' });
    secrets.session!.push(opened.sessionToken!);
    const me = await t.asSession(opened.sessionToken!).getSession();
    expect(me.user).toMatchObject({ email: 'newbie@example.com', displayName: 'newbie' });
    expect(me.organizations).toEqual([expect.objectContaining({ slug: 'acme', role: 'admin' })]);
    const listed = await owner.session.listInvitations({ path: { slug: 'acme' } });
    expect(listed.find((i) => i.id === invitation.id)?.status).toBe('used');
    const audit = await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { actorId: me.user.id } });
    expect(audit.events.map((e) => [e.action, e.resourceType])).toEqual([
      ['member.added', 'member'],
      ['invitation.accepted', 'invitation'],
    ]);
  });

  it('spec "Code catalog" no_invitation: a link for an address that has neither an account nor a pending invitation any more', async () => {
    const { invitation } = await invite('ghost@example.com');
    const link = await linkFor('ghost@example.com');
    await owner.session.revokeInvitation({ path: { slug: 'acme', id: invitation.id } });
    expect(await open(link)).toMatchObject({ status: 303, location: '/app/signin?error=no_invitation', sessionToken: null });
    // Nothing was created and the link was not spent by the failure.
    expect(await rows(t, 'select id from users where email = ?', ['ghost@example.com'])).toEqual([]);
    expect(await open(link)).toMatchObject({ location: '/app/signin?error=no_invitation' });
  });

  it('a soft-deleted user gets no link, and a link issued before the deletion gives no_invitation', async () => {
    const gone = await seedUser(t.server.deps.db, 'gone@example.com');
    const link = await linkFor('gone@example.com');
    await t.server.deps.db.em().execute('update users set deleted_at = now() where id = ?', [gone.userId]);
    expect(await ask('gone@example.com')).toEqual({ sent: true });
    await t.server.deps.mailer.idle();
    expect(sink.pending('gone@example.com')).toEqual([]);
    expect(await open(link)).toMatchObject({ location: '/app/signin?error=no_invitation', sessionToken: null });
  });

  it('two concurrent redemptions of one link: exactly one session', async () => {
    const link = await linkFor('owner@example.com');
    const count = async () => Number((await rows(t, 'select count(*)::int as n from sessions where user_id = ?', [owner.userId]))[0]!.n);
    const before = await count();
    const results = await Promise.all([open(link), open(link), open(link)]);
    const winners = results.filter((r) => r.location === '/app/');
    expect(winners).toHaveLength(1);
    expect(winners[0]!.sessionToken).toBeTruthy();
    expect(results.filter((r) => r.location === '/app/signin?error=magic_link_already_used')).toHaveLength(2);
    expect(await count()).toBe(before + 1);
  });

  it('keeps answering {sent: true} when SMTP fails: retries with back-off, then logs and gives up', async () => {
    // (5 links an hour per address from one client address: owner@example.com has had its five.)
    await seedUser(t.server.deps.db, 'smtp@example.com');
    const refusedBefore = sink.refused;
    sink.failNext(1);
    const recovered = await linkFor('smtp@example.com'); // the first attempt is refused, the retry lands
    expect(tokenOf(recovered)).toMatch(TOKEN);
    expect(sink.refused).toBe(refusedBefore + 1);

    sink.failNext(10);
    expect(await ask('smtp@example.com')).toEqual({ sent: true });
    await t.server.deps.mailer.idle();
    expect(sink.refused).toBe(refusedBefore + 4); // three attempts, all refused: then it gives up
    sink.failNext(0);
    expect(sink.pending('smtp@example.com')).toEqual([]);
    expect(await open(recovered)).toMatchObject({ location: '/app/' });
  });

  it('spec "Authentication and onboarding" public signup: on self-hosted without SERVICE_PUBLIC_SIGNUP, install-state and signup answer 404 (even for a bad body)', async () => {
    await expectApiError(t.anonymous.signup({ body: { email: 'a@example.com', displayName: 'A', orgName: 'A' } }), 404, 'not_found');
    await expectApiError(t.anonymous.signup({ body: { email: 'nope' } as never }), 404, 'not_found');
    await expectApiError(t.anonymous.getInstallState(), 404, 'not_found');
  });

  it('spec "Authentication" 6: only SHA-256 hashes are stored — no raw session, magic-link, invitation, API-key or rollback-secret token in the database', async () => {
    const key = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ci' } });
    secrets.apiKey!.push(key.token);
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    const env = await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } });
    const rb = await owner.session.createRollbackSecret({ path: { envId: env.id }, body: { name: 'alerts' } });
    secrets.rollbackSecret!.push(rb.token);

    const tables: Record<string, string> = {
      session: 'sessions',
      magicLink: 'magic_links',
      invitation: 'invitations',
      apiKey: 'api_keys',
      rollbackSecret: 'rollback_webhook_secrets',
    };
    // Every text-like column of every one of these tables, row by row.
    const columns = await rows(
      t,
      `select table_name, column_name from information_schema.columns
        where table_schema = current_schema() and table_name in (${Object.values(tables).map(() => '?').join(', ')})
          and data_type in ('text', 'character varying', 'jsonb', 'json')`,
      Object.values(tables),
    );
    const allTokens = Object.values(secrets).flat();
    for (const [kind, table] of Object.entries(tables)) {
      const tokens = secrets[kind]!;
      expect(tokens.length, kind).toBeGreaterThan(0);
      const cols = columns.filter((c) => c.table_name === table).map((c) => String(c.column_name));
      expect(cols).toContain('token_hash');
      const values = (await rows(t, `select ${cols.map((c) => `"${c}"::text as "${c}"`).join(', ')} from "${table}"`)).flatMap((r) =>
        Object.values(r).map((v) => (typeof v === 'string' ? v : '')),
      );
      for (const token of allTokens) {
        expect(token.length).toBeGreaterThanOrEqual(32);
        expect(values.some((v) => v.includes(token)), `${table} holds a raw token`).toBe(false);
      }
      // The check is not vacuous: each credential is there, as its hash.
      for (const token of tokens) expect(values, `${table} has the hash of a ${kind} token`).toContain(sha256(token));
    }
  });
});

describe('mail without SMTP_URL', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await startServerWithMail(null);
    owner = await claim(t);
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(() => t?.close());

  const capture = () => {
    lines.length = 0;
    const write = process.stdout.write.bind(process.stdout);
    vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
      const text = String(chunk);
      if (text.startsWith('mail ')) {
        lines.push(text);
        return true;
      }
      return write(chunk, ...rest);
    }) as typeof process.stdout.write);
  };

  it('writes exactly one stdout line per mail, `mail to=… subject=… link=…`, and the link works', async () => {
    capture();
    await t.anonymous.requestMagicLink({ body: { email: 'owner@example.com' } });
    expect(lines).toHaveLength(1);
    const match = /^mail to=owner@example\.com subject=Your Gradual sign-in link link=(\S+)\n$/.exec(lines[0]!);
    expect(match, lines[0]).not.toBeNull();
    expect(await open(match![1]!)).toMatchObject({ status: 303, location: '/app/' });

    capture();
    await owner.session.createInvitation({ path: { slug: 'acme' }, body: { email: 'mate@example.com', role: 'member' } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^mail to=mate@example\\.com subject=Olive Owner invited you to Acme on Gradual link=${t.server.url}/app/invite/[A-Za-z0-9]{43}\\n$`));
  });
});

describe('magic-link rate limits', () => {
  let sink: MailSink;
  let t: TestServer;
  let owner: ClaimedInstance;

  beforeAll(async () => {
    sink = await startMailSink();
    t = await startServerWithMail(sink);
    owner = await claim(t);
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('spec "Limits" magic-link requests: 20 an hour per client IP (and 5 an hour per address from one IP, one a minute); over a limit it still answers {sent: true}', async () => {
    const users = [];
    for (let i = 0; i < 16; i++) users.push(`user${i}@example.com`);
    for (const email of users) await seedUser(t.server.deps.db, email);
    const ask = (email: string) => t.anonymous.requestMagicLink({ body: { email } });

    // Within a minute: one mail, whatever the number of requests.
    expect(await ask(users[0]!)).toEqual({ sent: true });
    expect(await ask(users[0]!)).toEqual({ sent: true });
    await t.server.deps.mailer.idle();
    expect(sink.pending(users[0]!)).toHaveLength(1);
    // A minute apart: the address and IP's fifth request is its last mailed this hour.
    for (let i = 0; i < 4; i++) {
      await t.advanceClock(60);
      expect(await ask(users[0]!)).toEqual({ sent: true });
    }
    await t.server.deps.mailer.idle();
    expect(sink.pending(users[0]!)).toHaveLength(4);

    // 6 requests so far from 127.0.0.1: 14 more reach the IP's 20.
    for (const email of users.slice(1, 15)) await ask(email);
    await t.server.deps.mailer.idle();
    for (const email of users.slice(1, 15)) expect(sink.pending(email), email).toHaveLength(1);

    expect(await ask(users[15]!)).toEqual({ sent: true });
    await t.server.deps.mailer.idle();
    expect(sink.pending(users[15]!)).toEqual([]);
    // Other mail is not limited by sign-in requests.
    await owner.session.createInvitation({ path: { slug: 'acme' }, body: { email: 'later@example.com', role: 'member' } });
    expect((await sink.next('later@example.com')).link).toContain('/app/invite/');
  });
});

describe('public signup on the hosted topology', () => {
  let sink: MailSink;
  let t: TestServer;

  beforeAll(async () => {
    sink = await startMailSink();
    t = await startServerWithMail(sink, { SERVICE_TOPOLOGY: 'hosted' });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  const signup = async (email: string, orgName: string, displayName = 'Fay Founder') => {
    await t.advanceClock(60); // an address gets at most one signup mail a minute
    expect(await t.anonymous.signup({ body: { email, displayName, orgName } })).toEqual({ sent: true });
    return (await sink.next(email)).link;
  };

  it('mounts install-state and signup, not install-claim', async () => {
    expect(await t.anonymous.getInstallState()).toEqual({ claimed: false, signupEnabled: true });
    await expectApiError(
      t.anonymous.claimInstall({ body: { email: 'x@example.com', displayName: 'X', orgName: 'X', orgSlug: 'x' } }),
      404,
      'not_found',
    );
    await expectApiError(t.anonymous.getClaimState(), 404, 'not_found');
  });

  it('spec "Authentication and onboarding" 6: signup creates the user and the organization (slug derived from the name) only when the mailed link is redeemed; install-state claimed turns true then', async () => {
    const link = await signup('founder@globex.test', 'Globex Corp.');
    const mail = sink.received.find((m) => m.link === link)!;
    expect(mail.subject).toBe('Finish creating Globex Corp. on Gradual');
    // Nothing exists until the link is followed.
    expect(await t.anonymous.getInstallState()).toEqual({ claimed: false, signupEnabled: true });
    const opened = await open(link);
    expect(opened).toMatchObject({ status: 303, location: '/app/' });
    const me = await t.asSession(opened.sessionToken!).getSession();
    expect(me.user).toMatchObject({ email: 'founder@globex.test', displayName: 'Fay Founder' });
    expect(me.organizations).toEqual([{ id: expect.any(String), slug: 'globex-corp', name: 'Globex Corp.', role: 'owner' }]);
    expect(await t.anonymous.getInstallState()).toEqual({ claimed: true, signupEnabled: true });
    const audit = await t.asSession(opened.sessionToken!).listAuditEvents({ path: { slug: 'globex-corp' } });
    expect(audit.events.map((e) => e.action)).toEqual(['member.added', 'org.created']);
    expect(await open(link)).toMatchObject({ location: '/app/signin?error=magic_link_already_used' });
  });

  it('spec "Authentication and onboarding" 6: signup answers 409 slug_unavailable when the derived slug is taken, 400 invalid_request for a bad body', async () => {
    const err = await expectApiError(
      t.anonymous.signup({ body: { email: 'copycat@example.com', displayName: 'C', orgName: 'GLOBEX corp' } }),
      409,
      'slug_unavailable',
    );
    expect(err.fields).toHaveProperty('orgName');
    const bad = await expectApiError(t.anonymous.signup({ body: { email: 'x', displayName: '', orgName: 'Y' } }), 400, 'invalid_request');
    expect(Object.keys(bad.fields ?? {}).sort()).toEqual(['displayName', 'email']);
  });

  it('a slug taken between request and redemption gets a suffix instead of failing the link', async () => {
    const first = await signup('a@initech.test', 'Initech');
    const second = await signup('b@initech.test', 'Initech');
    const a = await open(first);
    const b = await open(second);
    expect((await t.asSession(a.sessionToken!).getSession()).organizations[0]!.slug).toBe('initech');
    expect((await t.asSession(b.sessionToken!).getSession()).organizations[0]!.slug).toBe('initech-2');
  });

  it('an existing user who signs up again gets one more organization and keeps their name', async () => {
    const link = await signup('founder@globex.test', 'Hooli', 'Someone Else');
    const me = await t.asSession((await open(link)).sessionToken!).getSession();
    expect(me.user.displayName).toBe('Fay Founder');
    expect(me.organizations.map((o) => [o.slug, o.role])).toEqual([
      ['globex-corp', 'owner'],
      ['hooli', 'owner'],
    ]);
  });

  it('sign-in for an unknown address on hosted mails nothing', async () => {
    expect(await t.anonymous.requestMagicLink({ body: { email: 'stranger@example.com' } })).toEqual({ sent: true });
    await t.server.deps.mailer.idle();
    expect(sink.pending('stranger@example.com')).toEqual([]);
  });
});

describe('self-hosted with SERVICE_PUBLIC_SIGNUP=1', () => {
  let sink: MailSink;
  let t: TestServer;

  beforeAll(async () => {
    sink = await startMailSink();
    t = await startServerWithMail(sink, { SERVICE_PUBLIC_SIGNUP: '1' });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('spec "Authentication and onboarding" public signup: with SERVICE_PUBLIC_SIGNUP=1 a self-hosted instance mounts install-state and signup beside install-claim', async () => {
    expect(await t.anonymous.getInstallState()).toEqual({ claimed: false, signupEnabled: true });
    await claim(t);
    expect(await t.anonymous.getInstallState()).toEqual({ claimed: true, signupEnabled: true });
    await expectApiError(t.anonymous.signup({ body: { email: 'x@example.com', displayName: 'X', orgName: 'Acme' } }), 409, 'slug_unavailable');
    expect(await t.anonymous.signup({ body: { email: 'x@example.com', displayName: 'X', orgName: 'Umbrella' } })).toEqual({ sent: true });
    const opened = await open((await sink.next('x@example.com')).link);
    expect((await t.asSession(opened.sessionToken!).getSession()).organizations.map((o) => o.slug)).toEqual(['umbrella']);
  });
});
