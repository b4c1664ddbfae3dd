import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';
import { openEventStream, type StreamAnswer } from '../support/sse.js';

/**
 * Budgets that fit public client keys (docs/security.md, "Public client keys"): a client key's
 * requests are charged per client address, key-wide and to its organization's client-key bucket,
 * never to the bucket the organization's server keys share; its OFREP streams are capped per
 * client address and key-wide, not by STREAM_MAX_PER_KEY, and the place is taken before any
 * lookup. Each client address is a 127.x.y.z source address of its own.
 */
describe('budgets of public client keys', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let prod: string;
  const open: StreamAnswer[] = [];

  beforeAll(async () => {
    // Direct, never through a proxy: each request's source address is what the budgets count.
    t = await startTestServer({
      ORG_RATE_LIMIT_PER_MIN: '8',
      CLIENT_KEY_RATE_LIMIT_PER_IP_PER_MIN: '4',
      CLIENT_KEY_ORG_RATE_LIMIT_PER_MIN: '12',
      STREAM_MAX_PER_KEY: '3',
      STREAM_MAX_PER_CLIENT_KEY: '6',
      STREAM_MAX_PER_CLIENT_KEY_ADDRESS: '2',
    }, { direct: true });
    owner = await claim(t);
    const projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    prod = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'banner', name: 'Banner', defaultValue: true, clientVisible: true } });
  });
  afterEach(async () => {
    for (const answer of open.splice(0)) answer.close();
    await expect.poll(() => t.server.deps.streams.size).toBe(0);
    await t.advanceClock(120); // every bucket full again
  });
  afterAll(() => t?.close());

  const mint = async (kind: 'client' | 'sdk', rateLimitPerMin?: number) =>
    owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: `${kind} key`, kind, environments: [prod], actions: ['read'], ...(rateLimitPerMin ? { rateLimitPerMin } : {}) } });

  type Answer = { status: number; body: { code?: string; details?: { bucket?: string }; eventStreams?: Array<{ url: string }> } };
  /** POST `path` with a bearer token from `localAddress`: status and parsed body. */
  const post = (path: string, token: string, localAddress: string, body: unknown = { context: { targetingKey: 'u1' } }) =>
    new Promise<Answer>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(
        new URL(path, t.url),
        { method: 'POST', localAddress, agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
        (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (data += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data ? (JSON.parse(data) as Answer['body']) : {} }));
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  const evaluate = (token: string, address: string) => post('/api/v1/ofrep/v1/evaluate/flags', token, address);

  it('gives a client key a key-wide default far above what one address may use (30,000 a minute)', async () => {
    expect((await mint('client')).rateLimitPerMin).toBe(30_000);
    expect((await mint('sdk')).rateLimitPerMin).toBe(600);
  });

  it('charges one visitor only their own address: others go on, and client traffic never drains the server keys’ org bucket', async () => {
    const client = (await mint('client')).token;
    // Address A uses its 4 and is refused; address B still has its own 4.
    for (let i = 0; i < 4; i++) expect((await evaluate(client, '127.0.0.31')).status).toBe(200);
    expect(await evaluate(client, '127.0.0.31')).toMatchObject({ status: 429, body: { code: 'token_rate_limit', details: { bucket: 'address' } } });
    for (let i = 0; i < 4; i++) expect((await evaluate(client, '127.0.0.32')).status).toBe(200);
    // 8 client requests went through, the org bucket's whole capacity (ORG_RATE_LIMIT_PER_MIN 8):
    // a server key of the org is still served in full.
    const server = (await mint('sdk')).token;
    for (let i = 0; i < 8; i++) expect((await evaluate(server, '127.0.0.40')).status).toBe(200);
    expect(await evaluate(server, '127.0.0.40')).toMatchObject({ status: 429, body: { details: { bucket: 'org' } } });
  });

  it('caps all client keys of an organization together in a bucket of their own (CLIENT_KEY_ORG_RATE_LIMIT_PER_MIN)', async () => {
    const [a, b] = [(await mint('client')).token, (await mint('client')).token];
    for (const [token, address] of [[a, '127.0.0.51'], [a, '127.0.0.52'], [b, '127.0.0.53']] as const) {
      for (let i = 0; i < 4; i++) expect((await evaluate(token, address)).status).toBe(200);
    }
    expect(await evaluate(b, '127.0.0.54')).toMatchObject({ status: 429, body: { details: { bucket: 'client-org' } } });
    // The server keys' bucket is untouched.
    expect((await evaluate((await mint('sdk')).token, '127.0.0.55')).status).toBe(200);
  });

  it('caps a client key’s OFREP streams per client address and key-wide, not at STREAM_MAX_PER_KEY', async () => {
    const client = (await mint('client', 100_000)).token;
    // One ticket, from a bulk evaluation, serves every visitor here (it names the key, not an address).
    const url = new URL((await evaluate(client, '127.0.0.60')).body.eventStreams![0]!.url);
    const stream = async (address: string) => {
      const answer = await openEventStream(url, { localAddress: address });
      open.push(answer);
      return answer;
    };
    // Two visitors' worth from one address, then that address is full; others are not.
    expect((await stream('127.0.0.61')).status).toBe(200);
    expect((await stream('127.0.0.61')).status).toBe(200);
    expect(await stream('127.0.0.61')).toMatchObject({ status: 429, error: { details: { limit: 'streams_per_client_key_address', max: 2 } } });
    for (const address of ['127.0.0.62', '127.0.0.62', '127.0.0.63', '127.0.0.63']) expect((await stream(address)).status).toBe(200);
    // Six streams of one key (more than STREAM_MAX_PER_KEY, 3): the key-wide cap is the client key's own.
    expect(t.server.deps.streams.size).toBe(6);
    expect(await stream('127.0.0.64')).toMatchObject({ status: 429, error: { details: { limit: 'streams_per_client_key', max: 6 } } });
  });

  it('takes a client key’s stream place before any lookup: over the address cap, even a ticket that would fail is refused at once', async () => {
    const client = (await mint('client', 100_000)).token;
    const url = new URL((await evaluate(client, '127.0.0.71')).body.eventStreams![0]!.url);
    for (let i = 0; i < 2; i++) {
      const answer = await openEventStream(url, { localAddress: '127.0.0.71' });
      open.push(answer);
      expect(answer.status).toBe(200);
    }
    // The same claim with a signature that does not hold: refused by the cap, not looked up.
    const ticket = url.searchParams.get('ticket')!;
    const forged = new URL(url);
    forged.searchParams.set('ticket', `${ticket.slice(0, -2)}${ticket.endsWith('AA') ? 'BB' : 'AA'}`);
    const flood = await Promise.all(Array.from({ length: 50 }, () => openEventStream(forged, { localAddress: '127.0.0.71' })));
    open.push(...flood);
    expect(flood.map((a) => a.error?.details?.limit)).toEqual(flood.map(() => 'streams_per_client_key_address'));
    // From another address the forged ticket is looked up, and refused as invalid.
    const elsewhere = await openEventStream(forged, { localAddress: '127.0.0.72' });
    open.push(elsewhere);
    expect(elsewhere.status).toBe(401);
  });
});
