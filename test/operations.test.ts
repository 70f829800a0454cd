import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeOnPostgres } from './support/postgres-only.ts';
import { request } from './support/http.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { expectProblem } from './support/problem.ts';
import { sendRaw } from './support/raw-http.ts';
import { submitScore } from './support/scores-client.ts';
import { openSse } from './support/sse-reader.ts';
import { createTask } from './support/tasks-client.ts';
import { startServerBehindProxy, type ServerBehindProxy } from './support/server-behind-proxy.ts';
import type { TcpProxy } from './support/tcp-proxy.ts';
import { postgresUrl } from './support/test-database.ts';
import { startTestServer, type TestServer, useTestServer } from './support/test-server.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { subscribeVerified } from './support/webhooks-client.ts';

const server = useTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50', SSE_POLL_MS: '50', RATE_LIMIT_KEYS_PER_HOUR: '1000' } });

/** One sample of the exposition, e.g. value('rate_limit_refusals_total{limit="demo"}'); 0 when absent. */
async function scrape(): Promise<(series: string) => number> {
  const response = await sendRaw(server.url, { method: 'GET', target: '/metrics', headers: [] });
  expect(response.status).toBe(200);
  const text = response.body.toString();
  return (series) => {
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : 0;
  };
}

describe('GET /api/ready', () => {
  it('answers 200 {"ok":true} when the database answers, without rate-limit headers', async () => {
    const responses = await Promise.all(Array.from({ length: 12 }, () => request(`${server.url}/api/ready`)));
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ok: true });
      expect(response.headers.get('ratelimit')).toBeNull();
    }
  });

  it('is in the OpenAPI document beside /api/health', async () => {
    const document = await request<{ paths: Record<string, { get?: { responses: Record<string, unknown> } }> }>(`${server.url}/api/openapi.json`);
    expect(Object.keys(document.body.paths['/api/ready']?.get?.responses ?? {})).toEqual(expect.arrayContaining(['200', '503']));
  });
});

describeOnPostgres('GET /api/ready when PostgreSQL is out of reach', 'the database server is made unreachable, which an embedded database cannot be', () => {
  let setup: ServerBehindProxy;
  let proxy: TcpProxy;
  let behindProxy: TestServer;
  beforeAll(async () => {
    setup = await startServerBehindProxy();
    ({ proxy, server: behindProxy } = setup);
  });
  afterAll(() => setup.stop());

  it('answers 503 unavailable within about a second, while /api/health stays 200', async () => {
    expect((await request(`${behindProxy.url}/api/ready`)).status).toBe(200);
    await proxy.stop();
    const started = Date.now();
    const response = await request(`${behindProxy.url}/api/ready`, { signal: AbortSignal.timeout(5_000) });
    expect(Date.now() - started).toBeLessThan(2_500);
    expectProblem(response, behindProxy.baseUrl, 'unavailable', 503, '/api/ready');
    expect((await request(`${behindProxy.url}/api/health`)).status).toBe(200);
    await proxy.start();
    await vi.waitFor(async () => expect((await request(`${behindProxy.url}/api/ready`)).status).toBe(200), { timeout: 10_000, interval: 100 });
  });

  it('answers 503 after 1 s when PostgreSQL accepts but does not answer, and 200 once it does', async () => {
    proxy.goQuiet();
    try {
      const started = Date.now();
      const response = await request(`${behindProxy.url}/api/ready`, { signal: AbortSignal.timeout(5_000) });
      const waited = Date.now() - started;
      expectProblem(response, behindProxy.baseUrl, 'unavailable', 503, '/api/ready');
      expect(response.body).toMatchObject({ detail: 'The database did not answer within 1 s.' });
      expect(waited).toBeGreaterThanOrEqual(950);
      expect(waited).toBeLessThan(3_000);
    } finally {
      proxy.speakAgain();
    }
    await vi.waitFor(async () => expect((await request(`${behindProxy.url}/api/ready`)).status).toBe(200), { timeout: 10_000, interval: 100 });
  });
});

