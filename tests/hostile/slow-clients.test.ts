import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, startTestServer, type TestServer } from '../support/server.js';
import { openRulesetStream, within } from '../support/sse.js';

/** A raw TCP connection to the server, with everything it receives. */
function rawConnection(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve({ socket, received: () => received, closed }));
    const opened = Date.now();
    const closed = new Promise<number>((done) => socket.on('close', () => done(Date.now() - opened)));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => {}); // a reset is one of the ways a cut connection ends
    socket.once('error', reject);
  });
}

/**
 * The HTTP server's own limits (HTTP_* in config.ts), set low here: a client that trickles its
 * request head is cut at HTTP_HEADERS_TIMEOUT_MS, one that trickles its body at
 * HTTP_REQUEST_TIMEOUT_MS, while a streamed response (SSE) outlives both.
 */
describe('slow clients', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' });
  });
  afterAll(() => t?.close());

  it('cuts a client sending its headers one byte per 100 ms after HTTP_HEADERS_TIMEOUT_MS (408)', async () => {
    const { socket, received, closed } = await rawConnection(t.server.url);
    const head = `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(200)}`;
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < head.length && !socket.destroyed) socket.write(head[sent++]!);
    }, 100);
    try {
      const after = await within(closed, 4000, 'the slow client was cut');
      expect(after).toBeGreaterThanOrEqual(900);
      expect(received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(sent).toBeLessThan(head.length); // cut while still sending, not after it finished
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  it('cuts a client trickling its body after HTTP_REQUEST_TIMEOUT_MS', async () => {
    const { socket, closed } = await rawConnection(t.server.url);
    socket.write(`POST /api/v1/orgs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
    const trickle = setInterval(() => !socket.destroyed && socket.write(' '), 100);
    try {
      const after = await within(closed, 5000, 'the slow body was cut');
      expect(after).toBeGreaterThanOrEqual(1900);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  it('keeps a ruleset stream open past HTTP_REQUEST_TIMEOUT_MS: the timeout covers receiving the request, not the response', async () => {
    const owner = await claim(t);
    const projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    const envId = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    const { token } = await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'sdk', actions: ['read'] } });
    const live = await openRulesetStream(t.server.url, envId, { authorization: `Bearer ${token}` });
    try {
      const { version } = await live.next();
      await new Promise((r) => setTimeout(r, 3000)); // past the request timeout and a check of it
      expect(live.isEnded).toBe(false);
      await owner.session.setFlagValue({ path: { envId, key: 'checkout' }, body: { value: true } });
      expect(await live.next()).toEqual({ version: version + 1 });
    } finally {
      live.close();
    }
  });
});

describe('connection cap', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer({ HTTP_MAX_CONNECTIONS: '4', STREAM_MAX_TOTAL: '2' });
  });
  afterAll(() => t?.close());

  const connections = () => new Promise<number>((resolve, reject) => t.server.http.getConnections((err, n) => (err ? reject(err) : resolve(n))));

  it('closes a connection beyond HTTP_MAX_CONNECTIONS at once, and accepts again when one ends', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => rawConnection(t.server.url)));
    try {
      await expect.poll(connections).toBe(4);
      const extra = await rawConnection(t.server.url);
      await within(extra.closed, 2000, 'the connection over the cap was closed');
      expect(extra.received()).toBe('');
      held.pop()!.socket.destroy();
      await expect.poll(connections).toBe(3);
      expect((await fetch(`${t.server.url}/healthz`)).status).toBe(200);
    } finally {
      for (const { socket } of held) socket.destroy();
    }
  });
});
