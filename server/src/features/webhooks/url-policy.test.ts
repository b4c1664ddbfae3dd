import { createServer, request, type Agent } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import { addressAllowed, checkWebhookUrl, deliveryAgents, type WebhookNetworkPolicy } from './url-policy.js';

const STRICT: WebhookNetworkPolicy = { allowPrivateNetworks: false, allowedNetworks: [], allowHttp: true };

const refusal = (url: string, policy = STRICT) => {
  try {
    checkWebhookUrl(url, policy);
  } catch (err) {
    if (err instanceof DomainError) return err.fields?.url ?? err.message;
    throw err;
  }
  return null;
};

describe('checkWebhookUrl', () => {
  it.each([
    // Loopback names, fully qualified (trailing dots) or not, in any case.
    'https://localhost/hook',
    'https://localhost./hook',
    'https://LOCALHOST../hook',
    'https://localhost%2e/hook',
    'https://api.localhost./hook',
    // Loopback and reserved IPv4, in the forms the URL parser reads as such.
    'https://127.0.0.1./hook',
    'https://0x7f.1/hook',
    'https://2130706433/hook',
    'https://169.254.169.254/latest',
    // IPv4-mapped (::ffff:0:0/96) and IPv4-compatible (::/96) IPv6 forms of loopback and metadata addresses.
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://[::7f00:1]/hook',
    'https://[::127.0.0.1]/hook',
    'https://[::a9fe:a9fe]/hook',
    'https://[::8.8.8.8]/hook',
    // Azure's platform address (WireServer), also IPv4-mapped.
    'https://168.63.129.16/hook',
    'https://168.63.129.16./hook',
    'https://[::ffff:168.63.129.16]/hook',
    // NAT64 and 6to4 forms of 127.0.0.1.
    'https://[64:ff9b::7f00:1]/hook',
    'https://[2002:7f00:1::]/hook',
  ])('refuses %s', (url) => {
    expect(refusal(url)).toMatch(/loopback/);
  });

  it.each(['https://hooks.example.com/x', 'https://hooks.example.com./x', 'https://8.8.8.8/x', 'https://[::ffff:8.8.8.8]/x', 'https://[2606:4700:4700::1111]/x', 'https://168.63.129.17/x'])(
    'accepts %s',
    (url) => {
      expect(refusal(url)).toBeNull();
    },
  );

  it('accepts those addresses where the operator allows them', () => {
    for (const url of ['https://localhost./hook', 'https://[::7f00:1]/hook', 'https://168.63.129.16/hook']) {
      expect(refusal(url, { ...STRICT, allowPrivateNetworks: true }), url).toBeNull();
    }
    expect(refusal('https://168.63.129.16/hook', { ...STRICT, allowedNetworks: ['168.63.129.16'] })).toBeNull();
    expect(refusal('https://[::7f00:1]/hook', { ...STRICT, allowedNetworks: ['::/96'] })).toBeNull();
    expect(addressAllowed('::7f00:1', { ...STRICT, allowedNetworks: ['168.63.129.16'] })).toBe(false);
  });
});

describe('deliveryAgents', () => {
  let receiver: ReturnType<typeof createServer>;
  let port = 0;
  beforeAll(async () => {
    receiver = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  /** A POST through the policy's http agent; `resolvesTo` stands in for DNS. The status, or the error's message. */
  const send = (policy: WebhookNetworkPolicy, host: string, resolvesTo?: string) =>
    new Promise<number | string>((resolve) => {
      const agent: Agent = deliveryAgents(policy).http;
      const lookup: LookupFunction = (_hostname, options, callback) => {
        const address = resolvesTo ?? '127.0.0.1';
        const family = address.includes(':') ? 6 : 4;
        if (options.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      };
      const req = request({ host, port, method: 'POST', agent, lookup, timeout: 2000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', (err) => resolve(err.message));
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.end('{}');
    });

  it('refuses host names that resolve to IPv4-compatible IPv6 or Azure platform addresses', async () => {
    expect(await send(STRICT, 'hooks.example.com', '::7f00:1')).toMatch(/::7f00:1 .*not allowed/);
    expect(await send(STRICT, 'hooks.example.com', '168.63.129.16')).toMatch(/168\.63\.129\.16 .*not allowed/);
  });

  it('refuses those addresses written literally, before connecting', async () => {
    expect(await send(STRICT, '::7f00:1')).toMatch(/not allowed/);
    expect(await send(STRICT, '168.63.129.16')).toMatch(/not allowed/);
  });

  it('still refuses private addresses (request-filtering-agent), and connects where the policy allows', async () => {
    expect(await send(STRICT, 'hooks.example.com', '127.0.0.1')).toMatch(/not allowed/);
    expect(await send({ ...STRICT, allowPrivateNetworks: true }, 'hooks.example.com', '127.0.0.1')).toBe(200);
    expect(await send({ ...STRICT, allowedNetworks: ['127.0.0.0/8'] }, 'hooks.example.com', '127.0.0.1')).toBe(200);
  });
});
