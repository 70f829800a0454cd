import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { clientAddressOf } from '../src/http/client-address.ts';

/** A request as node:http hands it over: the peer's address on its socket, and its headers. */
function requestFrom(peer: string | undefined, forwardedFor?: string): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  Object.defineProperty(req.socket, 'remoteAddress', { value: peer });
  if (forwardedFor !== undefined) req.headers['x-forwarded-for'] = forwardedFor;
  return req;
}

describe('clientAddressOf: the address every per-address rule counts (DECISIONS "IPv6 clients")', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['127.0.0.1', '127.0.0.1'],
    // What a server listening on :: sees of an IPv4 client.
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2::a', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8::/64'],
    // RFC 5952: the longest run of zero groups is the one written as ::.
    ['2001:0:0:1::5', '2001:0:0:1::/64'],
    ['::1', '::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
  ])('peer %s → %s', (peer, counted) => {
    expect(clientAddressOf(requestFrom(peer), false)).toBe(counted);
  });

  it('ignores X-Forwarded-For without TRUST_PROXY', () => {
    expect(clientAddressOf(requestFrom('::ffff:10.0.0.1', '2001:db8:1:2::1'), false)).toBe('10.0.0.1');
  });

  it('a peer with no address (the socket already gone) is "unknown"', () => {
    expect(clientAddressOf(requestFrom(undefined), false)).toBe('unknown');
    expect(clientAddressOf(requestFrom(undefined, 'a name'), true)).toBe('unknown');
  });

  it.each([
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::2, 10.0.0.1', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002:0000:0000:0000:0002', '2001:db8:1:2::/64'],
    ['  2001:db8:1:3::1  ,10.0.0.1', '2001:db8:1:3::/64'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:203.0.113.7', '203.0.113.7'],
    ['::ffff:cb00:7107', '203.0.113.7'],
    ['203.0.113.7', '203.0.113.7'],
  ])('with TRUST_PROXY, X-Forwarded-For %s → %s', (forwarded, counted) => {
    expect(clientAddressOf(requestFrom('10.0.0.1', forwarded), true)).toBe(counted);
  });

  it.each([
    ['a name', 'example.com'],
    ['an address with a port', '203.0.113.7:443'],
    ['a bracketed IPv6 address', '[2001:db8:1:2::1]'],
    ['a network', '2001:db8:1:2::/64'],
    ['an empty first entry', ', 2001:db8:1:2::1'],
    ['text longer than any address', `2001:db8:1:2::1${' '.repeat(100)}x`],
  ])('with TRUST_PROXY, %s in X-Forwarded-For → the peer, counted the same way', (_what, forwarded) => {
    expect(clientAddressOf(requestFrom('10.0.0.1', forwarded), true)).toBe('10.0.0.1');
    expect(clientAddressOf(requestFrom('2001:db8:5:6::7', forwarded), true)).toBe('2001:db8:5:6::/64');
  });

  it('gives the same answer the second time (the parsed form is remembered)', () => {
    for (let round = 0; round < 3; round++) {
      expect(clientAddressOf(requestFrom('2001:db8:aa:bb::1'), false)).toBe('2001:db8:aa:bb::/64');
      expect(clientAddressOf(requestFrom('10.0.0.1', 'example.com'), true)).toBe('10.0.0.1');
    }
  });
});
