import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ONE_SECOND_INTO_A_MINUTE } from './support/client-addresses.ts';
import { rowsOf } from './support/db-rows.ts';
import { jsonBody, request } from './support/http.ts';
import { ManualClock } from './support/manual-clock.ts';
import { createNetworkNamespace, networkNamespaceUnavailable, type NamespacedRequest, type NetworkNamespace } from './support/network-namespace.ts';
import { describeOnPostgres } from './support/postgres-only.ts';
import { openSse, type SseReader } from './support/sse-reader.ts';
import { startTestServer, type TestServer, useTestServer } from './support/test-server.ts';

// docs/spec/DECISIONS.md, "IPv6 clients": every per-address rule counts an IPv6 client by its
// /64, and an IPv4-mapped IPv6 address as its IPv4 address. The clock stands
// one second into an aligned window, so every request of a test falls in one.
const START = ONE_SECOND_INTO_A_MINUTE;

/** The clients a limit has counted, as stored: the written form is part of the rule. */
async function countedClients(server: TestServer, limit: string): Promise<string[]> {
  const rows = await rowsOf<{ client: string }>(server, sql`select distinct client from rate_limit_windows where name = ${limit} order by client`);
  return rows.map((row) => row.client);
}

const namespaceUnavailable = networkNamespaceUnavailable();

describe('clients on IPv6 addresses of their own (a network namespace, a server on ::)', () => {
  if (namespaceUnavailable) {
    it('needs a network namespace of its own', (context) => context.skip(`Needs a network namespace (root and iproute2 on Linux): ${namespaceUnavailable}`));
    return;
  }
  const clock = new ManualClock(START);
  const server = useTestServer({ clock, env: { HOST: '::', RATE_LIMIT_KEYS_PER_HOUR: '2' } });
  let namespace: NetworkNamespace | undefined;
  beforeAll(async () => {
    namespace = await createNetworkNamespace();
  });
  afterAll(async () => {
    await namespace?.remove();
  });

  const inNamespace = (): NetworkNamespace => {
    if (!namespace) throw new Error('The network namespace was not created.');
    return namespace;
  };
  const send = (requests: NamespacedRequest[]) => inNamespace().send(Number(new URL(server.url).port), requests);

  it('two addresses of one /64 share the demo limit; an address of another /64 has its own', async () => {
    clock.set(START);
    const { sameNetwork: [a, b], otherNetwork: c, networks } = inNamespace();
    const demo = (from: string): NamespacedRequest => ({ from, path: '/api/limits/demo' });
    const answers = await send([demo(a), demo(a), demo(a), demo(b), demo(b), demo(b), demo(a), demo(c)]);
    expect(answers.map((answer) => [answer.status, answer.headers.ratelimit])).toEqual([
      [200, '"demo";r=4;t=9'],
      [200, '"demo";r=3;t=9'],
      [200, '"demo";r=2;t=9'],
      [200, '"demo";r=1;t=9'],
      [200, '"demo";r=0;t=9'],
      [429, '"demo";r=0;t=9'],
      [429, '"demo";r=0;t=9'],
      [200, '"demo";r=4;t=9'],
    ]);
    expect(await countedClients(server, 'demo')).toEqual([`ip:${networks.same}`, `ip:${networks.other}`].sort());
  });

  it('key-create counts the /64, whatever credential the request carries', async () => {
    clock.set(START);
    const { sameNetwork: [a, b], otherNetwork: c, networks } = inNamespace();
    const createKey = (from: string, headers: Record<string, string> = {}): NamespacedRequest => ({
      from,
      method: 'POST',
      path: '/api/keys',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ name: `from ${from}` }),
    });
    const answers = await send([createKey(a), createKey(b), createKey(a), createKey(c)]);
    expect(answers.map((answer) => [answer.status, answer.headers.ratelimit])).toEqual([
      [201, '"key-create";r=1;t=3599'],
      [201, '"key-create";r=0;t=3599'],
      [429, '"key-create";r=0;t=3599'],
      [201, '"key-create";r=1;t=3599'],
    ]);
    const { key } = JSON.parse(answers[3]!.body) as { key: string };
    const [withKey] = await send([createKey(b, { Authorization: `Bearer ${key}` })]);
    expect([withKey!.status, withKey!.headers.ratelimit]).toEqual([429, '"key-create";r=0;t=3599']);
    expect(await countedClients(server, 'key-create')).toEqual([`ip:${networks.same}`, `ip:${networks.other}`].sort());
  });
});

