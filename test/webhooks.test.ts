import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { itOnPostgres } from './support/postgres-only.ts';
import { jsonBody, request } from './support/http.ts';
import { bearer, createKey, exchangeForToken } from './support/keys-client.ts';
import { expectProblem } from './support/problem.ts';
import { submitScore, type Score } from './support/scores-client.ts';
import { createTestDatabase, postgresUrl, type TestDatabase } from './support/test-database.ts';
import { ManualClock } from './support/manual-clock.ts';
import { startTestServer, type TestServer, useTestServer } from './support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';
import { SETTLED, subscribeVerified, type Subscription } from './support/webhooks-client.ts';

// Private targets allowed (the receiver is on loopback), retries after 50 ms, a fast poll.
const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '50,50,50', WEBHOOK_POLL_MS: '50', RATE_LIMIT_KEYS_PER_HOUR: '1000' };

const server = useTestServer({ env: WEBHOOK_ENV });
let receiver: WebhookReceiver;
let owner: Record<string, string>;
beforeAll(async () => {
  owner = bearer((await createKey(server.url, { name: 'integrator' })).key);
});
afterEach(async () => {
  // One subscription at a time: remove what a test left behind.
  const list = await request<{ items: { id: string }[] }>(`${server.url}/api/webhooks`, { headers: owner });
  for (const item of list.body.items) await request(`${server.url}/api/webhooks/${item.id}`, { method: 'DELETE', headers: owner });
  await receiver?.close();
});

/** A subscription whose receiver has answered its challenge: only active ones are sent events. */
const subscribe = (target: TestServer, headers: Record<string, string>, url: string, extra: Record<string, unknown> = {}): Promise<Subscription> =>
  subscribeVerified(target.url, headers, url, extra);

/** A subscription's event deliveries, newest first (its verification request left out). */
const deliveries = async (target: TestServer, id: string, headers = owner) => {
  const log = await request<{ items: { id: string; status: string; attempts: number; lastResponseStatus: number | null; nextAttemptAt: string | null; eventId: number; type: string }[] }>(
    `${target.url}/api/webhooks/${id}/deliveries`,
    { headers },
  );
  return { ...log, body: { items: log.body.items.filter((delivery) => delivery.type !== 'webhook.verification') } };
};

describe('retries on the service\'s clock (the standard schedule, no waiting)', () => {
  it('retries about 5 seconds and then about 300 seconds after failures (±20 %), when the clock says so and not before', async () => {
    const clock = new ManualClock(Date.now(), { timers: 'manual' });
    const timed = await startTestServer({ clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_KEYS_PER_HOUR: '1000' } });
    const own = await startWebhookReceiver();
    // Each failure answers its own status, so the test waits for the record of *that* attempt: while an
    // attempt is under way its delivery already counts it (leased, attempts + 1) and still shows the
    // previous failure's status.
    const FAILURES = [500, 503];
    own.respond = (_attempt, index) => FAILURES[index] ?? 204;
    /** Moves the clock once the worker waits for its next poll (its one timer), so no poll is skipped. */
    const advanceWhenWaiting = async (ms: number) => {
      await vi.waitFor(() => expect(clock.pendingTimers).toBe(1), SETTLED);
      clock.advance(ms);
    };
    try {
      const key = bearer((await createKey(timed.url, { name: 'clocked' })).key);
      const created = await subscribe(timed, key, own.url);
      await submitScore(timed.url, { game: 'demo', initials: 'CLK', value: 17 });
      await own.waitFor(1);
      const retry = async (attempts: number, wait: number) => {
        const failedWith = FAILURES[attempts - 1];
        const failedAt = clock.now().getTime();
        let nextAttemptAt = 0;
        await vi.waitFor(async () => {
          const [delivery] = (await deliveries(timed, created.id, key)).body.items;
          expect(delivery).toMatchObject({ status: 'pending', attempts, lastResponseStatus: failedWith });
          nextAttemptAt = Date.parse(delivery!.nextAttemptAt!);
        }, SETTLED);
        // The schedule's wait, with its ±20 % jitter.
        expect(nextAttemptAt - failedAt).toBeGreaterThanOrEqual(wait * 0.8);
        expect(nextAttemptAt - failedAt).toBeLessThanOrEqual(wait * 1.2);
        // A poll just before it is due sends nothing; the first poll after it sends the retry.
        await advanceWhenWaiting(nextAttemptAt - 1 - clock.now().getTime());
        await advanceWhenWaiting(0);
        expect(own.arrived).toBe(attempts);
        await advanceWhenWaiting(1_000);
        await own.waitFor(attempts + 1);
      };
      await retry(1, 5_000);
      await retry(2, 300_000);
      await vi.waitFor(async () => {
        expect((await deliveries(timed, created.id, key)).body.items[0]).toMatchObject({ status: 'delivered', attempts: 3, lastResponseStatus: 204, nextAttemptAt: null });
      }, SETTLED);
    } finally {
      await own.close();
      await timed.stop();
    }
  });
});

