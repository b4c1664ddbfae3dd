import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open, startMailSink, type MailSink } from '../support/mail.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * No credential reaches the log: the server logs at `debug` into memory while the test walks
 * through every way a secret travels (sign-in link, invitation link, preview and accept, API key,
 * rollback webhook, secrets misplaced into URLs), then the whole log is searched for each one.
 */
describe('secrets are never logged', () => {
  let sink: MailSink;
  let t: TestServer;
  let owner: ClaimedInstance;
  const lines: string[] = [];
  /** Every credential this test handled. */
  const secrets: string[] = [];
  const keep = (secret: string | null | undefined) => {
    expect(secret, 'a credential to look for').toBeTruthy();
    secrets.push(secret!);
    return secret!;
  };
  const pathOf = (link: string) => {
    const url = new URL(link);
    return `${url.pathname}${url.search}`;
  };

  beforeAll(async () => {
    sink = await startMailSink();
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    // Links in mails point at PUBLIC_URL; the test follows their paths on the server itself.
    t = await startTestServer({ SMTP_URL: sink.url, PUBLIC_URL: 'http://gradual.test' }, { logger });
    owner = await claim(t);
    keep(owner.sessionToken);
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('keeps sign-in links, invitations, API keys and rollback secrets out of every log line', async () => {
    // A sign-in link: requested, followed (303 with a session), followed again (already used).
    await t.anonymous.requestMagicLink({ body: { email: 'owner@example.com' } });
    const signIn = await sink.next('owner@example.com');
    const linkToken = keep(new URL(signIn.link).searchParams.get('t'));
    // Redirects are followed on the server itself: a validating proxy in front would follow them.
    const first = await open(`${t.server.url}${pathOf(signIn.link)}`);
    expect(first.status).toBe(303);
    keep(first.sessionToken);
    expect((await open(`${t.server.url}${pathOf(signIn.link)}`)).status).toBe(303);
    // The same token under other query names, and percent-encoded.
    await fetch(`${t.server.url}/api/v1/auth/link?%74=${linkToken}`, { redirect: 'manual' });
    await fetch(`${t.url}/api/v1/orgs?token=${linkToken}&cursor=x`, { headers: { cookie: `svc_session=${owner.sessionToken}` } });

    // An invitation: the mailed dashboard link, its preview, its acceptance.
    await owner.session.createInvitation({ path: { slug: 'acme' }, body: { email: 'teammate@example.com', role: 'member' } });
    const invitation = await sink.next('teammate@example.com');
    const invitationToken = keep(new URL(invitation.link).pathname.split('/').pop());
    expect((await fetch(`${t.server.url}${pathOf(invitation.link)}`)).status).toBe(200); // a dashboard page, not an API route
    expect((await fetch(`${t.url}/api/v1/invitations/${invitationToken}`)).status).toBe(200);
    const accepted = await fetch(`${t.url}/api/v1/invitations/${invitationToken}/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ displayName: 'Tess' }),
    });
    expect(accepted.status).toBe(200);
    keep(/svc_session=([^;]+)/.exec(accepted.headers.get('set-cookie') ?? '')?.[1]);
    // Used now: the refusals are logged too.
    expect((await fetch(`${t.url}/api/v1/invitations/${invitationToken}`)).status).toBe(410);

    // An API key, used (also refused) and misplaced into a URL.
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    const envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    await owner.session.putFlagRollout({ path: { envId, key: 'checkout' }, body: { percent: 10, newValue: true } });
    const apiKey = keep((await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'ci' } })).token);
    const asKey = { authorization: `Bearer ${apiKey}` };
    for (let i = 0; i < 3; i++) expect((await fetch(`${t.url}/api/v1/envs/${envId}/ruleset`, { headers: asKey })).status).toBe(200);
    expect((await fetch(`${t.url}/api/v1/envs/${envId}/flags/checkout/rollout/target-ids/contains/u1`, { headers: asKey })).status).toBe(200);
    expect((await fetch(`${t.url}/api/v1/envs/${envId}/flags/nope`, { headers: asKey })).status).toBe(404);
    const wrongKey = `${apiKey.slice(0, -1)}${apiKey.endsWith('x') ? 'y' : 'x'}`; // another last character, whatever it was
    expect((await fetch(`${t.url}/api/v1/orgs/acme`, { headers: { authorization: `Bearer ${wrongKey}` } })).status).toBe(401);
    await fetch(`${t.url}/api/v1/envs/${envId}/ruleset?api_key=${apiKey}`);
    await fetch(`${t.url}/api/v1/envs/${envId}/flags/${apiKey}`, { headers: asKey });
    // SDK and client keys (sdk_…, pub_…), sent as X-API-Key and misplaced into URLs.
    for (const kind of ['sdk', 'client'] as const) {
      const token = keep((await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: kind, kind, environments: [envId] } })).token);
      const evaluated = await fetch(`${t.url}/api/v1/envs/${envId}/evaluate`, {
        method: 'POST',
        headers: { 'x-api-key': token, 'content-type': 'application/json' },
        body: JSON.stringify({ context: {} }),
      });
      expect(evaluated.status).toBe(200);
      await fetch(`${t.url}/api/v1/envs/${envId}/flags/${token}`, { headers: { 'x-api-key': token } });
      await fetch(`${t.url}/api/v1/envs/${envId}/flags/${token.replace('_', '%5F')}`);
    }

    // A rollback webhook secret: fired, and misplaced into the path.
    const rollback = keep((await owner.session.createRollbackSecret({ path: { envId }, body: { name: 'alerts' } })).token);
    const fire = await fetch(`${t.url}/api/v1/webhooks/rollback/envs/${envId}/flags/checkout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rollback}`, 'content-type': 'application/json' },
      body: JSON.stringify({ alert: 'error rate' }),
    });
    expect(fire.status).toBe(200);
    await fetch(`${t.url}/api/v1/webhooks/rollback/envs/${envId}/flags/${rollback}`, { method: 'POST' });

    const log = lines.join('');
    // The walk was logged (at debug every answer has its line), with the secrets redacted.
    expect(log).toContain('/api/v1/auth/link?t=[redacted]');
    expect(log).toContain('/api/v1/invitations/[redacted]/accept');
    expect(log).toContain('/app/invite/[redacted]');
    expect(log).toContain(`/api/v1/webhooks/rollback/envs/${envId}/flags/checkout`);
    for (const secret of secrets) expect(log.includes(secret), `the log contains ${secret.slice(0, 6)}…`).toBe(false);
    expect(log).not.toMatch(/Bearer/i);
    expect(log).not.toContain('svc_session=');
  });
});
