import type { Agent } from 'node:http';
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

function inAllowedNetworks(address: ipaddr.IPv4 | ipaddr.IPv6, allowed: readonly string[]): boolean {
  return allowed.some((entry) => {
    try {
      if (!entry.includes('/')) return ipaddr.process(entry).toString() === address.toString();
      const [range, bits] = ipaddr.parseCIDR(entry);
      return range.kind() === address.kind() && address.match([range, bits]);
    } catch {
      return false;
    }
  });
}

/** Whether a literal address is one webhooks may reach: a public unicast one, or one the operator allows. */
export function addressAllowed(literal: string, policy: WebhookNetworkPolicy): boolean {
  const address = ipaddr.process(literal);
  if (address.range() === 'unicast') return true;
  return policy.allowPrivateNetworks || inAllowedNetworks(address, policy.allowedNetworks);
}

/**
 * A subscription's URL, checked when it is saved: http(s) (plain http only where the operator
 * allows it), no user name or password, and no literal private, loopback, link-local or reserved
 * address (nor `localhost`) unless allowed. Host names are checked again at every delivery, after
 * DNS resolution (deliveryAgents).
 */
export function checkWebhookUrl(raw: string, policy: WebhookNetworkPolicy): string {
  if (!URL.canParse(raw)) throw refuse('not a URL');
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must start with https://');
  if (url.protocol === 'http:' && !policy.allowHttp) throw refuse('must start with https:// (this server does not send webhooks over plain http)');
  if (url.username || url.password) throw refuse('must not contain a user name or password');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
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
 * (request-filtering-agent), unless the policy allows it.
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
    http: new RequestFilteringHttpAgent(options),
    https: new RequestFilteringHttpsAgent(options),
  };
}
