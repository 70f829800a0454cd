import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { describeOnPostgres } from './support/postgres-only.ts';
import { rowsOf } from './support/db-rows.ts';
import { request, type JsonResponse } from './support/http.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectProblem } from './support/problem.ts';
import type { Score } from './support/scores-client.ts';
import { createTestDatabase } from './support/test-database.ts';
import { startTestServer, type TestServer, useTestServer } from './support/test-server.ts';

const clock = new ManualClock(Date.UTC(2026, 10, 23, 10, 0, 0));
const server = useTestServer({ clock, env: { TRUST_PROXY: 'true' } });
let clientCounter = 0;

/** A client address of its own per test: idempotency records are kept per client. */
function newClient(): string {
  return `192.0.2.${++clientCounter}`;
}

function submit(target: TestServer, body: string, key: string, client: string): Promise<JsonResponse<Score>> {
  return request<Score>(`${target.url}/api/scores`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'Idempotency-Key': key, 'X-Forwarded-For': client },
  });
}

const scoreBody = (value: number) => JSON.stringify({ game: 'demo', initials: 'IDM', value });

async function storedScores(target: TestServer, value: number): Promise<number> {
  return (await rowsOf<{ n: number }>(target, sql`select count(*)::int as n from scores where game = 'demo' and value = ${value}`))[0]!.n;
}

async function storedEvents(target: TestServer, scoreId: string): Promise<number> {
  return (await rowsOf<{ n: number }>(target, sql`select count(*)::int as n from events where data->>'id' = ${scoreId}`))[0]!.n;
}

describe('a repeat after success', () => {
  it('replays status, headers and body byte for byte, with Idempotent-Replayed, and does no work', async () => {
    const client = newClient();
    const body = scoreBody(101);
    const first = await submit(server, body, 'replay-1', client);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    clock.advance(5_000);
    const second = await submit(server, body, 'replay-1', client);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(second.text).toBe(first.text);
    expect(await storedScores(server, 101)).toBe(1);
    expect(await storedEvents(server, first.body.id)).toBe(1);
  });

  it('keeps the record 24 hours; after that the key starts fresh', async () => {
    const client = newClient();
    const body = scoreBody(102);
    const first = await submit(server, body, 'day-old', client);
    clock.advance(24 * 3600 * 1000 - 1);
    expect((await submit(server, body, 'day-old', client)).headers.get('idempotent-replayed')).toBe('true');
    clock.advance(1);
    const fresh = await submit(server, body, 'day-old', client);
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.body.id).not.toBe(first.body.id);
  });
});

describe('a repeat with another request', () => {
  it('a different body → 422 idempotency-key-reused, and nothing stored', async () => {
    const client = newClient();
    await submit(server, scoreBody(103), 'reused-1', client);
    const other = await submit(server, scoreBody(104), 'reused-1', client);
    expectProblem(other, server.baseUrl, 'idempotency-key-reused', 422, '/api/scores');
    expect(await storedScores(server, 104)).toBe(0);
  });

  it('the same JSON with other spacing is another request: the raw body is the fingerprint', async () => {
    const client = newClient();
    await submit(server, '{"game":"demo","initials":"IDM","value":105}', 'raw-1', client);
    const spaced = await submit(server, '{ "game": "demo", "initials": "IDM", "value": 105 }', 'raw-1', client);
    expect(spaced.status).toBe(422);
  });
});

describe('failures are not remembered', () => {
  it('a validation failure releases the key: the same key then succeeds with a corrected body', async () => {
    const client = newClient();
    const invalid = await submit(server, JSON.stringify({ game: 'demo', initials: 'bad', value: 106 }), 'fix-me', client);
    expect(invalid.status).toBe(422);
    const fixed = await submit(server, scoreBody(106), 'fix-me', client);
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a body that is not JSON is answered before any claim', async () => {
    const client = newClient();
    expect((await submit(server, '{', 'broken-json', client)).status).toBe(400);
    expect((await submit(server, scoreBody(107), 'broken-json', client)).status).toBe(201);
  });
});

describe('an unfinished first attempt', () => {
  const fingerprint = (body: string) => createHash('sha256').update(`POST /api/scores\n${body}`).digest('hex');

  async function insertInProgress(client: string, key: string, body: string, startedAt: Date): Promise<void> {
    await server.app.database.db.execute(sql`
      insert into idempotency_records (client, key, claim, fingerprint, state, started_at)
      values (${`ip:${client}`}, ${key}, ${randomUUID()}, ${fingerprint(body)}, 'in_progress', ${startedAt.toISOString()}::timestamptz)`);
  }

  it('→ 409 request-in-progress with Retry-After: 1 while it is younger than 60 seconds', async () => {
    const client = newClient();
    const body = scoreBody(108);
    await insertInProgress(client, 'running', body, new Date(clock.now().getTime() - 59_000));
    const response = await submit(server, body, 'running', client);
    expectProblem(response, server.baseUrl, 'request-in-progress', 409, '/api/scores');
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await storedScores(server, 108)).toBe(0);
  });

  it('a different body during it → 422 reused', async () => {
    const client = newClient();
    await insertInProgress(client, 'running-2', scoreBody(109), clock.now());
    expect((await submit(server, scoreBody(110), 'running-2', client)).status).toBe(422);
  });

  it('older than 60 seconds is taken over: the request runs', async () => {
    const client = newClient();
    const body = scoreBody(111);
    await insertInProgress(client, 'abandoned', body, new Date(clock.now().getTime() - 60_001));
    const response = await submit(server, body, 'abandoned', client);
    expect(response.status).toBe(201);
    expect(await storedScores(server, 111)).toBe(1);
    expect((await submit(server, body, 'abandoned', client)).headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('keys belong to their client', () => {
  it('the same key from two clients is two requests', async () => {
    const body = scoreBody(112);
    const first = await submit(server, body, 'shared-name', newClient());
    const second = await submit(server, body, 'shared-name', newClient());
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
  });
});

async function concurrentSubmissions(targets: TestServer[], value: number): Promise<JsonResponse<Score>[]> {
  const client = newClient();
  const body = scoreBody(value);
  return Promise.all(Array.from({ length: 20 }, (_, i) => submit(targets[i % targets.length]!, body, `burst-${value}`, client)));
}

function expectOneWinner(responses: JsonResponse<Score>[]): void {
  const created = responses.filter((response) => response.status === 201 && response.headers.get('idempotent-replayed') === null);
  expect(created).toHaveLength(1);
  for (const response of responses) {
    if (response.status === 201) expect(response.text).toBe(created[0]!.text);
    else expect(response.status).toBe(409);
  }
}

describe('20 concurrent identical submissions', () => {
  it('store exactly one score; the others get 409 or the replay', async () => {
    const responses = await concurrentSubmissions([server], 113);
    expectOneWinner(responses);
    expect(await storedScores(server, 113)).toBe(1);
  });
});

describeOnPostgres('20 concurrent identical submissions across two instances', 'concurrent submissions across instances need a shared PostgreSQL server (PGlite runs one transaction at a time)', () => {
  it('store exactly one score', async () => {
    const shared = await createTestDatabase();
    const first = await startTestServer({ database: shared, env: { TRUST_PROXY: 'true' } });
    const second = await startTestServer({ database: shared, env: { TRUST_PROXY: 'true' } });
    try {
      const responses = await concurrentSubmissions([first, second], 114);
      expectOneWinner(responses);
      expect(await storedScores(first, 114)).toBe(1);
    } finally {
      await first.stop();
      await second.stop();
      await shared.drop();
    }
  });
});