// The socket's IPv4-mapped address and the forwarded addresses on one server
// (each embedded database takes seconds to start): with TRUST_PROXY, a request
// without X-Forwarded-For is counted by its socket's peer.
describe('a server on :: behind a proxy (TRUST_PROXY=true)', () => {
  const clock = new ManualClock(START);
  const server = useTestServer({ clock, env: { HOST: '::', TRUST_PROXY: 'true', SSE_MAX_STREAMS_PER_CLIENT: '2', SSE_STREAM_MS: '60000' } });
  const demo = (forwarded: string) => request(`${server.url}/api/limits/demo`, { headers: { 'X-Forwarded-For': forwarded } });

  it('an IPv4 client (socket address ::ffff:127.0.0.1) counts as 127.0.0.1: it shares one demo limit with requests forwarded for 127.0.0.1', async () => {
    clock.set(START);
    const direct = () => request(`${server.url}/api/limits/demo`);
    const forwarded = () => request(`${server.url}/api/limits/demo`, { headers: { 'X-Forwarded-For': '127.0.0.1' } });
    const answers = [await direct(), await direct(), await direct(), await forwarded(), await forwarded(), await direct()];
    expect(answers.map((answer) => [answer.status, answer.headers.get('ratelimit')])).toEqual([
      [200, '"demo";r=4;t=9'],
      [200, '"demo";r=3;t=9'],
      [200, '"demo";r=2;t=9'],
      [200, '"demo";r=1;t=9'],
      [200, '"demo";r=0;t=9'],
      [429, '"demo";r=0;t=9'],
    ]);
    expect((await countedClients(server, 'demo')).filter((client) => client.includes('127.0.0.1'))).toEqual(['ip:127.0.0.1']);
  });

  it('X-Forwarded-For 2001:db8:1:2::1 and 2001:db8:1:2::2 (in any spelling) share the demo limit; 2001:db8:1:3::1 has its own', async () => {
    clock.set(START);
    const answers = [
      await demo('2001:db8:1:2::1'),
      await demo('2001:db8:1:2::2'),
      await demo('2001:DB8:0001:0002:0000:0000:0000:0003, 10.0.0.1'),
      await demo('2001:db8:1:2:ffff:ffff:ffff:ffff'),
      await demo('2001:db8:1:2::1'),
      await demo('2001:db8:1:2::5'),
      await demo('2001:db8:1:3::1'),
    ];
    expect(answers.map((answer) => [answer.status, answer.headers.get('ratelimit')])).toEqual([
      [200, '"demo";r=4;t=9'],
      [200, '"demo";r=3;t=9'],
      [200, '"demo";r=2;t=9'],
      [200, '"demo";r=1;t=9'],
      [200, '"demo";r=0;t=9'],
      [429, '"demo";r=0;t=9'],
      [200, '"demo";r=4;t=9'],
    ]);
    const clients = await countedClients(server, 'demo');
    expect(clients).toContain('ip:2001:db8:1:2::/64');
    expect(clients).toContain('ip:2001:db8:1:3::/64');
    expect(clients.filter((client) => client.startsWith('ip:2001:'))).toHaveLength(2);
  });

  it('X-Forwarded-For ::ffff:203.0.113.7 counts as 203.0.113.7', async () => {
    clock.set(START);
    const answers = [await demo('203.0.113.7'), await demo('::ffff:203.0.113.7'), await demo('::ffff:cb00:7107'), await demo('203.0.113.7'), await demo('::FFFF:203.0.113.7'), await demo('::ffff:203.0.113.7')];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await countedClients(server, 'demo')).filter((client) => client.includes('203.0.113.7') || client.includes('cb00'))).toEqual(['ip:203.0.113.7']);
  });

  it('the stream cap counts the /64', async () => {
    const streamUrl = `${server.url}/api/scores/stream?game=demo`;
    const open: SseReader[] = [];
    try {
      for (const forwarded of ['2001:db8:7:2::1', '2001:db8:7:2::2']) {
        const stream = await openSse(streamUrl, { 'X-Forwarded-For': forwarded });
        expect(stream.status).toBe(200);
        open.push(stream);
      }
      // Read as a stream: were it let through, it would stay open rather than end.
      const refused = await openSse(streamUrl, { 'X-Forwarded-For': '2001:db8:7:2::3' });
      open.push(refused);
      expect(refused.status).toBe(429);
      const neighbour = await openSse(streamUrl, { 'X-Forwarded-For': '2001:db8:7:3::1' });
      expect(neighbour.status).toBe(200);
      open.push(neighbour);
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it('an anonymous Idempotency-Key belongs to the /64', async () => {
    const key = randomUUID();
    const submit = (forwarded: string) =>
      request<{ id: string }>(`${server.url}/api/scores`, { method: 'POST', ...jsonBody({ game: 'demo', initials: 'SIX', value: 64 }, { 'Idempotency-Key': key, 'X-Forwarded-For': forwarded }) });
    const first = await submit('2001:db8:9:2::1');
    const sameNetwork = await submit('2001:db8:9:2::2');
    const otherNetwork = await submit('2001:db8:9:3::1');
    expect([first.status, sameNetwork.status, otherNetwork.status]).toEqual([201, 201, 201]);
    expect(sameNetwork.headers.get('idempotent-replayed')).toBe('true');
    expect(sameNetwork.body.id).toBe(first.body.id);
    expect(otherNetwork.headers.get('idempotent-replayed')).toBeNull();
    expect(otherNetwork.body.id).not.toBe(first.body.id);
  });
});

describeOnPostgres('an IPv4 client of two instances, one on :: and one on 127.0.0.1', 'two instances share counters only through a database server (each PGlite is its own)', () => {
  const clock = new ManualClock(START);
  let dualStack: TestServer | undefined;
  let ipv4Only: TestServer | undefined;
  beforeAll(async () => {
    dualStack = await startTestServer({ clock, env: { HOST: '::' } });
    // The same client reaches this one as plain 127.0.0.1.
    ipv4Only = await startTestServer({ clock, database: dualStack.database });
  });
  afterAll(async () => {
    await ipv4Only?.stop();
    await dualStack?.stop();
  });

  it('is one client: one demo limit across both', async () => {
    clock.set(START);
    const on = (target: TestServer | undefined) => request(`${target!.url}/api/limits/demo`);
    const answers = [await on(dualStack), await on(dualStack), await on(dualStack), await on(ipv4Only), await on(ipv4Only), await on(dualStack)];
    expect(answers.map((answer) => [answer.status, answer.headers.get('ratelimit')])).toEqual([
      [200, '"demo";r=4;t=9'],
      [200, '"demo";r=3;t=9'],
      [200, '"demo";r=2;t=9'],
      [200, '"demo";r=1;t=9'],
      [200, '"demo";r=0;t=9'],
      [429, '"demo";r=0;t=9'],
    ]);
    expect(await countedClients(dualStack!, 'demo')).toEqual(['ip:127.0.0.1']);
  });
});
