import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';

/** Longer than any textual IP address (IPv6 with an interface name): not worth parsing. */
const MAX_ADDRESS_LENGTH = 64;

/**
 * The address rate limits, stream caps and idempotency records are kept
 * for: the socket's peer, or with TRUST_PROXY the first X-Forwarded-For entry
 * (DECISIONS) — when that entry is an IP address. Anything else there (a
 * name, a port, 16 KiB of text) is not an address, and the peer is used.
 * A forwarded address is written one way (IPv4-mapped IPv6 as IPv4), so one
 * client has one counter.
 */
export function clientAddressOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first && first.length <= MAX_ADDRESS_LENGTH && ipaddr.isValid(first)) return ipaddr.process(first).toString();
  }
  return req.socket.remoteAddress ?? 'unknown';
}