describe('GET /metrics', () => {
  it('speaks the Prometheus text format with the process and Node defaults', async () => {
    const response = await sendRaw(server.url, { method: 'GET', target: '/metrics', headers: [] });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = response.body.toString();
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'http_request_duration_seconds', 'score_streams_open', 'event_poll_lag_seconds', 'webhook_deliveries_total', 'rate_limit_refusals_total']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    if (postgresUrl) {
      expect(text).toContain('# TYPE db_connections_in_use gauge');
      expect(text).toContain('# TYPE db_queue_wait_seconds histogram');
    }
  });

  it('is served only at exactly /metrics: /metrics/, /metrics// and the like are 404 like any unknown path', async () => {
    for (const target of ['/metrics/', '/metrics//', '/metrics/x', '//metrics', '/Metrics', '/metrics.txt']) {
      const response = await sendRaw(server.url, { method: 'GET', target, headers: [] });
      expect(response.status, target).toBe(404);
      expect(response.body.toString(), target).not.toContain('process_cpu_seconds_total');
    }
    expect((await sendRaw(server.url, { method: 'GET', target: '/metrics?format=text', headers: [] })).status).toBe(200);
  });

  it('counts a request under its route template, never its raw path', async () => {
    const { task } = await createTask(server.url, { title: 'counted' });
    const before = await scrape();
    const series = 'http_request_duration_seconds_count{route="/api/tasks/{id}",method="GET",status="200"}';
    await request(`${server.url}/api/tasks/${task.id}`);
    await request(`${server.url}/api/tasks/${task.id}`);
    await request(`${server.url}/no/such/${task.id}`);
    await sendRaw(server.url, { method: 'PROPFIND', target: '/api/tasks', headers: [] });
    // A request is counted when its connection's response has closed, just after the client has its answer.
    await vi.waitFor(async () => {
      const after = await scrape();
      expect(after(series) - before(series)).toBe(2);
      expect(after('http_request_duration_seconds_count{route="unmatched",method="GET",status="404"}')).toBeGreaterThanOrEqual(1);
      expect(after('http_request_duration_seconds_count{route="unmatched",method="other",status="404"}')).toBeGreaterThanOrEqual(1);
    }, { timeout: 5_000, interval: 50 });
    const text = (await sendRaw(server.url, { method: 'GET', target: '/metrics', headers: [] })).body.toString();
    expect(text).not.toContain(task.id);
    expect(text).not.toContain('PROPFIND');
  });

  it('counts a 429 under the name of its limit', async () => {
    const before = await scrape();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) statuses.push((await request(`${server.url}/api/limits/demo`)).status);
    expect(statuses).toContain(429);
    const after = await scrape();
    const refused = statuses.filter((status) => status === 429).length;
    expect(after('rate_limit_refusals_total{limit="demo"}') - before('rate_limit_refusals_total{limit="demo"}')).toBe(refused);
    expect(after('http_request_duration_seconds_count{route="/api/limits/demo",method="GET",status="429"}')).toBeGreaterThanOrEqual(refused);
  });

  it('counts an open score stream while it is open, and the lag of the events it was sent', async () => {
    const stream = await openSse(`${server.url}/api/scores/stream?game=stacker`);
    await stream.nextMatching((frame) => frame.event === 'board');
    expect((await scrape())('score_streams_open')).toBe(1);
    const lagBefore = (await scrape())('event_poll_lag_seconds_count');
    await submitScore(server.url, { game: 'stacker', initials: 'MET', value: 42 });
    await stream.nextMatching((frame) => frame.event === 'board' && (frame.data ?? '').includes('"MET"'));
    expect((await scrape())('event_poll_lag_seconds_count')).toBeGreaterThan(lagBefore);
    stream.close();
    await vi.waitFor(async () => expect((await scrape())('score_streams_open')).toBe(0), { timeout: 5_000, interval: 50 });
  });

  it('counts a delivered webhook', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const owner = bearer((await createKey(server.url, { name: 'metrics' })).key);
      await subscribeVerified(server.url, owner, receiver.url);
      const before = (await scrape())('webhook_deliveries_total{status="delivered"}');
      await submitScore(server.url, { game: 'runner', initials: 'WHK', value: 7 });
      await receiver.waitFor(1);
      await vi.waitFor(async () => expect((await scrape())('webhook_deliveries_total{status="delivered"}')).toBe(before + 1), { timeout: 5_000, interval: 50 });
    } finally {
      await receiver.close();
    }
  });

  it('is gone with METRICS=off', async () => {
    const quiet = await startTestServer({ env: { METRICS: 'off' } });
    try {
      expectProblem(await request(`${quiet.url}/metrics`), quiet.baseUrl, 'not-found', 404, '/metrics');
      expect((await request(`${quiet.url}/api/health`)).status).toBe(200);
    } finally {
      await quiet.stop();
    }
  });
});

