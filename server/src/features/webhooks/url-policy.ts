import { lookup as dnsLookup } from 'node:dns';
import type { Agent } from 'node:http';
import { isIP, Socket, type LookupFunction, type TcpNetConnectOpts } from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { DomainError } from '../../domain/errors.js';

/** Where webhooks may go (the operator's WEBHOOK_* settings, config.ts). */
export interface WebhookNetworkPolicy {
  allowPrivateNetworks: boolean;
  /** Addresses and CIDR ranges allowed although private or reserved. */
  allowedNetworks: readonly string[];
  allowHttp: boolean;
}

const refuse = (message: string) => new DomainError('invalid_request', `The webhook URL is refused: ${message}.`, { fields: { url: message } });

/**
 * Addresses ipaddr.js counts as public unicast that webhooks may still not reach unless the
 * operator allows them: IPv4-compatible IPv6 addresses (`::/96`, deprecated by RFC 4291), in which
 * `::7f00:1` is 127.0.0.1 and `::a9fe:a9fe` the metadata address 169.254.169.254; and Azure's
 * platform address 168.63.129.16 (its DNS, health probes and the WireServer that hands virtual
 * machines their configuration), reachable from every Azure virtual machine.
 */
const REFUSED_UNICAST = ['::/96', '168.63.129.16/32'].map((cidr) => ipaddr.parseCIDR(cidr));

function inRange(address: ipaddr.IPv4 | ipaddr.IPv6, [range, bits]: [ipaddr.IPv4 | ipaddr.IPv6, number]): boolean {
  return range.kind() === address.kind() && address.match([range, bits]);
}

function inAllowedNetworks(address: ipaddr.IPv4 | ipaddr.IPv6, allowed: readonly string[]): boolean {
  return allowed.some((entry) => {
    try {
      if (!entry.includes('/')) return ipaddr.process(entry).toString() === address.toString();
      return inRange(address, ipaddr.parseCIDR(entry));
    } catch {
      return false;
    }
  });
}

/** Whether a literal address is one webhooks may reach: a public unicast one, or one the operator allows. */
export function addressAllowed(literal: string, policy: WebhookNetworkPolicy): boolean {
  const address = ipaddr.process(literal);
  if (address.range() === 'unicast' && !REFUSED_UNICAST.some((range) => inRange(address, range))) return true;
  return policy.allowPrivateNetworks || inAllowedNetworks(address, policy.allowedNetworks);
}

/**
 * A subscription's URL, checked when it is saved: http(s) (plain http only where the operator
 * allows it), no user name or password, and no literal private, loopback, link-local or reserved
 * address (nor `localhost`, with or without trailing dots) unless allowed. Host names are checked
 * again at every delivery, after DNS resolution (deliveryAgents).
 */
export function checkWebhookUrl(raw: string, policy: WebhookNetworkPolicy): string {
  if (!URL.canParse(raw)) throw refuse('not a URL');
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must start with https://');
  if (url.protocol === 'http:' && !policy.allowHttp) throw refuse('must start with https:// (this server does not send webhooks over plain http)');
  if (url.username || url.password) throw refuse('must not contain a user name or password');
  // `localhost.` is `localhost` (a fully qualified name); the URL parser already reads `127.0.0.1.`, `0x7f.1` and `2130706433` as 127.0.0.1.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.+$/, '');
  if (ipaddr.isValid(host)) {
    if (!addressAllowed(host, policy)) throw refuse('a private, loopback, link-local or reserved address');
  } else if ((host === 'localhost' || host.endsWith('.localhost')) && !policy.allowPrivateNetworks) {
    throw refuse('a loopback host name');
  }
  return url.toString();
}

/**
 * The http and https agents deliveries are sent through: they refuse to connect to a private,
 * loopback, link-local or reserved address, checked on the address the host name resolved to
 * (request-filtering-agent), unless the policy allows it; and, as checkWebhookUrl does, to the
 * public-looking addresses of REFUSED_UNICAST.
 */
export function deliveryAgents(policy: WebhookNetworkPolicy): {
  http: Agent;
  https: Agent;
} {
  const options = {
    allowPrivateIPAddress: policy.allowPrivateNetworks,
    allowMetaIPAddress: policy.allowPrivateNetworks,
    allowIPAddressList: [...policy.allowedNetworks],
    keepAlive: false,
  };
  return {
    http: new PolicyHttpAgent(policy, options),
    https: new PolicyHttpsAgent(policy, options),
  };
}

type ConnectionListener = (error: Error | null, socket: Duplex) => void;

/**
 * A connection refused when its literal host, or any address its host name resolves to, is one
 * webhooks may not reach by addressAllowed; otherwise `connect` (request-filtering-agent's own
 * checks) with the checked lookup. (request-filtering-agent's `denyIPAddressList` would do for
 * 168.63.129.16, but warns on every IPv4 address a `::/96` range is matched against.)
 */
function connectAllowed(
  policy: WebhookNetworkPolicy,
  options: TcpNetConnectOpts,
  listener: ConnectionListener | undefined,
  connect: (options: TcpNetConnectOpts, listener?: ConnectionListener) => Duplex,
): Duplex {
  const refusal = (address: string, host: string) => new Error(`${address} (host: ${host}) is not allowed: not an address webhooks may reach.`);
  const allowed = (address: string) => isIP(address) === 0 || addressAllowed(address, policy);
  const host = options.host;
  if (host !== undefined && !allowed(host)) {
    // As request-filtering-agent answers a refused literal address: the request fails with the error.
    const socket = new Socket();
    if (listener) listener(refusal(host, host), socket);
    else socket.destroy(refusal(host, host));
    return socket;
  }
  const resolve: LookupFunction = options.lookup ?? ((hostname, lookupOptions, callback) => dnsLookup(hostname, lookupOptions, callback));
  const lookup: LookupFunction = (hostname, lookupOptions, callback) =>
    resolve(hostname, lookupOptions, (err, address, family) => {
      if (err) return callback(err, address, family);
      const refused = (typeof address === 'string' ? [address] : address.map((a) => a.address)).find((a) => !allowed(a));
      if (refused !== undefined) return callback(refusal(refused, hostname), address, family);
      callback(null, address, family);
    });
  return connect({ ...options, lookup }, listener);
}

class PolicyHttpAgent extends RequestFilteringHttpAgent {
  constructor(
    private readonly policy: WebhookNetworkPolicy,
    options: ConstructorParameters<typeof RequestFilteringHttpAgent>[0],
  ) {
    super(options);
  }

  override createConnection(options: TcpNetConnectOpts, listener?: ConnectionListener): Duplex {
    return connectAllowed(this.policy, options, listener, (o, l) => super.createConnection(o, l));
  }
}

class PolicyHttpsAgent extends RequestFilteringHttpsAgent {
  constructor(
    private readonly policy: WebhookNetworkPolicy,
    options: ConstructorParameters<typeof RequestFilteringHttpsAgent>[0],
  ) {
    super(options);
  }

  override createConnection(options: TcpNetConnectOpts, listener?: ConnectionListener): Duplex {
    return connectAllowed(this.policy, options, listener, (o, l) => super.createConnection(o, l));
  }
}
