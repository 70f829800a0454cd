import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from './support/cluster.ts';
import { request } from './support/http.ts';
import { nginxInstalled, startNginx, type Nginx } from './support/nginx.ts';
import { postScore } from './support/scores-client.ts';
import { openSse } from './support/sse-reader.ts';
import { FOLLOW } from './support/live-followers.ts';
import { sendRaw } from './support/raw-http.ts';
import { postgresUrl } from './support/test-database.ts';

const TASK_WRITES = 5;

/**
 * A POST from a chosen loopback address (all of 127.0.0.0/8 is this
 * machine): nginx sees it as that client's, as it would a browser's.
 */
function postFrom(localAddress: string, url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown> }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } }, (incoming) => {
      incoming.resume();
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers }));
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

describe.runIf(postgresUrl && nginxInstalled)('three instances behind nginx with the deployment guide\'s configuration', () => {
  let cluster: Cluster;
  let nginx: Nginx;
  beforeAll(async () => {
    cluster = await startCluster(3, {
      TRUST_PROXY: 'true',
      RATE_LIMIT_TASK_WRITES_ANON: String(TASK_WRITES),
      RATE_LIMIT_SCORES_PER_MINUTE: '1000',
      SSE_POLL_MS: '100',
      // Longer than the test's bound: a buffered event would arrive only when the stream ends.
      SSE_STREAM_MS: '120000',
      DATABASE_QUEUE_TIMEOUT_MS: '60000',
    });
    nginx = await startNginx(cluster.instances.map((instance) => new URL(instance.url).host));
  }, 60_000);
  afterAll(async () => {
    await nginx?.stop();
    await cluster?.stop();
  });

  it('spreads requests over every instance', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 12; index++) {
      const response = await request(`${nginx.url}/api/health`);
      expect(response.status).toBe(200);
      ids.push(response.headers.get('x-request-id')!);
    }
    for (const instance of cluster.instances) {
      const served = instance.lines.filter((line) => ids.some((id) => line.includes(id)));
      expect(served.length).toBeGreaterThan(0);
    }
  });

  it('keeps /metrics off the public side, whatever the path is made to look like', async () => {
    // Through the proxy, as a client writes them: raw targets, not normalised by a URL parser first.
    for (const target of ['/metrics', '/metrics/', '/metrics//', '//metrics', '/metrics/x', '/metrics?format=text', '/./metrics', '/api/../metrics', '/%6detrics', '/metrics%2F', '/Metrics']) {
      const response = await sendRaw(nginx.url, { method: 'GET', target, headers: [] });
      expect(response.status, target).toBe(404);
      // nginx's own 404 says nosniff too, and a proxied one says it once.
      expect(response.headers['x-content-type-options'], target).toBe('nosniff');
      expect(response.body.toString(), target).not.toContain('process_cpu_seconds_total');
    }
    expect((await request(`${cluster.instances[0]!.url}/metrics`)).status).toBe(200);
  });

  it('50 concurrent identical submissions with one Idempotency-Key store exactly one score', async () => {
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => postScore(nginx.url, { game: 'demo', initials: 'NGX', value: 4242 }, { 'Idempotency-Key': key })),
    );
    const created = responses.filter((response) => response.status === 201);
    expect(responses.every((response) => response.status === 201 || response.status === 409)).toBe(true);
    expect(new Set(created.map((response) => response.body.id)).size).toBe(1);
    expect(created.filter((response) => response.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    const scores = await cluster.sql`select id from scores where initials = 'NGX'`;
    expect(scores).toHaveLength(1);
  });

  it(`shares the limit of ${TASK_WRITES} across the instances per client address, whatever X-Forwarded-For the client sends`, async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const client = `127.0.0.${20 + attempt}`;
      const windowOf = () => Math.floor(Date.now() / 60_000);
      const window = windowOf();
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          // A spoofed address per request: nginx replaces it with the real one.
          postFrom(client, `${nginx.url}/api/tasks`, { title: 'limited' }, { 'X-Forwarded-For': `198.51.100.${index}` }),
        ),
      );
      if (windowOf() !== window) continue;
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(TASK_WRITES);
      expect(statuses.filter((status) => status === 429)).toHaveLength(20 - TASK_WRITES);
      // Another address has its own allowance.
      expect((await postFrom(`127.0.0.${30 + attempt}`, `${nginx.url}/api/tasks`, { title: 'another client' })).status).toBe(201);
      return;
    }
    throw new Error('every burst straddled a window boundary');
  });

  it('streams score updates through the proxy as they happen', async () => {
    const stream = await openSse(`${nginx.url}/api/scores/stream?game=runner`);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      expect((await stream.next())?.event).toBe('board');
      const submitted = await postScore(nginx.url, { game: 'runner', initials: 'PRX', value: 99 });
      expect(submitted.status).toBe(201);
      // Buffered, this frame would wait in nginx until the stream ended, two minutes later (past the test's bound).
      const update = await stream.nextMatching((frame) => frame.event === 'board' && (frame.data ?? '').includes(submitted.body.id));
      expect((JSON.parse(update.data!) as { latest: { initials: string } }).latest.initials).toBe('PRX');
    } finally {
      stream.close();
    }
  });

  it('follows a board on every transport through the proxy, each client on whichever instance nginx chose, as scores come in', async () => {
    const followers = (['rest', 'trpc', 'graphql'] as const).flatMap((transport) => [1, 2, 3].map(() => FOLLOW[transport](nginx.url, { game: 'stacker' })));
    try {
      await Promise.all(followers.map((follower) => follower.waitFor(() => true)));
      const submitted = await postScore(nginx.url, { game: 'stacker', initials: 'NGL', value: 31 });
      expect(submitted.status).toBe(201);
      // Buffered by nginx, these would arrive only when the streams end, two minutes later.
      await Promise.all(followers.map((follower) => follower.waitFor((received) => received.board.entries.some((entry) => entry.id === submitted.body.id), { timeoutMs: 2000 })));
    } finally {
      for (const follower of followers) follower.close();
    }
  });
});