describe('subscriptions', () => {
  it('POST /api/webhooks → 201 with the subscription and a whsec_ secret, shown only then', async () => {
    receiver = await startWebhookReceiver();
    const response = await request<Subscription>(`${server.url}/api/webhooks`, {
      method: 'POST',
      ...jsonBody({ url: receiver.url, description: 'scores to the bot' }, owner),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const created = response.body;
    expect(created).toMatchObject({ url: receiver.url, events: ['score.submitted'], description: 'scores to the bot', status: 'pending' });
    expect(Buffer.from(created.secret.replace(/^whsec_/, ''), 'base64')).toHaveLength(32);
    await receiver.waitForVerifications(1);
    await vi.waitFor(async () => {
      const read = await request<Record<string, unknown>>(`${server.url}/api/webhooks/${created.id}`, { headers: owner });
      expect(read.body).toEqual({ ...created, secret: undefined, description: 'scores to the bot', status: 'active' });
    }, SETTLED);
    const read = await request<Record<string, unknown>>(`${server.url}/api/webhooks/${created.id}`, { headers: owner });
    expect(read.body).not.toHaveProperty('secret');
    const list = await request<{ items: Record<string, unknown>[] }>(`${server.url}/api/webhooks`, { headers: owner });
    expect(list.body.items.map((item) => item.id)).toEqual([created.id]);
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
  });

  it('belongs to its key: a token of that key sees it; another key gets 404; anonymous gets 401', async () => {
    receiver = await startWebhookReceiver();
    const key = await createKey(server.url, { name: 'mine' });
    const token = await exchangeForToken(server.url, key.key);
    const created = await subscribe(server, bearer(token), receiver.url);
    expect((await request(`${server.url}/api/webhooks/${created.id}`, { headers: bearer(key.key) })).status).toBe(200);
    const other = bearer((await createKey(server.url, { name: 'not mine' })).key);
    expectProblem(await request(`${server.url}/api/webhooks/${created.id}`, { headers: other }), server.baseUrl, 'not-found', 404, `/api/webhooks/${created.id}`);
    expect((await request<{ items: unknown[] }>(`${server.url}/api/webhooks`, { headers: other })).body.items).toEqual([]);
    expectProblem(await request(`${server.url}/api/webhooks/${created.id}`, { method: 'DELETE', headers: other }), server.baseUrl, 'not-found', 404, `/api/webhooks/${created.id}`);
    expectProblem(await request(`${server.url}/api/webhooks`), server.baseUrl, 'unauthorized', 401, '/api/webhooks');
    expect((await request(`${server.url}/api/webhooks/${created.id}`, { method: 'DELETE', headers: bearer(key.key) })).status).toBe(204);
    expect((await request(`${server.url}/api/webhooks/${created.id}`, { headers: bearer(key.key) })).status).toBe(404);
  });

  it.each([
    [{ url: 'ftp://example.com/hook' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: `https://example.com/${'p'.repeat(2000)}` }, 'url'],
    [{}, 'url'],
    [{ url: 'https://example.com/hook', events: [] }, 'events'],
    [{ url: 'https://example.com/hook', events: ['task.created'] }, 'events.0'],
    [{ url: 'https://example.com/hook', secret: 'mine' }, 'secret'],
  ])('%j → 422 at %s', async (body, path) => {
    const problem = expectProblem(await request(`${server.url}/api/webhooks`, { method: 'POST', ...jsonBody(body, owner) }), server.baseUrl, 'validation', 422, '/api/webhooks');
    expect(problem.errors?.map((entry) => entry.path)).toEqual([path]);
  });
});

describe('SSRF guard (WEBHOOK_ALLOW_PRIVATE unset)', () => {
  it.each(['http://127.0.0.1:9/hook', 'http://localhost/hook', 'http://10.1.2.3/hook', 'http://192.168.0.1/', 'http://169.254.169.254/latest', 'http://[::1]/hook', 'http://[fd00::1]/', 'http://[::ffff:127.0.0.1]/'])(
    '%s → 422 at url',
    async (url) => {
      const guarded = await startTestServer();
      try {
        const headers = bearer((await createKey(guarded.url, { name: 'ssrf' })).key);
        const problem = expectProblem(await request(`${guarded.url}/api/webhooks`, { method: 'POST', ...jsonBody({ url }, headers) }), guarded.baseUrl, 'validation', 422, '/api/webhooks');
        expect(problem.errors?.map((entry) => entry.path)).toEqual(['url']);
      } finally {
        await guarded.stop();
      }
    },
  );
});

describe('the SSRF guard at delivery time (DNS rebinding)', () => {
  it.each(['localhost', '127.0.0.1'])('a subscription whose host now resolves to loopback (%s) is never contacted', async (host) => {
    receiver = await startWebhookReceiver();
    const guarded = await startTestServer({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '50', WEBHOOK_POLL_MS: '50' } });
    try {
      const key = await createKey(guarded.url, { name: 'rebind' });
      const headers = bearer(key.key);
      // As if the host had resolved to a public address when it was registered (and its receiver had echoed the challenge).
      const target = receiver.url.replace('127.0.0.1', host);
      await guarded.app.database.db.execute(sql`
        insert into webhook_subscriptions (id, owner_key_id, url, target_host, events, secret, status, created_at)
        values (${randomUUID()}, ${key.id}, ${target}, ${host}, array['score.submitted'], ${`whsec_${Buffer.alloc(32).toString('base64')}`}, 'active', now())`);
      await submitScore(guarded.url, { game: 'demo', initials: 'RBD', value: 1 });
      const [subscription] = (await request<{ items: { id: string }[] }>(`${guarded.url}/api/webhooks`, { headers })).body.items;
      await vi.waitFor(async () =>
        expect((await deliveries(guarded, subscription!.id, headers)).body.items[0]).toMatchObject({ status: 'failed', attempts: 2, lastResponseStatus: null }),
        SETTLED,
      );
      expect(receiver.arrived).toBe(0);
    } finally {
      await guarded.stop();
    }
  });
});

describe('deliveries', () => {
  it('are signed per Standard Webhooks and verify with the standardwebhooks package', async () => {
    receiver = await startWebhookReceiver();
    const created = await subscribe(server, owner, receiver.url);
    const score = await submitScore(server.url, { game: 'demo', initials: 'WHK', value: 12 });
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['user-agent']).toMatch(/lab-api/);
    const verified = new Webhook(created.secret).verify(delivery!.body, {
      'webhook-id': delivery!.headers['webhook-id'] as string,
      'webhook-timestamp': delivery!.headers['webhook-timestamp'] as string,
      'webhook-signature': delivery!.headers['webhook-signature'] as string,
    }) as { type: string; timestamp: string; data: Score };
    expect(verified).toEqual({ type: 'score.submitted', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), data: score });
    expect(verified.timestamp >= score.createdAt).toBe(true);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(delivery!.body, delivery!.headers as Record<string, string>)).toThrow();
    await vi.waitFor(async () => expect((await deliveries(server, created.id)).body.items[0]).toMatchObject({ status: 'delivered', attempts: 1, lastResponseStatus: 204 }), SETTLED);
  });

  it('a receiver that fails twice, then succeeds, gets three attempts with one webhook-id', async () => {
    receiver = await startWebhookReceiver();
    receiver.respond = (_, index) => (index < 2 ? 503 : 200);
    const created = await subscribe(server, owner, receiver.url);
    await submitScore(server.url, { game: 'demo', initials: 'RTY', value: 13 });
    const attempts = await receiver.waitFor(3);
    expect(new Set(attempts.map((attempt) => attempt.headers['webhook-id'])).size).toBe(1);
    expect(attempts.map((attempt) => attempt.status)).toEqual([503, 503, 200]);
    for (const attempt of attempts) {
      expect(() => new Webhook(created.secret).verify(attempt.body, attempt.headers as Record<string, string>)).not.toThrow();
    }
    await vi.waitFor(async () => {
      const [logged] = (await deliveries(server, created.id)).body.items;
      expect(logged).toMatchObject({ id: attempts[0]!.headers['webhook-id'], status: 'delivered', attempts: 3, lastResponseStatus: 200, nextAttemptAt: null, type: 'score.submitted' });
    }, SETTLED);
  });

  it('gives up as failed after the last retry of the schedule', async () => {
    receiver = await startWebhookReceiver();
    receiver.respond = () => 500;
    const created = await subscribe(server, owner, receiver.url);
    await submitScore(server.url, { game: 'demo', initials: 'FAL', value: 14 });
    await receiver.waitFor(4);
    await vi.waitFor(async () => expect((await deliveries(server, created.id)).body.items[0]).toMatchObject({ status: 'failed', attempts: 4, lastResponseStatus: 500 }), SETTLED);
  });

  it('410 Gone disables the subscription', async () => {
    receiver = await startWebhookReceiver();
    receiver.respond = () => 410;
    const created = await subscribe(server, owner, receiver.url);
    await submitScore(server.url, { game: 'demo', initials: 'GON', value: 15 });
    await receiver.waitFor(1);
    await vi.waitFor(async () => {
      expect((await request<{ status: string }>(`${server.url}/api/webhooks/${created.id}`, { headers: owner })).body.status).toBe('disabled');
      expect((await deliveries(server, created.id)).body.items[0]).toMatchObject({ status: 'disabled', attempts: 1, lastResponseStatus: 410 });
    }, SETTLED);
    await submitScore(server.url, { game: 'demo', initials: 'GON', value: 16 });
    expect((await deliveries(server, created.id)).body.items).toHaveLength(1);
  });

  it('do not delay the 201: it arrives while the receiver is still holding the first attempt', async () => {
    receiver = await startWebhookReceiver();
    let release!: () => void;
    const held = new Promise<number>((resolve) => (release = () => resolve(200)));
    receiver.respond = () => held;
    const slow = await subscribe(server, owner, receiver.url);
    const response = await request(`${server.url}/api/scores`, {
      method: 'POST',
      ...jsonBody({ game: 'demo', initials: 'SLW', value: 17 }, { 'Idempotency-Key': randomUUID() }),
    });
    expect(response.status).toBe(201);
    await receiver.waitForArrival(1);
    expect(receiver.received).toHaveLength(0);
    release();
    await receiver.waitFor(1);
    await vi.waitFor(async () => expect((await deliveries(server, slow.id)).body.items[0]?.status).toBe('delivered'), SETTLED);
  });
});

