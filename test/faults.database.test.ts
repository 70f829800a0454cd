import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { jsonBody, request } from './support/http.ts';
import { expectProblem } from './support/problem.ts';
import { TcpProxy } from './support/tcp-proxy.ts';
import { createTestDatabase, postgresUrl, type TestDatabase } from './support/test-database.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';

/** An answer must come within this long; a hang fails the test instead of stalling it. */
const BOUND_MS = 5_000;
const bounded = (url: string, init: RequestInit = {}) => request(url, { ...init, signal: AbortSignal.timeout(BOUND_MS) });

describe.runIf(postgresUrl)('PostgreSQL becomes unreachable while the service runs', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let server: TestServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    const direct = new URL(database.env.DATABASE_URL!);
    proxy = new TcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    await proxy.start();
    const viaProxy = new URL(direct);
    viaProxy.port = String(proxy.port);
    server = await startTestServer({ database: { env: { DATABASE_URL: viaProxy.toString() }, drop: async () => {} } });
  });
  afterAll(async () => {
    await server.stop();
    await proxy.stop();
    await database.drop();
  });

  it('answers 503 unavailable problems in bounded time, then serves again once it is back, losing no acknowledged write', async () => {
    const before = await bounded(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'before the outage' }) });
    expect(before.status).toBe(201);

    await proxy.stop();
    for (const [path, init] of [
      ['/api/tasks?limit=5', {}],
      ['/api/tasks', { method: 'POST', ...jsonBody({ title: 'during the outage' }) }],
      ['/api/scores?game=demo', {}],
    ] as const) {
      const response = await bounded(`${server.url}${path}`, init);
      const problem = expectProblem(response, server.baseUrl, 'unavailable', 503, path.split('?')[0]!);
      expect(problem.detail).toBe('The database cannot be reached right now; retry in a moment.');
      expect(response.headers.get('retry-after')).toBe('1');
    }
    const rpc = await bounded(`${server.url}/api/trpc/tasks.newest`);
    expect(rpc.status).toBe(503);
    expect((rpc.body as { error: { data: { code: string } } }).error.data.code).toBe('SERVICE_UNAVAILABLE');

    await proxy.start();
    await vi.waitFor(async () => expect((await bounded(`${server.url}/api/tasks?limit=5`)).status).toBe(200), { timeout: 15_000, interval: 100 });
    const after = await bounded(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'after the outage' }) });
    expect(after.status).toBe(201);

    const titles = (await rowsOf<{ title: string }>(server, sql`select title from tasks order by created_at`)).map((row) => row.title);
    expect(titles).toEqual(['before the outage', 'after the outage']);
  });
});
