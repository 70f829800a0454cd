import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { jsonBody, request, type JsonResponse } from './support/http.ts';
import { bearer, createKey, exchangeForToken } from './support/keys-client.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectProblem, type Problem } from './support/problem.ts';
import { submitScore } from './support/scores-client.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { subscribeVerified } from './support/webhooks-client.ts';

const SETTLED = { timeout: 10_000, interval: 50 };
const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '50,50,50', WEBHOOK_POLL_MS: '50', RATE_LIMIT_KEYS_PER_HOUR: '100000' };

let server: TestServer;
let clock: ManualClock;
/** A second server where no event is ever stored: subscriptions made there never get a delivery. */
let quiet: TestServer;
beforeAll(async () => {
  clock = new ManualClock(Date.now());
  [server, quiet] = await Promise.all([startTestServer({ clock, env: WEBHOOK_ENV }), startTestServer({ env: WEBHOOK_ENV })]);
});
afterAll(() => Promise.all([server.stop(), quiet.stop()]));

/** A subscription whose receiver has answered its challenge, as `{ body: { id } }`: only active ones are sent events. */
const subscribe = async (headers: Record<string, string>, body: { url: string }) => ({ body: await subscribeVerified(server.url, headers, body.url) });

/** A subscription's event deliveries (its verification request left out). */
async function deliveriesOf(subscriptionId: string): Promise<{ status: string; attempts: number }[]> {
  return rowsOf(server, sql`select status, attempts from webhook_deliveries where subscription_id = ${subscriptionId} and type <> 'webhook.verification' order by created_at`);
}

/** Waits until the first attempt's 503 is recorded and its retry scheduled (the receiver answers before the service records). */
async function retryScheduled(subscriptionId: string): Promise<void> {
  await vi.waitFor(async () => {
    const rows = await rowsOf(server, sql`select status, attempts, last_response_status as "lastResponseStatus" from webhook_deliveries where subscription_id = ${subscriptionId} and type <> 'webhook.verification'`);
    expect(rows).toEqual([{ status: 'pending', attempts: 1, lastResponseStatus: 503 }]);
  }, SETTLED);
}

async function statusOf(subscriptionId: string): Promise<string> {
  const [row] = await rowsOf<{ status: string }>(server, sql`select status from webhook_subscriptions where id = ${subscriptionId}`);
  return row!.status;
}

describe('at most 10 subscriptions per key', () => {
  const TOO_MANY = { path: '', message: 'A key can have at most 10 webhook subscriptions' };
  const subscribeTo = (headers: Record<string, string>, url: string) =>
    request<{ id: string }>(`${quiet.url}/api/webhooks`, { method: 'POST', ...jsonBody({ url }, headers) });

  it('the 11th is a 422 at path "" — whether the key or one of its tokens asks — and another key has its own 10', async () => {
    const key = await createKey(quiet.url, { name: 'fan-out' });
    const token = await exchangeForToken(quiet.url, key.key);
    for (let i = 0; i < 10; i++) {
      const response = await subscribeTo(bearer(i % 2 ? key.key : token), `https://example.com/hook/${i}`);
      expect(response.status).toBe(201);
    }
    for (const credential of [key.key, token]) {
      const refused = await subscribeTo(bearer(credential), 'https://example.com/hook/11');
      expect(expectProblem(refused, quiet.baseUrl, 'validation', 422, '/api/webhooks').errors).toEqual([TOO_MANY]);
    }
    const list = await request<{ items: { id: string }[] }>(`${quiet.url}/api/webhooks`, { headers: bearer(key.key) });
    expect(list.body.items).toHaveLength(10);

    // Deleting one makes room for one.
    expect((await request(`${quiet.url}/api/webhooks/${list.body.items[0]!.id}`, { method: 'DELETE', headers: bearer(key.key) })).status).toBe(204);
    expect((await subscribeTo(bearer(key.key), 'https://example.com/hook/again')).status).toBe(201);

    const other = await createKey(quiet.url, { name: 'other' });
    expect((await subscribeTo(bearer(other.key), 'https://example.com/hook/other')).status).toBe(201);
  });

  it('holds under 25 concurrent requests: exactly 10 are created', async () => {
    const key = await createKey(quiet.url, { name: 'racer' });
    const responses = await Promise.all(Array.from({ length: 25 }, (_, i) => subscribeTo(bearer(key.key), `https://example.com/race/${i}`)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 422)).toHaveLength(15);
    const [row] = await rowsOf<{ n: number }>(quiet, sql`select count(*)::int as n from webhook_subscriptions where owner_key_id = ${key.id}`);
    expect(row!.n).toBe(10);
  });
});