describe('restarts and instances', () => {
  let database: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'lab-webhooks-'));
    database = postgresUrl ? await createTestDatabase() : { env: { PGLITE_DATA_DIR: join(dataDir, 'db') }, drop: async () => {} };
  });
  afterAll(async () => {
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a delivery pending when the server stops is delivered after it starts again', async () => {
    receiver = await startWebhookReceiver();
    receiver.respond = () => 503;
    // A retry 300 ms out: long enough to stop the server before it is due.
    const env = { ...WEBHOOK_ENV, WEBHOOK_RETRY_SCHEDULE_MS: '300' };
    const first = await startTestServer({ env, database });
    const headers = bearer((await createKey(first.url, { name: 'restart' })).key);
    const created = await subscribe(first, headers, receiver.url);
    await submitScore(first.url, { game: 'demo', initials: 'RST', value: 18 });
    await receiver.waitFor(1);
    await first.stop();
    receiver.respond = () => 200;
    const second = await startTestServer({ env, database });
    try {
      const attempts = await receiver.waitFor(2);
      expect(attempts[1]!.headers['webhook-id']).toBe(attempts[0]!.headers['webhook-id']);
      await vi.waitFor(async () => expect((await deliveries(second, created.id, headers)).body.items[0]?.status).toBe('delivered'), SETTLED);
    } finally {
      await second.stop();
    }
  });

  itOnPostgres('two instances on one PostgreSQL deliver each delivery once', 'several instances share one database only on a PostgreSQL server', async () => {
    receiver = await startWebhookReceiver();
    const shared = await createTestDatabase();
    const a = await startTestServer({ env: WEBHOOK_ENV, database: shared });
    const b = await startTestServer({ env: WEBHOOK_ENV, database: shared });
    try {
      const headers = bearer((await createKey(a.url, { name: 'two' })).key);
      const subscription = await subscribe(a, headers, receiver.url);
      await Promise.all(Array.from({ length: 20 }, (_, i) => submitScore(i % 2 ? a.url : b.url, { game: 'demo', initials: 'TWO', value: 100 + i })));
      const received = await receiver.waitFor(20);
      // Once every delivery is recorded as delivered, nothing is due any more: a duplicate would have been sent by now.
      await vi.waitFor(async () => {
        const log = (await deliveries(a, subscription.id, headers)).body.items;
        expect(log).toHaveLength(20);
        expect(log.every((delivery) => delivery.status === 'delivered')).toBe(true);
      }, SETTLED);
      const ids = receiver.received.map((attempt) => attempt.headers['webhook-id']);
      expect(received).toHaveLength(20);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(20);
    } finally {
      await a.stop();
      await b.stop();
      await shared.drop();
    }
  });
});