describe('compression of pages, assets and the OpenAPI document', () => {
  const COMPRESSED = ['/docs', '/graphiql', '/versioning', '/api/openapi.json', '/docs/assets/swagger-ui-bundle.js', '/graphiql/assets/graphiql.js', '/graphiql/assets/graphiql.css'];
  const get = (target: string, acceptEncoding?: string) =>
    sendRaw(server.url, { method: 'GET', target, headers: acceptEncoding === undefined ? [] : [['Accept-Encoding', acceptEncoding]] });

  it.each(COMPRESSED)('%s: brotli preferred, gzip when only it is accepted, identity otherwise, always Vary', async (target) => {
    const identity = await get(target);
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toBe('Accept-Encoding');
    for (const accepted of ['gzip, br', 'br, gzip', 'gzip;q=1, br;q=1', '*']) {
      const response = await get(target, accepted);
      expect(response.headers['content-encoding']).toBe('br');
      expect(response.headers.vary).toBe('Accept-Encoding');
      expect(Number(response.headers['content-length'])).toBe(response.body.length);
      expect(brotliDecompressSync(response.body).equals(identity.body)).toBe(true);
    }
    for (const accepted of ['gzip', 'gzip, deflate', 'br;q=0.5, gzip', 'br;q=0, *']) {
      const response = await get(target, accepted);
      expect(response.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(response.body).equals(identity.body)).toBe(true);
      expect(response.body.length).toBeLessThan(identity.body.length);
    }
    for (const accepted of ['identity', 'deflate', 'br;q=0, gzip;q=0']) {
      expect((await get(target, accepted)).headers['content-encoding']).toBeUndefined();
    }
  });

  it('leaves API responses with ETags uncompressed, so their strong ETags stay exact', async () => {
    const { task } = await createTask(server.url, { title: 'x'.repeat(200) });
    const response = await get(`/api/tasks/${task.id}`, 'br, gzip');
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBeDefined();
    expect(response.headers['content-encoding']).toBeUndefined();
  });

  it('serves /graphiql as a small page whose bundle, styles and workers are separate, cacheable files', async () => {
    const page = await get('/graphiql');
    expect(page.body.length).toBeLessThan(10_000);
    // The page names its bundle, styles and start script; the start script names the workers.
    const start = await get('/graphiql/assets/start.js');
    const text = `${page.body.toString()}\n${start.body.toString()}`;
    const assets = [...text.matchAll(/\/graphiql\/assets\/[\w.-]+/g)].map((match) => match[0]).filter((asset) => asset !== '/graphiql/assets/start.js');
    expect(assets).toEqual(expect.arrayContaining(['/graphiql/assets/graphiql.js', '/graphiql/assets/graphiql.css', '/graphiql/assets/graphql.worker.js']));
    for (const asset of new Set(assets)) {
      const response = await get(asset, 'br');
      expect(response.status).toBe(200);
      expect(response.headers['cache-control']).toBe('public, max-age=86400');
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const head = await sendRaw(server.url, { method: 'HEAD', target: '/docs/assets/swagger-ui-bundle.js', headers: [['Accept-Encoding', 'br']] });
    const got = await get('/docs/assets/swagger-ui-bundle.js', 'br');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(got.headers['content-length']);
    expect(head.headers['content-encoding']).toBe('br');
  });
});

describe('HEAD /api/scores/stream', () => {
  it('answers with the stream headers and no body, and judges the query as GET does', async () => {
    const head = await sendRaw(server.url, { method: 'HEAD', target: '/api/scores/stream?game=toppler', headers: [] });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream');
    expect(head.headers['cache-control']).toBe('no-cache');
    expect(head.body.length).toBe(0);
    const bad = await sendRaw(server.url, { method: 'HEAD', target: '/api/scores/stream?game=chess', headers: [] });
    expect(bad.status).toBe(422);
    expect((await scrape())('score_streams_open')).toBe(0);
  });
});
