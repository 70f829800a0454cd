import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { describeOnPostgres } from './support/postgres-only.ts';
import { jsonBody, request, type JsonResponse } from './support/http.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { clientAddresses, ONE_SECOND_INTO_A_MINUTE } from './support/client-addresses.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectProblem } from './support/problem.ts';
import { createTestDatabase } from './support/test-database.ts';
import { startTestServer, useTestServer } from './support/test-server.ts';
import { rowsOf } from './support/db-rows.ts';

const START = ONE_SECOND_INTO_A_MINUTE;

const clock = new ManualClock(START);
const server = useTestServer({ clock, env: { TRUST_PROXY: 'true', RATE_LIMIT_TASK_WRITES_ANON: '30' } });

const newClient = clientAddresses('203.0.113', ', 10.0.0.1');

function expectLimitHeaders(response: JsonResponse, name: string, limit: number, window: number, remaining: number, reset: number): void {
  expect(response.headers.get('ratelimit-policy')).toBe(`"${name}";q=${limit};w=${window}`);
  expect(response.headers.get('ratelimit')).toBe(`"${name}";r=${remaining};t=${reset}`);
}

function expectTooMany(response: JsonResponse, path: string, name: string, retryAfter: number): void {
  const problem = expectProblem(response, server.baseUrl, 'rate-limited', 429, path);
  expect(problem.detail).toContain(name);
  expect(problem.detail).toContain(`${retryAfter} seconds`);
  expect(response.headers.get('retry-after')).toBe(String(retryAfter));
}

describe('GET /api/limits/demo (5 per 10 seconds)', () => {
  it('counts down in body and headers, then answers 429, then opens again with the next window', async () => {
    clock.set(START);
    const client = newClient();
    for (let i = 1; i <= 5; i++) {
      const response = await request(`${server.url}/api/limits/demo`, { headers: client });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ok: true, limit: 5, remaining: 5 - i, resetSeconds: 9 });
      expectLimitHeaders(response, 'demo', 5, 10, 5 - i, 9);
    }
    const limited = await request(`${server.url}/api/limits/demo`, { headers: client });
    expectTooMany(limited, '/api/limits/demo', 'demo', 9);
    expectLimitHeaders(limited, 'demo', 5, 10, 0, 9);
    clock.advance(8_500);
    const stillLimited = await request(`${server.url}/api/limits/demo`, { headers: client });
    expect(stillLimited.headers.get('retry-after')).toBe('1');
    clock.advance(500);
    const reopened = await request(`${server.url}/api/limits/demo`, { headers: client });
    expect(reopened.status).toBe(200);
    expectLimitHeaders(reopened, 'demo', 5, 10, 4, 10);
  });
});

