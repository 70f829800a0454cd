import type { IncomingMessage } from 'node:http';

/**
 * The address rate limits and idempotency records are kept for: the socket's
 * peer, or with TRUST_PROXY the first X-Forwarded-For entry (DECISIONS).
 */
export function clientAddressOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}
