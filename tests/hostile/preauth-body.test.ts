import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER_MS } from '../../server/src/http/lingering-close.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { seedUser } from '../support/users.js';

const MiB = 1024 * 1024;
const BIG = 60 * MiB;

interface Streamed {
  status: number;
  body: { code?: string; requestId?: string; count?: number };
  headers: Record<string, string | string[] | undefined>;
  /** Bytes of the body written by the time the answer arrived. */
  written: number;
  ms: number;
  /** Highest growth of this process's heap and external (Buffer) memory while the request ran. */
  peakGrowth: number;
}

const memory = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

/**
 * Sends a body of `size` bytes (Content-Length, or chunked when `size` is null, then up to BIG
 * bytes), written 64 KiB at a time with backpressure, until the server answers: the test itself
 * holds one chunk. The server runs in this process, so the memory sampled is the server's too.
 */
function stream(url: string, method: string, path: string, headers: Record<string, string>, size: number | null): Promise<Streamed> {
  const target = size ?? BIG;
  const chunk = Buffer.from('"0123456789abcdef",'.repeat(3450).slice(0, 64 * 1024));
  const head = Buffer.from('{"targetIds":[');
  const baseline = memory();
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memory() - baseline);
  }, 5);
  const started = performance.now();
  return new Promise<Streamed>((resolve, reject) => {
    let written = 0;
    let answered = false;
    const { hostname, port } = new URL(url);
    const req = request({
      host: hostname,
      port,
      method,
      path,
      headers: { 'content-type': 'application/json', ...(size === null ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(size) }), ...headers },
    });
    const finish = (result: Streamed | Error) => {
      clearInterval(sampler);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    req.on('response', (res) => {
      answered = true;
      const at = { written, ms: performance.now() - started };
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        peak = Math.max(peak, memory() - baseline);
        const text = Buffer.concat(parts).toString('utf8');
        req.destroy();
        finish({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, headers: res.headers, ...at, peakGrowth: peak });
      });
      res.on('error', (err) => finish(err));
    });
    req.on('error', (err) => {
      // The server closes the connection after answering; writes after that fail. Only an error
      // before any answer is one.
      if (!answered) finish(err);
    });
    const pump = () => {
      while (!answered && !req.destroyed && written < target) {
        const piece = written === 0 ? head : chunk.subarray(0, Math.min(chunk.length, target - written));
        written += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (!answered && !req.destroyed && written >= target) req.end();
    };
    req.flushHeaders();
    pump();
  });
}

interface Answered {
  status: number;
  body: { code?: string; message?: string; requestId?: string };
  headers: Record<string, string | string[] | undefined>;
  /** The whole body was handed to the connection ('finish'). */
  bodyWritten: boolean;
  /** The request's error (EPIPE, ECONNRESET), if it had one. */
  error: string | undefined;
}

/**
 * Sends a body of `size` bytes in one write (`req.end(body)`): the whole body is handed over
 * before anything else happens, as many clients do. Waits for the request to end, answered or failed.
 */
function sendWhole(url: string, path: string, headers: Record<string, string>, size: number): Promise<Answered> {
  const { hostname, port } = new URL(url);
  return new Promise<Answered>((resolve) => {
    const result: Answered = { status: 0, body: {}, headers: {}, bodyWritten: false, error: undefined };
    let text = '';
    const req = request({ host: hostname, port, method: 'POST', path, headers: { 'content-type': 'application/json', 'content-length': String(size), ...headers } });
    req.on('finish', () => (result.bodyWritten = true));
    req.on('error', (err: NodeJS.ErrnoException) => (result.error ??= err.code ?? err.message));
    req.on('response', (res) => {
      result.status = res.statusCode ?? 0;
      result.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (err: NodeJS.ErrnoException) => (result.error ??= err.code ?? err.message));
    });
    req.on('close', () => {
      try {
        result.body = text ? JSON.parse(text) : {};
      } catch {
        result.error ??= `unreadable answer: ${text}`;
      }
      resolve(result);
    });
    req.end(Buffer.alloc(size, ' '));
  });
}