describe('task writes (30 anonymous, 120 authenticated, per minute)', () => {
  it('lets 30 anonymous writes of any kind through, then 429 and nothing stored', async () => {
    clock.set(START);
    const client = newClient();
    const created: string[] = [];
    for (let i = 0; i < 28; i++) {
      const response = await request<{ id: string }>(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: `w${i}` }, client) });
      expect(response.status).toBe(201);
      expectLimitHeaders(response, 'task-writes', 30, 60, 29 - i, 59);
      created.push(response.body.id);
    }
    const patched = await request(`${server.url}/api/tasks/${created[0]}`, { method: 'PATCH', ...jsonBody({ done: true }, client) });
    expect(patched.status).toBe(200);
    const removed = await request(`${server.url}/api/tasks/${created[1]}`, { method: 'DELETE', headers: client });
    expect(removed.status).toBe(204);
    expectLimitHeaders(removed, 'task-writes', 30, 60, 0, 59);
    const before = await request<{ items: unknown[] }>(`${server.url}/api/tasks?limit=50`);
    const limited = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'one too many' }, client) });
    expectTooMany(limited, '/api/tasks', 'task-writes', 59);
    expectLimitHeaders(limited, 'task-writes', 30, 60, 0, 59);
    const after = await request<{ items: unknown[] }>(`${server.url}/api/tasks?limit=50`);
    expect(after.body.items).toEqual(before.body.items);
  });

  it('counts a rejected write too, and sends the headers with its 422 or 400', async () => {
    clock.set(START);
    const client = newClient();
    const invalid = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: '' }, client) });
    expect(invalid.status).toBe(422);
    expectLimitHeaders(invalid, 'task-writes', 30, 60, 29, 59);
    const notJson = await request(`${server.url}/api/tasks`, { method: 'POST', body: '{', headers: { 'content-type': 'application/json', ...client } });
    expect(notJson.status).toBe(400);
    expectLimitHeaders(notJson, 'task-writes', 30, 60, 28, 59);
  });

  it('gives an authenticated caller 120, counted by key rather than by address', async () => {
    clock.set(START);
    const client = newClient();
    const key = await createKey(server.url, { name: 'writer' }, client['X-Forwarded-For']);
    const other = await createKey(server.url, { name: 'other writer' }, client['X-Forwarded-For']);
    for (let i = 0; i < 120; i++) {
      const response = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: `a${i}` }, { ...client, ...bearer(key.key) }) });
      expect(response.status).toBe(201);
    }
    const limited = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'over' }, { ...client, ...bearer(key.key) }) });
    expectTooMany(limited, '/api/tasks', 'task-writes', 59);
    expectLimitHeaders(limited, 'task-writes', 120, 60, 0, 59);
    const otherKey = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'fine' }, { ...client, ...bearer(other.key) }) });
    expect(otherKey.status).toBe(201);
    expectLimitHeaders(otherKey, 'task-writes', 120, 60, 119, 59);
    const anonymous = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'anon' }, client) });
    expectLimitHeaders(anonymous, 'task-writes', 30, 60, 29, 59);
  });

  it('counts tasks.create over /api/trpc against the same limit, answering TOO_MANY_REQUESTS with the headers', async () => {
    clock.set(START);
    const client = newClient();
    for (let i = 0; i < 29; i++) {
      expect((await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: `r${i}` }, client) })).status).toBe(201);
    }
    const viaTrpc = await request(`${server.url}/api/trpc/tasks.create`, { method: 'POST', ...jsonBody({ title: 'rpc' }, client) });
    expect(viaTrpc.status).toBe(200);
    expectLimitHeaders(viaTrpc, 'task-writes', 30, 60, 0, 59);
    const limited = await request<{ error: { data: { code: string; httpStatus: number } } }>(`${server.url}/api/trpc/tasks.create`, {
      method: 'POST',
      ...jsonBody({ title: 'rpc again' }, client),
    });
    expect(limited.status).toBe(429);
    expect(limited.body.error.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', httpStatus: 429 });
    expect(limited.headers.get('retry-after')).toBe('59');
    expectLimitHeaders(limited, 'task-writes', 30, 60, 0, 59);
  });
});

describe('POST /api/keys (5 per hour per client)', () => {
  it('lets 5 through, then 429 until the hour ends', async () => {
    clock.set(START);
    const client = newClient();
    for (let i = 0; i < 5; i++) {
      const response = await request(`${server.url}/api/keys`, { method: 'POST', ...jsonBody({ name: `k${i}` }, client) });
      expect(response.status).toBe(201);
      expectLimitHeaders(response, 'key-create', 5, 3600, 4 - i, 3599);
    }
    const limited = await request(`${server.url}/api/keys`, { method: 'POST', ...jsonBody({ name: 'k5' }, client) });
    expectTooMany(limited, '/api/keys', 'key-create', 3599);
  });
});

describe('POST /api/token (20 per minute)', () => {
  it('lets 20 exchanges through, then 429', async () => {
    clock.set(START);
    const client = newClient();
    const key = await createKey(server.url, { name: 'exchanger' }, client['X-Forwarded-For']);
    for (let i = 0; i < 20; i++) {
      const response = await request(`${server.url}/api/token`, { method: 'POST', headers: { ...client, ...bearer(key.key) } });
      expect(response.status).toBe(200);
      expectLimitHeaders(response, 'token', 20, 60, 19 - i, 59);
    }
    const limited = await request(`${server.url}/api/token`, { method: 'POST', headers: { ...client, ...bearer(key.key) } });
    expectTooMany(limited, '/api/token', 'token', 59);
  });
});

