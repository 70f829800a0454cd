import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** IPv4-compatible IPv6 (`::a.b.c.d`, deprecated by RFC 4291): ipaddr.js still calls it unicast, but it carries an IPv4 address. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * docs/spec/DECISIONS.md, "Webhook addresses": only a public unicast address may be
 * reached. ipaddr.js knows the special ranges (loopback, private, link- and
 * site-local, unique-local, carrier-grade NAT, multicast, documentation,
 * benchmarking, and IPv6 that embeds IPv4: NAT64, 6to4, Teredo); an
 * IPv4-mapped address is judged as the IPv4 address it carries.
 */
export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) return true;
  return parsed.range() !== 'unicast';
}

/** The addresses of a host, or why it may not be used. */
export async function resolveHost(host: string): Promise<{ addresses: string[] } | { refused: string }> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(bare) ? [bare] : (await lookup(bare, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    return { refused: 'The host could not be resolved' };
  }
  if (addresses.length === 0) return { refused: 'The host could not be resolved' };
  if (addresses.some(isForbiddenAddress)) return { refused: 'The host is not a public address (loopback, private, link-local, reserved or documentation ranges are refused)' };
  return { addresses };
}