// The clock only moves when a test moves it, so a retry falls due exactly when the test says so.
describe('a subscription lives as long as its key', () => {
  it('revoking the key ends its pending deliveries as disabled, and nothing more is sent to it', async () => {
    const doomed = await startWebhookReceiver();
    doomed.respond = () => 503;
    const control = await startWebhookReceiver();
    try {
      const key = await createKey(server.url, { name: 'doomed' });
      const token = await exchangeForToken(server.url, key.key);
      const created = await subscribe(bearer(key.key), { url: doomed.url });
      await submitScore(server.url, { game: 'demo', initials: 'REV', value: 1 });
      await doomed.waitFor(1);
      await retryScheduled(created.body.id);

      expect((await request(`${server.url}/api/keys/${key.id}`, { method: 'DELETE', headers: bearer(key.key) })).status).toBe(204);
      expect(await statusOf(created.body.id)).toBe('disabled');
      expect(await deliveriesOf(created.body.id)).toEqual([{ status: 'disabled', attempts: 1 }]);

      // The retry would be due now, and a new event is stored: another key's receiver hears of the event,
      // and the worker claims due deliveries oldest first, so the revoked one would have gone out before it.
      clock.advance(60_000);
      const other = await createKey(server.url, { name: 'control' });
      await subscribe(bearer(other.key), { url: control.url });
      await submitScore(server.url, { game: 'demo', initials: 'REV', value: 2 });
      await control.waitFor(1);
      expect(doomed.arrived).toBe(1);
      expect(await deliveriesOf(created.body.id)).toEqual([{ status: 'disabled', attempts: 1 }]);

      // Its token still works for its 15 minutes, and shows what happened.
      const seen = await request<{ status: string }>(`${server.url}/api/webhooks/${created.body.id}`, { headers: bearer(token) });
      expect(seen.body.status).toBe('disabled');
    } finally {
      await doomed.close();
      await control.close();
    }
  });

  it('a key that expires with a retry pending: the retry ends as disabled, unsent, and later events make no delivery', async () => {
    const receiver = await startWebhookReceiver();
    receiver.respond = () => 503;
    try {
      const key = await createKey(server.url, { name: 'expiring' });
      const created = await subscribe(bearer(key.key), { url: receiver.url });
      await submitScore(server.url, { game: 'demo', initials: 'EXP', value: 3 });
      await receiver.waitFor(1);
      await retryScheduled(created.body.id);

      clock.advance(24 * 60 * 60 * 1000 + 1000);
      await vi.waitFor(async () => expect(await deliveriesOf(created.body.id)).toEqual([{ status: 'disabled', attempts: 1 }]), SETTLED);
      expect(await statusOf(created.body.id)).toBe('disabled');
      await submitScore(server.url, { game: 'demo', initials: 'EXP', value: 4 });
      expect(await deliveriesOf(created.body.id)).toHaveLength(1);
      expect(receiver.arrived).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it('a key removed by retention: its subscriptions are disabled with their pending deliveries', async () => {
    const receiver = await startWebhookReceiver();
    receiver.respond = () => 503;
    try {
      const key = await createKey(server.url, { name: 'oldest' });
      const token = await exchangeForToken(server.url, key.key);
      const created = await subscribe(bearer(key.key), { url: receiver.url });
      await submitScore(server.url, { game: 'demo', initials: 'RET', value: 5 });
      await receiver.waitFor(1);
      await retryScheduled(created.body.id);
      // One millisecond on (not enough for the retry to fall due): 500 keys newer than this one.
      clock.advance(1);
      for (let i = 0; i < 500; i++) await createKey(server.url, { name: `newer ${i}` });
      // On again, so that a key another case creates later is the newest rather than one of 501 in this millisecond
      // (ties go by id, and a random id would make that key retention's next victim).
      clock.advance(1);
      const [stored] = await rowsOf<{ n: number }>(server, sql`select count(*)::int as n from api_keys where id = ${key.id}`);
      expect(stored!.n).toBe(0);
      expect(await statusOf(created.body.id)).toBe('disabled');
      expect(await deliveriesOf(created.body.id)).toEqual([{ status: 'disabled', attempts: 1 }]);
      const seen = await request<{ status: string }>(`${server.url}/api/webhooks/${created.body.id}`, { headers: bearer(token) });
      expect(seen.body.status).toBe('disabled');
    } finally {
      await receiver.close();
    }
  });
});

describe('addresses a webhook may point at: public unicast only', () => {
  let guarded: TestServer;
  let headers: Record<string, string>;
  beforeAll(async () => {
    guarded = await startTestServer();
    headers = bearer((await createKey(guarded.url, { name: 'ssrf' })).key);
  });
  afterAll(() => guarded.stop());

  const attempt = (url: string): Promise<JsonResponse<Problem>> =>
    request<Problem>(`${guarded.url}/api/webhooks`, { method: 'POST', ...jsonBody({ url }, headers) });

  it.each([
    ['IPv4-compatible IPv6', 'http://[::7f00:1]/'],
    ['IPv4-mapped IPv6 in hex', 'http://[::ffff:7f00:1]/'],
    ['NAT64 well-known prefix', 'http://[64:ff9b::7f00:1]/'],
    ['NAT64 local-use prefix', 'http://[64:ff9b:1::a00:1]/'],
    ['6to4', 'http://[2002:7f00:1::]/'],
    ['Teredo', 'http://[2001::1]/'],
    ['site-local', 'http://[fec0::1]/'],
    ['IPv6 documentation', 'http://[2001:db8::1]/'],
    ['IPv6 benchmarking', 'http://[2001:2::1]/'],
    ['IPv4 documentation TEST-NET-1', 'http://192.0.2.1/'],
    ['IPv4 documentation TEST-NET-2', 'http://198.51.100.1/'],
    ['IPv4 documentation TEST-NET-3', 'http://203.0.113.1/'],
    ['IPv4 benchmarking', 'http://198.18.0.1/'],
    ['carrier-grade NAT', 'http://100.64.0.1/'],
    ['broadcast', 'http://255.255.255.255/'],
    ['this network', 'http://0.0.0.0/'],
    ['multicast', 'http://224.0.0.1/'],
    ['loopback as a decimal number', 'http://2130706433/'],
    ['loopback in hex parts', 'http://0x7f.1/'],
  ])('%s (%s) → 422 at url', async (_, url) => {
    const problem = expectProblem(await attempt(url), guarded.baseUrl, 'validation', 422, '/api/webhooks');
    expect(problem.errors?.map((entry) => entry.path)).toEqual(['url']);
  });

  it.each(['http://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook'])('a public address (%s) is accepted', async (url) => {
    expect((await attempt(url)).status).toBe(201);
  });
});

describe('NUL characters', () => {
  it.each([
    [{ url: 'https://example.com/a\u0000b' }, 'url'],
    [{ url: 'https://example.com/hook', description: 'nice\u0000' }, 'description'],
  ])('%j → 422 at %s with the NUL message, nothing stored', async (body, path) => {
    const key = await createKey(quiet.url, { name: 'nul' });
    const response = await request<Problem>(`${quiet.url}/api/webhooks`, { method: 'POST', ...jsonBody(body, bearer(key.key)) });
    expect(expectProblem(response, quiet.baseUrl, 'validation', 422, '/api/webhooks').errors).toEqual([{ path, message: 'Remove the NUL character' }]);
    const [row] = await rowsOf<{ n: number }>(quiet, sql`select count(*)::int as n from webhook_subscriptions where owner_key_id = ${key.id}`);
    expect(row!.n).toBe(0);
  });
});