describe('windows in the database', () => {
  it('are deleted once they have ended', async () => {
    clock.set(START);
    const stale = newClient();
    await request(`${server.url}/api/limits/demo`, { headers: stale });
    const ended = async () => {
      const [row] = await rowsOf<{ n: number }>(
        server,
        sql`select count(*)::int as n from rate_limit_windows where window_end <= ${clock.now().toISOString()}::timestamptz`,
      );
      return row!.n;
    };
    clock.advance(2 * 3600 * 1000);
    expect(await ended()).toBeGreaterThan(0);
    // Any client's first request in a new window sweeps ended windows.
    await request(`${server.url}/api/limits/demo`, { headers: newClient() });
    expect(await ended()).toBe(0);
  });

  it('are swept as fast as they are made: a sweep that took a whole batch (100) is due again at once', async () => {
    clock.set(START + 4 * 3600 * 1000);
    const many = clientAddresses('198.51.100');
    for (let i = 0; i < 250; i++) expect((await request(`${server.url}/api/limits/demo`, { headers: many() })).status).toBe(200);
    const ended = async () =>
      (await rowsOf<{ n: number }>(server, sql`select count(*)::int as n from rate_limit_windows where window_end <= ${clock.now().toISOString()}::timestamptz`))[0]!.n;
    // Past those windows' end and the once-a-minute spacing of sweeps.
    clock.advance(3600 * 1000);
    expect(await ended()).toBeGreaterThanOrEqual(250);
    // Three first requests in a new window: three sweeps of 100, not one a minute.
    for (let i = 0; i < 3; i++) await request(`${server.url}/api/limits/demo`, { headers: newClient() });
    expect(await ended()).toBe(0);
  });
});

describe('a count that answers no row while its window has room', () => {
  it('is a fault of the database (503 with Retry-After), never a 429 to a client with requests left', async () => {
    const own = await startTestServer({ clock: new ManualClock(START) });
    try {
      expect((await request(`${own.url}/api/limits/demo`)).status).toBe(200);
      // The window's row now refuses every update: the upsert answers no row, as a statement whose answer was lost would.
      await rowsOf(own, sql`create function refuse_window_update() returns trigger language plpgsql as $$ begin return null; end $$`);
      await rowsOf(own, sql`create trigger refuse_window_update before update on rate_limit_windows for each row execute function refuse_window_update()`);
      const answer = await request(`${own.url}/api/limits/demo`);
      expectProblem(answer, own.baseUrl, 'unavailable', 503, '/api/limits/demo');
      expect(answer.headers.get('retry-after')).toBe('1');
      const [window] = await rowsOf<{ hits: number }>(own, sql`select hits from rate_limit_windows where name = 'demo'`);
      expect(window!.hits).toBe(1);
    } finally {
      await own.stop();
    }
  });
});

describe('client identity without TRUST_PROXY', () => {
  it('ignores X-Forwarded-For: every address it names shares the socket address counter', async () => {
    const direct = await startTestServer({ clock: new ManualClock(START) });
    try {
      for (let i = 0; i < 5; i++) {
        expect((await request(`${direct.url}/api/limits/demo`, { headers: { 'X-Forwarded-For': `198.51.100.${i}` } })).status).toBe(200);
      }
      const limited = await request(`${direct.url}/api/limits/demo`, { headers: { 'X-Forwarded-For': '198.51.100.99' } });
      expect(limited.status).toBe(429);
    } finally {
      await direct.stop();
    }
  });
});

describeOnPostgres('two instances on one PostgreSQL database', 'several instances share one database only on a PostgreSQL server', () => {
  it('share one limit: exactly 5 of 12 demo requests get through', async () => {
    const shared = await createTestDatabase();
    const sharedClock = new ManualClock(START);
    const first = await startTestServer({ clock: sharedClock, database: shared });
    const second = await startTestServer({ clock: sharedClock, database: shared });
    try {
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => request(`${(i % 2 === 0 ? first : second).url}/api/limits/demo`)),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(5);
      expect(statuses.filter((status) => status === 429)).toHaveLength(7);
    } finally {
      await first.stop();
      await second.stop();
      await shared.drop();
    }
  });
});
