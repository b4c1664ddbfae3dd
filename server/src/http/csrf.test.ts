import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../config.js';
import { acceptedOrigins, originCheck } from './csrf.js';

/** A server with only the origin check in front of a route that answers 204. */
async function serve(config: Config): Promise<{ base: string; port: number; server: Server }> {
  const app = express();
  app.use(originCheck(config));
  app.all('/', (_req, res) => void res.status(204).end());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return { base: `http://127.0.0.1:${port}`, port, server };
}

const post = (base: string, headers: Record<string, string>) => fetch(base, { method: 'POST', headers });

describe('acceptedOrigins', () => {
  const P = 8080;
  const unset = loadConfig({ PORT: String(P) });
  const publicSite = loadConfig({ PORT: String(P), PUBLIC_URL: 'https://flags.example.com/' });
  const loopbackSite = loadConfig({ PORT: String(P), PUBLIC_URL: 'http://127.0.0.1:8080' });

  // origin → accepted with PUBLIC_URL unset, =https://flags.example.com/, =http://127.0.0.1:8080
  const table: Array<[string, boolean, boolean, boolean]> = [
    ['http://localhost:8080', true, false, false],
    ['http://127.0.0.1:8080', true, false, true],
    ['http://[::1]:8080', true, false, false],
    ['http://localhost:8081', false, false, false],
    ['http://127.0.0.1:3000', false, false, false],
    ['https://localhost:8080', false, false, false],
    ['http://192.168.1.5:8080', false, false, false],
    ['http://127.0.0.2:8080', false, false, false],
    ['http://localhost', false, false, false],
    ['https://flags.example.com', false, true, false],
    ['https://flags.example.com:8443', false, false, false],
    ['http://evil.example', false, false, false],
    ['null', false, false, false],
  ];
  it.each(table)('%s: unset %s, public site %s, loopback PUBLIC_URL %s', (origin, withUnset, withPublicSite, withLoopbackSite) => {
    expect(acceptedOrigins(unset, P).has(origin)).toBe(withUnset);
    expect(acceptedOrigins(publicSite, P).has(origin)).toBe(withPublicSite);
    expect(acceptedOrigins(loopbackSite, P).has(origin)).toBe(withLoopbackSite);
  });

  it('follows the port it is given, and writes a default port as browsers do', () => {
    expect([...acceptedOrigins(unset, 4000)]).toEqual(['http://localhost:4000', 'http://127.0.0.1:4000', 'http://[::1]:4000']);
    expect([...acceptedOrigins(loadConfig({ PORT: '80' }), 80)]).toEqual(['http://localhost', 'http://127.0.0.1', 'http://[::1]']);
    expect([...acceptedOrigins(loadConfig({ PUBLIC_URL: 'https://flags.example.com:443/base/' }), P)]).toEqual(['https://flags.example.com']);
  });
});

describe('originCheck', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));
  const start = async (config: Config) => {
    const s = await serve(config);
    servers.push(s.server);
    return s;
  };

  let unset: { base: string; port: number };
  let configured: { base: string; port: number };
  beforeAll(async () => {
    // PORT=0: the loopback origins come from the port the server ended up listening on.
    unset = await start(loadConfig({ PORT: '0' }));
    configured = await start(loadConfig({ PORT: '0', PUBLIC_URL: 'https://flags.example.com' }));
  });

  it('with PUBLIC_URL unset, accepts every loopback name for the listening port', async () => {
    for (const host of ['localhost', '127.0.0.1', '[::1]']) {
      const res = await post(unset.base, { origin: `http://${host}:${unset.port}`, cookie: 'svc_session=x' });
      expect(res.status, host).toBe(204);
    }
  });

  it('refuses another origin with the forbidden envelope and says what to do', async () => {
    const res = await post(unset.base, { origin: 'http://192.168.1.5:8080', cookie: 'svc_session=x' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      code: 'forbidden',
      message: `Cross-origin request from http://192.168.1.5:8080 refused: open the dashboard at http://localhost:${unset.port}/app/ or set PUBLIC_URL to the address you use.`,
    });
  });

  it('with PUBLIC_URL set, accepts its origin only', async () => {
    expect((await post(configured.base, { origin: 'https://flags.example.com', cookie: 'svc_session=x' })).status).toBe(204);
    const res = await post(configured.base, { origin: `http://127.0.0.1:${configured.port}`, cookie: 'svc_session=x' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toBe(
      `Cross-origin request from http://127.0.0.1:${configured.port} refused: open the dashboard at https://flags.example.com/app/ or set PUBLIC_URL to the address you use.`,
    );
  });

  it('lets through safe methods, bearer requests, and requests without an Origin or a cookie', async () => {
    const evil = 'http://evil.example';
    expect((await fetch(configured.base, { headers: { origin: evil, cookie: 'svc_session=x' } })).status).toBe(204);
    expect((await post(configured.base, { origin: evil, cookie: 'svc_session=x', authorization: 'Bearer svc_x' })).status).toBe(204);
    expect((await post(configured.base, { origin: evil })).status).toBe(204);
    expect((await post(configured.base, { cookie: 'svc_session=x' })).status).toBe(204);
  });
});
