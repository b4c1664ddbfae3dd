import { isIPv4, isIPv6 } from 'node:net';

/**
 * The subject a per-address limit counts a client under: an IPv4 address as it is (an IPv4-mapped
 * IPv6 address as its IPv4), an IPv6 address as its /64 network, since a single host commonly
 * holds a whole /64 and could otherwise take a fresh address for every request. Anything else
 * (no address known) as itself, `unknown` when empty.
 */
export function clientAddressKey(ip: string): string {
  const address = ip.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address) || !isIPv6(address)) return address || 'unknown';
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const parts = (s: string) => (s ? s.split(':') : []);
  // A trailing dotted IPv4 part stands for two groups.
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const before = parts(head);
  const after = tail === undefined ? [] : parts(tail);
  const zeros = tail === undefined ? [] : new Array<string>(8 - width(before) - width(after)).fill('0');
  return [...before, ...zeros, ...after].map((g) => (g.includes('.') ? g : parseInt(g, 16).toString(16)));
}
