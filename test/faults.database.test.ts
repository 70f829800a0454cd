import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeOnPostgres } from './support/postgres-only.ts';
import { rowsOf } from './support/db-rows.ts';
import { jsonBody, request } from './support/http.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { expectProblem } from './support/problem.ts';
import { openSse } from './support/sse-reader.ts';
import { startServerBehindProxy, type ServerBehindProxy } from './support/server-behind-proxy.ts';
import type { TcpProxy } from './support/tcp-proxy.ts';

import { startTestServer, type TestServer } from './support/test-server.ts';

/** An answer must come within this long; a hang fails the test instead of stalling it. */
const BOUND_MS = 5_000;
const bounded = (url: string, init: RequestInit = {}) => request(url, { ...init, signal: AbortSignal.timeout(BOUND_MS) });
const UNAVAILABLE_DETAIL = 'The database cannot be reached right now; retry in a moment.';

describeOnPostgres('PostgreSQL becomes unreachable while the service runs', 'the database server is made unreachable or its connections held, which an embedded database cannot be', () => {
  let behindProxy: ServerBehindProxy;
  let proxy: TcpProxy;
  let server: TestServer;
  beforeAll(async () => {
    behindProxy = await startServerBehindProxy({ SSE_POLL_MS: '50' });
    ({ proxy, server } = behindProxy);
  });
  afterAll(() => behindProxy.stop());

  it('answers 503 unavailable problems in bounded time under load, ends open streams cleanly, and serves again without losing an acknowledged write', async () => {
    // A key made before the outage: during it, checking the key itself needs the database.
    const withKey = bearer((await createKey(server.url, { name: 'through the outage' })).key);
    const stream = await openSse(`${server.url}/api/scores/stream?game=demo`);
    expect((await stream.next())?.event).toBe('board');

    // Writers keep going through the outage; every 201 they see must survive it.
    const acknowledged: string[] = [];
    const statuses = new Set<number>();
    let writing = true;
    let written = 0;
    const writer = async (id: number) => {
      for (let attempt = 0; writing; attempt++) {
        const title = `writer ${id} attempt ${attempt}`;
        const response = await bounded(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title }) });
        statuses.add(response.status);
        if (response.status === 201) acknowledged.push(title);
        else expectProblem(response, server.baseUrl, 'unavailable', 503, '/api/tasks');
        written++;
      }
    };
    const writers = Promise.all(Array.from({ length: 8 }, (_, id) => writer(id)));
    await vi.waitFor(() => expect(written).toBeGreaterThan(20), { timeout: BOUND_MS, interval: 10 });

    await proxy.stop();
    // The stream sees the failed poll and ends properly, so its client resumes with Last-Event-ID.
    while (await stream.next());
    expect(stream.endedCleanly).toBe(true);

    for (const [path, init] of [
      ['/api/tasks?limit=5', {}],
      ['/api/tasks', { method: 'POST', ...jsonBody({ title: 'during the outage' }) }],
      ['/api/scores?game=demo', {}],
      ['/api/scores/stream?game=demo', {}],
    ] as const) {
      const response = await bounded(`${server.url}${path}`, init);
      const problem = expectProblem(response, server.baseUrl, 'unavailable', 503, path.split('?')[0]!);
      expect(problem.detail).toBe(UNAVAILABLE_DETAIL);
      expect(response.headers.get('retry-after')).toBe('1');
    }
    const rpc = await bounded(`${server.url}/api/trpc/tasks.newest`);
    expect(rpc.status).toBe(503);
    expect((rpc.body as { error: { data: { code: string } } }).error.data.code).toBe('SERVICE_UNAVAILABLE');
    const graphql = await bounded(`${server.url}/api/graphql`, { method: 'POST', ...jsonBody({ query: '{ tasks(limit: 1) { id } }' }) });
    expect(graphql.status).toBe(503);
    expect(graphql.body).toEqual({ errors: [{ message: UNAVAILABLE_DETAIL, extensions: { code: 'SERVICE_UNAVAILABLE' } }] });
    // With a key, the credential check is what meets the outage: still each transport's own envelope.
    const keyedRest = await bounded(`${server.url}/api/tasks?limit=5`, { headers: withKey });
    expectProblem(keyedRest, server.baseUrl, 'unavailable', 503, '/api/tasks');
    const keyedRpc = await bounded(`${server.url}/api/trpc/tasks.newest`, { headers: withKey });
    expect(keyedRpc.status).toBe(503);
    expect((keyedRpc.body as { error: { data: { code: string } } }).error.data.code).toBe('SERVICE_UNAVAILABLE');
    expect(keyedRpc.headers.get('retry-after')).toBe('1');
    const keyedGraphql = await bounded(`${server.url}/api/graphql`, { method: 'POST', ...jsonBody({ query: '{ tasks(limit: 1) { id } }' }, withKey) });
    expect(keyedGraphql.status).toBe(503);
    expect(keyedGraphql.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(keyedGraphql.body).toEqual({ errors: [{ message: UNAVAILABLE_DETAIL, extensions: { code: 'SERVICE_UNAVAILABLE' } }] });

    await proxy.start();
    await vi.waitFor(async () => expect((await bounded(`${server.url}/api/tasks?limit=5`)).status).toBe(200), { timeout: 15_000, interval: 100 });
    const writtenAfter = written;
    await vi.waitFor(() => expect(written).toBeGreaterThan(writtenAfter + 20), { timeout: BOUND_MS, interval: 10 });
    writing = false;
    await writers;

    expect([...statuses].sort()).toEqual([201, 503]);
    const stored = new Set((await rowsOf<{ title: string }>(server, sql`select title from tasks`)).map((row) => row.title));
    expect(acknowledged.filter((title) => !stored.has(title))).toEqual([]);
  });
});

