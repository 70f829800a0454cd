import type { IncomingMessage } from 'node:http';
import { countedAddressOf } from './counted-address.ts';

/** Longer than any textual IP address (IPv6 with an interface name): not worth parsing. */
const MAX_ADDRESS_LENGTH = 64;

/**
 * The address rate limits, stream caps and idempotency records are kept
 * for: the socket's peer, or with TRUST_PROXY the first X-Forwarded-For entry
 * (docs/spec/DECISIONS.md) — when that entry is an IP address. Anything else there (a
 * name, a port, 16 KiB of text) is not an address, and the peer is used.
 * Either is written in its counted form (see countedAddressOf): IPv4 as is,
 * IPv4-mapped IPv6 — what a server on `::` sees of an IPv4 client — as IPv4,
 * other IPv6 as its /64. So one client has one counter however it arrives.
 */
export function clientAddressOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    const counted = first && first.length <= MAX_ADDRESS_LENGTH ? countedAddressOf(first) : undefined;
    if (counted) return counted;
  }
  const peer = req.socket.remoteAddress;
  if (peer === undefined) return 'unknown';
  // Node writes the peer as an address, so it always has a counted form; the fallback is for types' sake.
  return countedAddressOf(peer) ?? peer;
}
