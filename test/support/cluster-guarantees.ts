import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { Cluster } from './cluster.ts';
import { jsonBody, request } from './http.ts';
import { bearer, createKey, exchangeForToken } from './keys-client.ts';
import { expectProblem } from './problem.ts';
import { postScore } from './scores-client.ts';
import { openSse } from './sse-reader.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';
import { subscribeVerified } from './webhooks-client.ts';

/** The anonymous task-write limit the cluster runs with, small enough to count exactly. */
const TASK_WRITES = 7;

/** A distinct client address per call (TRUST_PROXY: the instances sit behind one load balancer). */
let clientCounter = 0;
const nextClient = () => {
  clientCounter++;
  return { 'X-Forwarded-For': `198.51.${100 + (clientCounter >> 8)}.${clientCounter & 255}` };
};

/** The environment every instance of the cluster runs with: the limits and intervals the cases below count on. */
const GUARANTEES_ENV: Record<string, string> = {
  TRUST_PROXY: 'true',
  RATE_LIMIT_TASK_WRITES_ANON: String(TASK_WRITES),
  RATE_LIMIT_KEYS_PER_HOUR: '1000',
  RATE_LIMIT_SCORES_PER_MINUTE: '1000',
  SSE_POLL_MS: '100',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_RETRY_SCHEDULE_MS: '50,50,50',
  // The bursts below queue for connections by design; this suite is about what they store, not about shedding load.
  DATABASE_QUEUE_TIMEOUT_MS: '60000',
};

/**
 * What several instances on one database guarantee together, as test cases
 * for the enclosing `describe`: exactly-once idempotency, a token valid on
 * every instance, atomic If-Match, shared rate limits, SSE across instances,
 * retention under a burst, webhooks sent once. `startThree` starts three
 * instances at the same moment on an empty database (migrations must not
 * race) with GUARANTEES_ENV, connected however the caller tests (directly,
 * through a pooler…); the cluster's `stop` ends whatever it started.
 */