describeOnPostgres('every connection is busy (pool exhaustion)', 'the database server is made unreachable or its connections held, which an embedded database cannot be', () => {
  let server: TestServer;
  let locker: postgres.Sql;
  beforeAll(async () => {
    server = await startTestServer({
      env: { DATABASE_POOL_MAX: '2', DATABASE_QUEUE_TIMEOUT_MS: '300', DATABASE_STATEMENT_TIMEOUT_MS: '1500' },
    });
    locker = postgres(server.database.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await locker.end();
    await server.stop();
  });

  it('answers 503 within the queue and statement timeouts instead of piling up, and recovers when the connections free up', async () => {
    const reserved = await locker.reserve();
    await reserved`begin`;
    await reserved`lock table tasks in access exclusive mode`;
    try {
      // Two hold the connections until their statements time out; the rest give up after the queue
      // timeout. A pile-up would outlast the bound and fail the request.
      const responses = await Promise.all(Array.from({ length: 8 }, () => bounded(`${server.url}/api/tasks?limit=5`)));
      for (const response of responses) {
        const problem = expectProblem(response, server.baseUrl, 'unavailable', 503, '/api/tasks');
        expect(problem.detail).toBe(UNAVAILABLE_DETAIL);
      }
    } finally {
      await reserved`rollback`;
      reserved.release();
    }
    expect((await bounded(`${server.url}/api/tasks?limit=5`)).status).toBe(200);
  });
});

describeOnPostgres('statements pipelined on a busy connection', 'the database server holds a lock, which an embedded database cannot be made to', () => {
  let server: TestServer;
  let locker: postgres.Sql;
  beforeAll(async () => {
    server = await startTestServer({
      env: { DATABASE_POOL_MAX: '2', DATABASE_PIPELINE_DEPTH: '3', DATABASE_QUEUE_TIMEOUT_MS: '20000', RATE_LIMIT_TASK_WRITES_ANON: '1000' },
    });
    locker = postgres(server.database.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await locker.end();
    await server.stop();
  });

  /** A gauge of /metrics, e.g. db_queries_queued. */
  const gauge = async (name: string) => {
    const text = (await request<string>(`${server.url}/metrics`)).text;
    return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
  };

  it('sends DATABASE_PIPELINE_DEPTH statements to each connection at once, queues the next, and answers them all', async () => {
    const reserved = await locker.reserve();
    await reserved`begin`;
    await reserved`lock table tasks in access exclusive mode`;
    let answers: Promise<Awaited<ReturnType<typeof bounded>>[]>;
    try {
      answers = Promise.all(Array.from({ length: 7 }, () => request(`${server.url}/api/tasks?limit=5`)));
      // Three statements on each of the two connections (one running into the lock, two sent behind it), the seventh waiting for a place.
      await vi.waitFor(async () => expect(await gauge('db_queries_queued')).toBe(1), { timeout: 5_000, interval: 50 });
      expect(await gauge('db_connections_in_use')).toBe(2);
    } finally {
      await reserved`rollback`;
      reserved.release();
    }
    expect((await answers).map((response) => response.status)).toEqual(Array.from({ length: 7 }, () => 200));
    expect(await gauge('db_queries_queued')).toBe(0);
  });

  it('starts transactions on busy connections as well as statements: writes and reads together all succeed', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        index % 2 === 0 ? request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: `pipelined ${index}` }) }) : request(`${server.url}/api/tasks?limit=5`),
      ),
    );
    expect(answers.map((response) => response.status)).toEqual(Array.from({ length: 60 }, (_, index) => (index % 2 === 0 ? 201 : 200)));
  });
});

describeOnPostgres('a connection is lost while it is being set up', 'the database server is made unreachable or its connections held, which an embedded database cannot be', () => {
  let behindProxy: ServerBehindProxy;
  let proxy: TcpProxy;
  let server: TestServer;
  beforeAll(async () => {
    behindProxy = await startServerBehindProxy();
    ({ proxy, server } = behindProxy);
  });
  afterAll(() => behindProxy.stop());

  it('fails the request that was waiting for it, never the process, and serves again once the server is back', async () => {
    // An unhandled rejection ends a Node process: in production, every request in flight with it.
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const stopped = proxy.stopAtNextFirstStatement();
      proxy.dropConnections();
      const during = await bounded(`${server.url}/api/tasks?limit=5`);
      expectProblem(during, server.baseUrl, 'unavailable', 503, '/api/tasks');
      await stopped;
      await proxy.start();
      await vi.waitFor(async () => expect((await bounded(`${server.url}/api/tasks?limit=5`)).status).toBe(200), { timeout: 15_000, interval: 50 });
      // A rejection nobody handles is reported once the microtasks of its turn have run.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
