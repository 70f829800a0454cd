import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { request } from './support/http.ts';
import { bearer, createKey, exchangeForToken } from './support/keys-client.ts';
import { ManualClock } from './support/manual-clock.ts';
import { submitScore } from './support/scores-client.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';
import { SETTLED, subscribeVerified } from './support/webhooks-client.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/**
 * docs/spec/DECISIONS.md, "Stored growth": deliveries are kept while their event is (7
 * days) and at most the newest 100 per subscription; a subscription whose key
 * is gone is deleted with its deliveries once nothing of it is pending. The
 * manual clock stands in for days of load; the worker's own timers run on
 * real time, so it tidies up as it would.
 */
let server: TestServer;
let clock: ManualClock;
let receiver: WebhookReceiver;
beforeAll(async () => {
  clock = new ManualClock(Date.now());
  server = await startTestServer({ clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50', RATE_LIMIT_KEYS_PER_HOUR: '1000000' } });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await server.stop();
  await receiver.close();
});

const count = async (query: ReturnType<typeof sql>) => (await rowsOf<{ n: number }>(server, query))[0]!.n;
const deliveriesOf = (subscriptionId: string) => count(sql`select count(*)::int as n from webhook_deliveries where subscription_id = ${subscriptionId}`);
const tableSizes = async () => ({
  deliveries: await count(sql`select count(*)::int as n from webhook_deliveries`),
  subscriptions: await count(sql`select count(*)::int as n from webhook_subscriptions`),
});

/** The 15 minutes a key's tokens outlive it: its subscriptions stay that long, for them to see. */
const TOKENS_OUTLIVE_KEYS = 15 * 60_000;

/** Subscriptions whose key was revoked, expired or removed longer ago than its tokens live, by the service's clock. */
const subscriptionsOfKeysLongGone = () =>
  count(sql`select count(*)::int as n from webhook_subscriptions s where not exists (
    select 1 from api_keys k where k.id = s.owner_key_id
      and coalesce(k.revoked_at, k.expires_at) > ${new Date(clock.now().getTime() - TOKENS_OUTLIVE_KEYS).toISOString()}::timestamptz)`);

/** Scores submitted one after another, then every delivery sent (the receiver answers at once) before time moves on. */
async function scores(howMany: number): Promise<void> {
  for (let i = 0; i < howMany; i++) await submitScore(server.url, { game: 'demo', initials: 'GRW', value: i });
  await vi.waitFor(async () => expect(await count(sql`select count(*)::int as n from webhook_deliveries where status = 'pending'`)).toBe(0), SETTLED);
}

/** Moves the clock on and waits until the worker has tidied up after it (its sweep runs at most once a minute). */
async function tidiedAfter(ms: number, until: () => Promise<void>): Promise<void> {
  clock.advance(ms);
  await vi.waitFor(until, SETTLED);
}

describe('webhook deliveries do not grow without bound', () => {
  it('keeps at most the newest 100 per subscription, the delivery log\'s own length', async () => {
    const key = await createKey(server.url, { name: 'steady' });
    const { id } = await subscribeVerified(server.url, bearer(key.key), receiver.url);
    await scores(130);
    await tidiedAfter(2 * 60_000, async () => expect(await deliveriesOf(id)).toBe(100));
    const log = await request<{ items: { eventId: number | null }[] }>(`${server.url}/api/webhooks/${id}/deliveries`, { headers: bearer(key.key) });
    expect(log.body.items).toHaveLength(100);
    // The newest: the last score's event first.
    const [newest] = await rowsOf<{ id: number }>(server, sql`select max(id)::int as id from events`);
    expect(log.body.items[0]!.eventId).toBe(newest!.id);
  });

  it('keeps none longer than their event: 7 days', async () => {
    const key = await createKey(server.url, { name: 'week' });
    const { id } = await subscribeVerified(server.url, bearer(key.key), receiver.url);
    await scores(2);
    // A key lives a day, so no subscription of a live key has a delivery a week old; one written so stands for any.
    const weekOld = new Date(clock.now().getTime() - 7 * DAY - 60_000).toISOString();
    await server.app.database.db.execute(sql`
      insert into webhook_deliveries (id, subscription_id, event_id, type, payload, status, attempts, created_at)
      values (gen_random_uuid(), ${id}, 1, 'score.submitted', '{}', 'delivered', 1, ${weekOld}::timestamptz)`);
    expect(await deliveriesOf(id)).toBe(4);
    await tidiedAfter(2 * 60_000, async () => expect(await deliveriesOf(id)).toBe(3));
  });

  it('stays flat under sustained load: a week of a new key and subscription every 12 hours, 10 scores each', { timeout: 90_000 }, async () => {
    const sizes: { deliveries: number; subscriptions: number }[] = [];
    for (let half = 0; half < 14; half++) {
      const key = await createKey(server.url, { name: `shift ${half}` });
      await subscribeVerified(server.url, bearer(key.key), receiver.url);
      await scores(10);
      clock.advance(12 * HOUR);
      // Tidied: the key before this one has had its 24 hours; its subscription goes once its tokens have ended too.
      await tidiedAfter(TOKENS_OUTLIVE_KEYS + 60_000, async () => expect(await subscriptionsOfKeysLongGone()).toBe(0));
      sizes.push(await tableSizes());
    }
    const steady = sizes.slice(2);
    expect(new Set(steady.map((size) => JSON.stringify(size))).size).toBe(1);
    // Its verification and its 10 scores.
    expect(steady[0]).toEqual({ subscriptions: 1, deliveries: 1 + 10 });
  });
});

describe('subscriptions of keys that are gone', () => {
  it('a revoked key\'s: kept while the key\'s tokens live (15 minutes), then deleted with its deliveries', async () => {
    const key = await createKey(server.url, { name: 'leaving' });
    const { id } = await subscribeVerified(server.url, bearer(key.key), receiver.url);
    await scores(3);
    expect(await deliveriesOf(id)).toBe(4); // the verification and three events
    const token = await exchangeForToken(server.url, key.key);
    expect((await request(`${server.url}/api/keys/${key.id}`, { method: 'DELETE', headers: bearer(key.key) })).status).toBe(204);
    // A sweep runs within the 15 minutes — it takes a subscription whose key retention removed — and leaves this one for the token to see.
    const canary = await createKey(server.url, { name: 'canary' });
    const { id: canaryId } = await subscribeVerified(server.url, bearer(canary.key), receiver.url);
    await server.app.database.db.execute(sql`delete from api_keys where id = ${canary.id}`);
    await tidiedAfter(2 * 60_000, async () => expect(await count(sql`select count(*)::int as n from webhook_subscriptions where id = ${canaryId}`)).toBe(0));
    expect(await count(sql`select count(*)::int as n from webhook_subscriptions where id = ${id}`)).toBe(1);
    expect((await request<{ status: string }>(`${server.url}/api/webhooks/${id}`, { headers: bearer(token) })).body.status).toBe('disabled');
    await tidiedAfter(TOKENS_OUTLIVE_KEYS, async () => {
      expect(await count(sql`select count(*)::int as n from webhook_subscriptions where id = ${id}`)).toBe(0);
      expect(await deliveriesOf(id)).toBe(0);
    });
  });

  it('an expired key\'s: deleted once its pending retry has ended; a live key\'s stays', async () => {
    const failing = await startWebhookReceiver();
    failing.respond = () => 503;
    try {
      const expiring = await createKey(server.url, { name: 'expiring' });
      const { id: expiringId } = await subscribeVerified(server.url, bearer(expiring.key), failing.url);
      await submitScore(server.url, { game: 'demo', initials: 'EXP', value: 1 });
      await failing.waitFor(1);
      clock.advance(23 * HOUR);
      const living = await createKey(server.url, { name: 'living' });
      const { id: livingId } = await subscribeVerified(server.url, bearer(living.key), receiver.url);
      const sentWhileAlive = failing.arrived;
      // The first key's 24 hours are over, the second's are not. The failed delivery's retry is pending,
      // and the worker ends it (unsent) when it falls due; then, its tokens ended too, the subscription goes.
      await tidiedAfter(2 * HOUR, async () => expect(await count(sql`select count(*)::int as n from webhook_subscriptions where id = ${expiringId}`)).toBe(0));
      expect(failing.arrived).toBe(sentWhileAlive);
      expect(await count(sql`select count(*)::int as n from webhook_subscriptions where id = ${livingId}`)).toBe(1);
    } finally {
      await failing.close();
    }
  });
});
