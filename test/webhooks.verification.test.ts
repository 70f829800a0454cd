import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { jsonBody, request } from './support/http.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { ManualClock } from './support/manual-clock.ts';
import { submitScore } from './support/scores-client.ts';
import { startTestServer, useTestServer } from './support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';
import { SETTLED, subscribe, subscriptionStatus } from './support/webhooks-client.ts';

// Private targets allowed (the receivers are on loopback), retries after 50 ms, a fast poll.
const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '50,50,50,50,50', WEBHOOK_POLL_MS: '50', RATE_LIMIT_KEYS_PER_HOUR: '1000' };

const server = useTestServer({ env: WEBHOOK_ENV });
let owner: Record<string, string>;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  owner = bearer((await createKey(server.url, { name: 'verifier' })).key);
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

/** Every delivery row of the subscription, oldest first: verification requests and events alike. */
const deliveryRows = (id: string) =>
  rowsOf<{ type: string; status: string; attempts: number }>(server, sql`select type, status, attempts from webhook_deliveries where subscription_id = ${id} order by created_at, type`);

describe('a new subscription proves its receiver wants it', () => {
  it('answers 201 pending at once, sends a signed webhook.verification challenge, and is active once the receiver echoes it', async () => {
    const willing = await receiver();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    willing.verify = async (_request, challenge) => {
      await held;
      return { status: 200, body: challenge };
    };
    const created = await subscribe(server.url, owner, willing.url);
    expect(created.status).toBe('pending');
    const [challenge] = await willing.waitForVerifications(1);
    // Still pending while the receiver has not answered.
    expect(await subscriptionStatus(server.url, owner, created.id)).toBe('pending');

    const message = new Webhook(created.secret).verify(challenge!.body, {
      'webhook-id': challenge!.headers['webhook-id'] as string,
      'webhook-timestamp': challenge!.headers['webhook-timestamp'] as string,
      'webhook-signature': challenge!.headers['webhook-signature'] as string,
    }) as { type: string; timestamp: string; data: { challenge: string } };
    expect(message).toEqual({ type: 'webhook.verification', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), data: { challenge: expect.any(String) } });
    expect(message.data.challenge.length).toBeGreaterThanOrEqual(32);
    expect(Object.keys(JSON.parse(challenge!.body) as object)).toEqual(['type', 'timestamp', 'data']);

    release();
    await vi.waitFor(async () => expect(await subscriptionStatus(server.url, owner, created.id)).toBe('active'), SETTLED);
    const score = await submitScore(server.url, { game: 'demo', initials: 'VFY', value: 1 });
    const [event] = await willing.waitFor(1);
    expect(JSON.parse(event!.body)).toMatchObject({ type: 'score.submitted', data: score });
  });

  it('a challenge echoed with surrounding whitespace counts', async () => {
    const spacious = await receiver();
    spacious.verify = (_request, challenge) => ({ status: 200, body: `\n  ${challenge}\r\n` });
    const created = await subscribe(server.url, owner, spacious.url);
    await vi.waitFor(async () => expect(await subscriptionStatus(server.url, owner, created.id)).toBe('active'), SETTLED);
  });

  it.each([
    ['200 with an empty body', () => ({ status: 200, body: '' })],
    ['204 with no body', () => ({ status: 204, body: '' })],
    ['200 with the challenge inside JSON', (challenge: string) => ({ status: 200, body: JSON.stringify({ challenge }) })],
    ['200 with another challenge', () => ({ status: 200, body: 'x'.repeat(43) })],
    ['500 with the challenge', (challenge: string) => ({ status: 500, body: challenge })],
  ])('a receiver that answers %s gets the challenge and its three retries, then the subscription fails and never receives an event', async (_name, answer) => {
    const unwilling = await receiver();
    unwilling.verify = (_request, challenge) => answer(challenge);
    const created = await subscribe(server.url, owner, unwilling.url);
    // An event while it is pending, and one after it has failed: neither is sent.
    await submitScore(server.url, { game: 'demo', initials: 'PND', value: 2 });
    const attempts = await unwilling.waitForVerifications(4);
    expect(new Set(attempts.map((attempt) => attempt.headers['webhook-id'])).size).toBe(1);
    await vi.waitFor(async () => expect(await subscriptionStatus(server.url, owner, created.id)).toBe('failed'), SETTLED);
    await submitScore(server.url, { game: 'demo', initials: 'FLD', value: 3 });
    // The verification is the only delivery it has: no event was queued for it while pending or failed.
    expect(await deliveryRows(created.id)).toEqual([{ type: 'webhook.verification', status: 'failed', attempts: 4 }]);
    expect(unwilling.verifications).toHaveLength(4);
    expect(unwilling.arrived).toBe(0);
  });

  it('events stored while a subscription is pending are not delivered to it; those after it is active are', async () => {
    const late = await receiver();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    late.verify = async (_request, challenge) => {
      await held;
      return { status: 200, body: challenge };
    };
    const created = await subscribe(server.url, owner, late.url);
    await late.waitForVerifications(1);
    await submitScore(server.url, { game: 'demo', initials: 'ERL', value: 4 });
    release();
    await vi.waitFor(async () => expect(await subscriptionStatus(server.url, owner, created.id)).toBe('active'), SETTLED);
    const after = await submitScore(server.url, { game: 'demo', initials: 'AFT', value: 5 });
    const [only] = await late.waitFor(1);
    expect(JSON.parse(only!.body)).toMatchObject({ data: { id: after.id } });
    expect((await deliveryRows(created.id)).map((row) => row.type)).toEqual(['webhook.verification', 'score.submitted']);
  });

  it('the delivery log shows the verification requests with the receiver\'s answers', async () => {
    const unwilling = await receiver();
    unwilling.verify = () => ({ status: 403, body: 'no thanks' });
    const created = await subscribe(server.url, owner, unwilling.url);
    await vi.waitFor(async () => expect(await subscriptionStatus(server.url, owner, created.id)).toBe('failed'), SETTLED);
    const log = await request<{ items: { type: string; eventId: number | null; status: string; attempts: number; lastResponseStatus: number }[] }>(`${server.url}/api/webhooks/${created.id}/deliveries`, { headers: owner });
    expect(log.body.items).toEqual([expect.objectContaining({ type: 'webhook.verification', eventId: null, status: 'failed', attempts: 4, lastResponseStatus: 403 })]);
  });
});