export function clusterGuarantees(startThree: (env: Record<string, string>) => Promise<Cluster>, options: { duplicateSubmissions: number } = { duplicateSubmissions: 50 }): void {
  const duplicates = options.duplicateSubmissions;
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startThree(GUARANTEES_ENV);
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('all three came up and serve', async () => {
    expect(cluster.instances).toHaveLength(3);
    for (const instance of cluster.instances) expect((await request(`${instance.url}/api/health`)).status).toBe(200);
  });

  it('a token issued by one instance is accepted by the others', async () => {
    const [a, b, c] = cluster.instances.map((instance) => instance.url) as [string, string, string];
    const key = await createKey(a, { name: 'roaming' }, nextClient()['X-Forwarded-For']);
    const token = await exchangeForToken(a, key.key);
    for (const url of [b, c]) {
      const me = await request<{ method: string; keyId: string }>(`${url}/api/me`, { headers: bearer(token) });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ method: 'jwt', keyId: key.id });
    }
  });

  it(`${duplicates} concurrent identical submissions with one Idempotency-Key store exactly one score and one event`, async () => {
    const key = randomUUID();
    const initials = 'IDM';
    const responses = await Promise.all(
      Array.from({ length: duplicates }, () =>
        postScore(cluster.next(), { game: 'demo', initials, value: 31337 }, { 'Idempotency-Key': key, 'X-Forwarded-For': '203.0.113.50' }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    // The first attempt stores it; the others either found it in progress (409) or replayed it (201).
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    const created = responses.filter((response) => response.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((response) => response.body.id)).size).toBe(1);
    expect(created.filter((response) => response.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);

    const scores = await cluster.sql`select id from scores where initials = ${initials}`;
    expect(scores.map((row) => row.id)).toEqual([created[0]!.body.id]);
    const events = await cluster.sql`select id from events where type = 'score.submitted' and data->>'initials' = ${initials}`;
    expect(events).toHaveLength(1);
  });

  it('30 concurrent PATCHes with one If-Match: exactly one 200, the rest 412', async () => {
    const created = await request<{ id: string }>(`${cluster.next()}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'contended' }, nextClient()) });
    expect(created.status).toBe(201);
    const etag = created.headers.get('etag')!;
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, writer) =>
        request(`${cluster.next()}/api/tasks/${created.body.id}`, {
          method: 'PATCH',
          ...jsonBody({ title: `writer ${writer}` }, { 'If-Match': etag, ...nextClient() }),
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(29);
  });

  it(`a limit of ${TASK_WRITES} lets exactly ${TASK_WRITES} writes through across all instances`, async () => {
    // A burst that straddles a window boundary counts in two windows: then it runs again from a fresh client.
    for (let attempt = 0; attempt < 3; attempt++) {
      const client = nextClient();
      const windowOf = () => Math.floor(Date.now() / 60_000);
      const window = windowOf();
      const responses = await Promise.all(
        Array.from({ length: 30 }, () => request(`${cluster.next()}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'limited' }, client) })),
      );
      if (windowOf() !== window) continue;
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(TASK_WRITES);
      expect(statuses.filter((status) => status === 429)).toHaveLength(30 - TASK_WRITES);
      const limited = responses.find((response) => response.status === 429)!;
      expectProblem(limited, cluster.baseUrl, 'rate-limited', 429, '/api/tasks');
      return;
    }
    throw new Error('every burst straddled a window boundary');
  });

  it('a score submitted on one instance reaches a stream open on another', async () => {
    const [a, , c] = cluster.instances.map((instance) => instance.url) as [string, string, string];
    const stream = await openSse(`${c}/api/scores/stream?game=demo`);
    try {
      expect(stream.status).toBe(200);
      expect((await stream.next())?.event).toBe('board');
      const submitted = await postScore(a, { game: 'demo', initials: 'XIN', value: 777 }, nextClient());
      expect(submitted.status).toBe(201);
      const update = await stream.nextMatching((frame) => frame.event === 'board' && frame.data !== undefined && frame.data.includes(submitted.body.id));
      expect((JSON.parse(update.data!) as { latest: { id: string } }).latest.id).toBe(submitted.body.id);
    } finally {
      stream.close();
    }
  });

  it('retention holds at 200 tasks, 500 keys and 100 scores per game after concurrent bursts on all instances', async () => {
    const burst = <T>(count: number, make: (index: number) => Promise<T>) => Promise.all(Array.from({ length: count }, (_, index) => make(index)));
    const statusesOf = (responses: { status: number }[]) => [...new Set(responses.map((response) => response.status))];

    const tasks = await burst(230, () => request(`${cluster.next()}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'burst' }, nextClient()) }));
    expect(statusesOf(tasks)).toEqual([201]);
    const keys = await burst(530, () => request(`${cluster.next()}/api/keys`, { method: 'POST', ...jsonBody({ name: 'burst' }, nextClient()) }));
    expect(statusesOf(keys)).toEqual([201]);
    const scores = await burst(130, (index) => postScore(cluster.next(), { game: 'stacker', initials: 'BRS', value: index }, nextClient()));
    expect(statusesOf(scores)).toEqual([201]);

    const [counts] = await cluster.sql`select
      (select count(*)::int from tasks) as tasks,
      (select count(*)::int from api_keys) as keys,
      (select count(*)::int from scores where game = 'stacker') as scores`;
    expect(counts).toEqual({ tasks: 200, keys: 500, scores: 100 });
    // The best 100 are the ones kept.
    const [lowest] = await cluster.sql`select min(value)::int as value from scores where game = 'stacker'`;
    expect(lowest!.value).toBe(30);
  });

  it('each webhook delivery is sent once, though every instance runs a delivery worker', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const owner = bearer((await createKey(cluster.next(), { name: 'integrator' }, nextClient()['X-Forwarded-For'])).key);
      const subscribed = { body: await subscribeVerified(cluster.next(), owner, receiver.url) };
      const submissions = await Promise.all(
        Array.from({ length: 24 }, (_, index) =>
          postScore(cluster.next(), { game: 'demo', initials: 'WHK', value: index }, nextClient()),
        ),
      );
      expect(submissions.map((response) => response.status)).toEqual(Array(24).fill(201));

      await receiver.waitFor(24);
      // Every delivery is settled in the database: nothing is left to send a second time.
      await vi.waitFor(
        async () => {
          const pending = await cluster.sql`select count(*)::int as n from webhook_deliveries where subscription_id = ${subscribed.body.id} and status <> 'delivered'`;
          expect(pending[0]!.n).toBe(0);
        },
        { timeout: 10_000, interval: 50 },
      );
      const [settled] = await cluster.sql`select count(*)::int as deliveries, sum(attempts)::int as attempts
        from webhook_deliveries where subscription_id = ${subscribed.body.id} and type = 'score.submitted'`;
      expect(settled).toEqual({ deliveries: 24, attempts: 24 });
      const ids = receiver.received.map((delivery) => delivery.headers['webhook-id']);
      expect(ids).toHaveLength(24);
      expect(new Set(ids).size).toBe(24);
    } finally {
      await receiver.close();
    }
  });
}