interface Endless {
  status: number;
  body: { code?: string };
  /** Milliseconds from the first byte of the answer to the connection's close. */
  closedAfterMs: number;
}

/**
 * A client that never stops sending: a raw connection (it keeps writing after the server's FIN)
 * with a chunked body, 64 KiB a chunk, never ended: as fast as the connection takes them, or one
 * every `everyMs`. Resolves when the server closes the connection, or rejects after `limitMs`.
 */
function sendForever(url: string, path: string, everyMs: number | null, limitMs: number): Promise<Endless> {
  const { hostname, port } = new URL(url);
  const payload = Buffer.alloc(64 * 1024, ' ');
  const frame = Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n')]);
  return new Promise<Endless>((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    let received = '';
    let answeredAt: number | undefined;
    const send = () => {
      while (everyMs === null && socket.writable) if (!socket.write(frame)) return void socket.once('drain', send);
      if (everyMs !== null && socket.writable) socket.write(frame);
    };
    const trickle = everyMs === null ? undefined : setInterval(send, everyMs);
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open ${limitMs} ms after the request began: ${received.slice(0, 200)}`));
    }, limitMs);
    socket.on('data', (chunk: Buffer) => {
      answeredAt ??= performance.now();
      received += chunk.toString('latin1');
    });
    socket.on('error', () => {}); // a reset is how an endless body's connection ends
    socket.on('close', () => {
      clearInterval(trickle);
      clearTimeout(limit);
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      let parsed: { code?: string } = {};
      try {
        parsed = JSON.parse(body);
      } catch {
        // no answer, or a partial one: the status says so
      }
      resolve({ status, body: parsed, closedAfterMs: answeredAt === undefined ? -1 : performance.now() - answeredAt });
    });
    socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    send();
  });
}

/**
 * Bodies are read only as far as the caller is admitted: a large body from a client without
 * credentials, or with an API key that may not write where it sends a target-ID list, is answered
 * at once (401, 403) without being read; an authorized writer still sends large lists; and a
 * request that is both unauthenticated and invalid is 401, not 400.
 */
describe('bodies before authentication', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let envId: string;
  let otherEnvId: string;
  let writer: string;
  let reader: string;
  let otherEnvKey: string;
  let outsider: string;
  const list = (edit: 'add' | 'replace', env = envId) => `/api/v1/envs/${env}/flags/big/rollout/target-ids/${edit}`;

  beforeAll(async () => {
    t = await startTestServer({ ORG_RATE_LIMIT_PER_MIN: '1000000' });
    owner = await claim(t);
    const project = await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } });
    envId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    otherEnvId = (await owner.session.createEnvironment({ path: { id: project.id }, body: { key: 'stage', name: 'Stage' } })).id;
    await owner.session.createFlag({ path: { id: project.id }, body: { key: 'big', name: 'Big', defaultValue: false } });
    await owner.session.putFlagRollout({ path: { envId, key: 'big' }, body: { percent: 0, newValue: true } });
    const key = (name: string, extra: object = {}) =>
      owner.session.createApiKey({ path: { slug: 'acme' }, body: { name, rateLimitPerMin: 100_000, ...extra } }).then((k) => k.token);
    writer = await key('writer');
    reader = await key('reader', { actions: ['read'] });
    otherEnvKey = await key('stage only', { environments: [otherEnvId] });
    // A signed-in user of another organization.
    outsider = (await seedUser(t.server.deps.db, 'outsider@example.com')).sessionToken;
  });
  afterAll(() => t?.close());

  const expectRefusedUnread = (res: Streamed, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.code).toBe(code);
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
    expect(res.headers.connection).toBe('close');
    // Answered long before the body could have travelled, with this process's memory flat.
    expect(res.written).toBeLessThan(BIG / 2);
    expect(res.peakGrowth).toBeLessThan(30 * MiB);
  };

  it('answers a 60 MB target-ID list without credentials with 401 at once, reading none of it', async () => {
    expectRefusedUnread(await stream(t.url, 'POST', list('replace'), {}, BIG), 401, 'unauthorized');
    expectRefusedUnread(await stream(t.url, 'POST', list('add'), {}, BIG), 401, 'unauthorized');
  });

  it('answers 60 MB on any route that needs credentials with 401, by Content-Length or chunked', async () => {
    expectRefusedUnread(await stream(t.url, 'POST', '/api/v1/orgs/acme/projects', {}, BIG), 401, 'unauthorized');
    expectRefusedUnread(await stream(t.url, 'POST', list('replace'), {}, null), 401, 'unauthorized');
    expectRefusedUnread(await stream(t.url, 'PUT', `/api/v1/envs/${envId}/flags/big/value`, {}, null), 401, 'unauthorized');
    // Credentials that resolve to nobody are no credentials.
    expectRefusedUnread(await stream(t.url, 'POST', list('replace'), { authorization: `Bearer svc_${'x'.repeat(32)}` }, BIG), 401, 'unauthorized');
    expectRefusedUnread(await stream(t.url, 'POST', list('replace'), { cookie: 'svc_session=nope' }, BIG), 401, 'unauthorized');
  });

  it('refuses a 60 MB list from a caller who may not write there before reading it (403, 404)', async () => {
    const readOnly = await stream(t.url, 'POST', list('replace'), { authorization: `Bearer ${reader}` }, BIG);
    expectRefusedUnread(readOnly, 403, 'token_action_denied');
    const outOfScope = await stream(t.url, 'POST', list('replace'), { authorization: `Bearer ${otherEnvKey}` }, BIG);
    expectRefusedUnread(outOfScope, 403, 'token_env_out_of_scope');
    const chunked = await stream(t.url, 'POST', list('add'), { authorization: `Bearer ${reader}` }, null);
    expectRefusedUnread(chunked, 403, 'token_action_denied');
    // Another organization's user, and an environment that does not exist: 404, as the route answers.
    expectRefusedUnread(await stream(t.url, 'POST', list('replace'), { cookie: `svc_session=${outsider}` }, BIG), 404, 'not_found');
    expectRefusedUnread(
      await stream(t.url, 'POST', list('replace', '00000000-0000-4000-8000-000000000000'), { authorization: `Bearer ${writer}` }, BIG),
      404,
      'not_found',
    );
    // Nothing changed.
    expect((await owner.session.getFlagRollout({ path: { envId, key: 'big' } })).targetIdsCount).toBe(0);
  });

  it('still takes a large list from a caller who may write there, by API key and by session', async () => {
    const ids = Array.from({ length: 50_000 }, (_, i) => `user-${String(i).padStart(12, '0')}-${'x'.repeat(24)}`);
    const body = JSON.stringify({ targetIds: ids });
    expect(body.length).toBeGreaterThan(2 * MiB);
    const viaKey = await fetch(`${t.url}${list('replace')}`, { method: 'POST', headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' }, body });
    expect(viaKey.status).toBe(200);
    expect(await viaKey.json()).toEqual({ count: 50_000 });
    const viaSession = await fetch(`${t.url}${list('replace')}`, { method: 'POST', headers: { cookie: `svc_session=${owner.sessionToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ targetIds: ids.slice(0, 40_000) }) });
    expect(viaSession.status).toBe(200);
    expect(await viaSession.json()).toEqual({ count: 40_000 });
    // Over 1 MiB elsewhere is still 413 for a signed-in caller.
    const elsewhere = await fetch(`${t.url}/api/v1/orgs/acme/projects`, { method: 'POST', headers: { cookie: `svc_session=${owner.sessionToken}`, 'content-type': 'application/json' }, body });
    expect(elsewhere.status).toBe(413);
  });

  it('answers an invalid or malformed request without credentials with 401, not 400', async () => {
    const send = (path: string, init: RequestInit = {}) => fetch(`${t.url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
    const expect401 = async (res: Response) => {
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
    };
    await expect401(await send('/api/v1/orgs/acme/projects', { method: 'POST', body: '{}' }));
    await expect401(await send('/api/v1/orgs/acme/projects', { method: 'POST', body: '{"key": ' }));
    await expect401(await send(list('replace'), { method: 'POST', body: '{"targetIds": 5}' }));
    await expect401(await send(`/api/v1/envs/${envId}/flags/big/rollout/target-ids?limit=nope`));
    // With credentials (good or bad: they are looked up only by admission, once the input is valid) the same requests are 400.
    expect((await send(list('replace'), { method: 'POST', body: '{}', headers: { authorization: 'Bearer nope' } })).status).toBe(400);
    const owned = { cookie: `svc_session=${owner.sessionToken}` };
    expect((await send('/api/v1/orgs/acme/projects', { method: 'POST', body: '{}', headers: owned })).status).toBe(400);
    expect((await send('/api/v1/orgs/acme/projects', { method: 'POST', body: '{"key": ', headers: owned })).status).toBe(400);
    expect((await send(`/api/v1/envs/${envId}/flags/big/rollout/target-ids?limit=nope`, { headers: { authorization: `Bearer ${writer}` } })).status).toBe(400);
  });

  // These are about the server's own sockets: straight to it, never through a proxy.
  it('answers a client that writes its whole 4 MiB body before reading: it reads the 401 or 413, not a reset', async () => {
    const expectAnswered = (res: Answered, status: number, code: string) => {
      expect({ status: res.status, code: res.body.code, error: res.error }).toEqual({ status, code, error: undefined });
      expect(res.body.requestId).toBe(res.headers['x-request-id']);
      expect(res.headers.connection).toBe('close');
      expect(res.bodyWritten).toBe(true);
    };
    const size = 4 * MiB;
    expectAnswered(await sendWhole(t.server.url, list('replace'), {}, size), 401, 'unauthorized');
    expectAnswered(await sendWhole(t.server.url, '/api/v1/orgs/acme/projects', { authorization: `Bearer svc_${'x'.repeat(32)}` }, size), 401, 'unauthorized');
    expectAnswered(await sendWhole(t.server.url, '/api/v1/auth/magic-link', {}, size), 413, 'invalid_request');
    // The rollback webhook leaves a body over 16 KiB unread too, whatever answers it.
    expectAnswered(await sendWhole(t.server.url, `/api/v1/webhooks/rollback/envs/${envId}/flags/big`, {}, size), 401, 'rollback_unauthorized');
  });

  it('reads what follows a refusal for a short while only: a body that never ends is cut within seconds', async () => {
    // As fast as the connection takes it: cut once LINGER_BYTES have been discarded, well before LINGER_MS.
    const flood = await sendForever(t.server.url, list('replace'), null, 10_000);
    expect({ status: flood.status, code: flood.body.code }).toEqual({ status: 401, code: 'unauthorized' });
    expect(flood.closedAfterMs).toBeLessThan(LINGER_MS);
    // A trickle (64 KiB every 50 ms) stays under LINGER_BYTES: cut when LINGER_MS are up.
    const trickle = await sendForever(t.server.url, '/api/v1/orgs/acme/projects', 50, 10_000);
    expect({ status: trickle.status, code: trickle.body.code }).toEqual({ status: 401, code: 'unauthorized' });
    expect(trickle.closedAfterMs).toBeGreaterThan(LINGER_MS / 2);
    expect(trickle.closedAfterMs).toBeLessThan(LINGER_MS + 3_000);
    // The server is unharmed.
    expect((await fetch(`${t.server.url}/healthz`)).status).toBe(200);
    await expect(owner.session.getFlagRollout({ path: { envId, key: 'big' } })).resolves.toBeDefined();
  });

  it('keeps the open routes open, with bodies up to 16 KiB', async () => {
    const magicLink = (email: string) => fetch(`${t.url}/api/v1/auth/magic-link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    expect(await (await magicLink('someone@example.com')).json()).toEqual({ sent: true });
    expect((await magicLink('')).status).toBe(400);
    const tooLarge = await stream(t.url, 'POST', '/api/v1/auth/magic-link', {}, BIG);
    expectRefusedUnread(tooLarge, 413, 'invalid_request');
    // Logout answers without a session, whatever it is sent.
    expect((await fetch(`${t.url}/api/v1/auth/logout`, { method: 'POST' })).status).toBe(204);
  });
});