describe('webhook-writes: creating and deleting subscriptions, 30 a minute per client', () => {
  // Whole minutes of the Unix clock are windows: a test that starts just before one ends would see two.
  const START = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;

  it('counts creations and deletions on REST and tRPC alike; the 31st is a 429 with the limit\'s headers, and changes nothing', async () => {
    const limited = await startTestServer({ env: WEBHOOK_ENV, clock: new ManualClock(START) });
    try {
      const key = await createKey(limited.url, { name: 'writer' });
      const headers = bearer(key.key);
      const overRest = (path: string) => request<{ id: string }>(`${limited.url}/api/webhooks`, { method: 'POST', ...jsonBody({ url: `https://example.com/${path}` }, headers) });
      const overTrpc = (path: string) =>
        request<{ result: { data: { id: string } } }>(`${limited.url}/api/trpc/webhooks.create`, { method: 'POST', ...jsonBody({ url: `https://example.com/${path}` }, headers) });
      const writes = [];
      // Ten creations each way, and ten deletions: thirty writes (the key holds at most ten at once).
      for (let i = 0; i < 5; i++) {
        const rest = await overRest(`rest-${i}`);
        const trpc = await overTrpc(`trpc-${i}`);
        writes.push(rest, trpc);
        writes.push(await request(`${limited.url}/api/webhooks/${rest.body.id}`, { method: 'DELETE', headers }));
        writes.push(await request(`${limited.url}/api/webhooks/${trpc.body.result.data.id}`, { method: 'DELETE', headers }));
      }
      for (let i = 5; i < 10; i++) writes.push(await overRest(`rest-${i}`), await overTrpc(`trpc-${i}`));
      expect(writes.map((response) => response.status)).toEqual([...Array(5).fill([201, 200, 204, 204]).flat(), ...Array(10).fill(0).map((_, i) => (i % 2 ? 200 : 201))]);
      for (const response of writes) expect(response.headers.get('ratelimit-policy')).toBe('"webhook-writes";q=30;w=60');
      expect(writes.at(-1)!.headers.get('ratelimit')).toMatch(/^"webhook-writes";r=0;t=\d+$/);
      const [before] = await rowsOf<{ n: number }>(limited, sql`select count(*)::int as n from webhook_subscriptions`);
      const refused = await overRest('one-too-many');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.headers.get('ratelimit')).toMatch(/^"webhook-writes";r=0;t=\d+$/);
      expect((refused.body as unknown as { type: string }).type).toBe(`${limited.baseUrl}/problems/rate-limited`);
      expect((await overTrpc('one-too-many')).status).toBe(429);
      const [after] = await rowsOf<{ n: number }>(limited, sql`select count(*)::int as n from webhook_subscriptions`);
      expect(after!.n).toBe(before!.n);
      // Reading is not a write.
      expect((await request(`${limited.url}/api/webhooks`, { headers })).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});
