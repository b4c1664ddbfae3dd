import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, sessionTokenFrom, startTestServer, type TestServer } from '../support/server.js';

/**
 * The origin check on session mutations, as a browser meets it: with PUBLIC_URL unset (the
 * README's `npm start`), every loopback name for the server's port is the dashboard's own site,
 * so the printed http://localhost:PORT/app/ and http://127.0.0.1:PORT/app/ both work. With
 * PUBLIC_URL set, only its origin is.
 */
function createProject(t: TestServer, sessionToken: string, origin: string, key: string): Promise<Response> {
  return fetch(`${t.url}/api/v1/orgs/acme/projects`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin, cookie: `svc_session=${encodeURIComponent(sessionToken)}` },
    body: JSON.stringify({ key, name: key }),
  });
}

describe('origin check with PUBLIC_URL unset', () => {
  let t: TestServer;
  let sessionToken: string;
  let port: number;

  beforeAll(async () => {
    t = await startTestServer();
    port = t.server.port;
  });
  afterAll(() => t?.close());

  it('claims from http://127.0.0.1:PORT and creates a project with the session cookie', async () => {
    const claimed = await fetch(`${t.url}/api/v1/auth/install-claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` },
      body: JSON.stringify({ email: 'owner@example.com', displayName: 'Olive Owner', orgName: 'Acme', orgSlug: 'acme' }),
    });
    expect(claimed.status).toBe(200);
    sessionToken = sessionTokenFrom(claimed);

    const created = await createProject(t, sessionToken, `http://127.0.0.1:${port}`, 'from-ipv4');
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ key: 'from-ipv4' });
  });

  it('accepts http://localhost:PORT and http://[::1]:PORT as the same site', async () => {
    expect((await createProject(t, sessionToken, `http://localhost:${port}`, 'from-localhost')).status).toBe(201);
    expect((await createProject(t, sessionToken, `http://[::1]:${port}`, 'from-ipv6')).status).toBe(201);
  });

  it('refuses another origin, saying where the dashboard is', async () => {
    const refused = await createProject(t, sessionToken, 'http://192.168.1.5:8080', 'from-lan');
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { code: string; message: string; requestId: unknown };
    expect(body).toMatchObject({
      code: 'forbidden',
      message: `Cross-origin request from http://192.168.1.5:8080 refused: open the dashboard at http://localhost:${port}/app/ or set PUBLIC_URL to the address you use.`,
    });
    expect(typeof body.requestId).toBe('string');
  });
});

describe('origin check with PUBLIC_URL set', () => {
  let t: TestServer;
  let sessionToken: string;

  beforeAll(async () => {
    t = await startTestServer({ PUBLIC_URL: 'https://flags.example.com' });
    sessionToken = (await claim(t)).sessionToken;
  });
  afterAll(() => t?.close());

  it('refuses http://127.0.0.1:PORT, pointing at PUBLIC_URL', async () => {
    const refused = await createProject(t, sessionToken, `http://127.0.0.1:${t.server.port}`, 'from-ipv4');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      code: 'forbidden',
      message: `Cross-origin request from http://127.0.0.1:${t.server.port} refused: open the dashboard at https://flags.example.com/app/ or set PUBLIC_URL to the address you use.`,
    });
  });

  it('accepts PUBLIC_URL’s origin', async () => {
    expect((await createProject(t, sessionToken, 'https://flags.example.com', 'from-site')).status).toBe(201);
  });
});
