import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ADVISORY_LOCKS } from '../src/services/retention.ts';
import { GAME_IDS } from '../src/schemas/games.ts';
import { jsonBody, request } from './support/http.ts';
import { ManualClock } from './support/manual-clock.ts';
import { describeOnPostgres } from './support/postgres-only.ts';
import { expectProblem } from './support/problem.ts';
import { startServerBehindProxy, type ServerBehindProxy } from './support/server-behind-proxy.ts';
import { useTestServer } from './support/test-server.ts';

const SETTLED = { timeout: 5000, interval: 10 };
const DEMO_BOARD_LOCK = ADVISORY_LOCKS.scoresBase + GAME_IDS.indexOf('demo');

/** A second session takes the demo board's retention lock; the returned function gives it back. */
async function holdDemoBoardLock(sql: postgres.Sql): Promise<() => Promise<void>> {
  const reserved = await sql.reserve();
  await reserved`begin`;
  await reserved`select pg_advisory_xact_lock(${DEMO_BOARD_LOCK})`;
  return async () => {
    await reserved`rollback`;
    reserved.release();
  };
}

/**
 * Inside a write's transaction, every statement whose result the work does
 * not need (the insert of a task, each retention lock and trim, the event's
 * lock and insert, the idempotency record's completion) is sent behind the
 * others, pipelined, and the COMMIT follows them without waiting for their
 * answers: no lock is held while an answer travels back to the service.
 */
describeOnPostgres('round trips to PostgreSQL per write', 'counts what the service sends to a PostgreSQL server through a proxy', () => {
  let behindProxy: ServerBehindProxy;
  beforeAll(async () => {
    // One pool connection, so no other request shares the count; no webhook polls in between.
    behindProxy = await startServerBehindProxy({ DATABASE_POOL_MAX: '1', WEBHOOK_POLL_MS: '3600000' });
  });
  afterAll(() => behindProxy.stop());

  /**
   * The round trips of the third of three requests: statements are prepared on
   * their first run, housekeeping rides on the first. The proxy runs on the
   * service's thread, so what the service writes in one turn (postgres.js may
   * split it into two writes) is all sent before the proxy can pass any of it on.
   */
  async function turnsOf(send: () => Promise<{ status: number }>, status: number): Promise<number> {
    for (let warmUp = 0; warmUp < 2; warmUp++) expect((await send()).status).toBe(status);
    const before = behindProxy.proxy.clientTurns;
    expect((await send()).status).toBe(status);
    return behindProxy.proxy.clientTurns - before;
  }

  it('creates a task in two: rate limit, then BEGIN, the insert, its trim and COMMIT together', async () => {
    const turns = await turnsOf(() => request(`${behindProxy.server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'counted' }) }), 201);
    expect(turns).toBe(2);
  });

  it('stores a score in four: rate limit, Idempotency-Key claim, BEGIN with the ranked insert, then its trim, event, completion and COMMIT together', async () => {
    const score = () => jsonBody({ game: 'demo', initials: 'RTT', value: 7 }, { 'Idempotency-Key': randomUUID() });
    const turns = await turnsOf(() => request(`${behindProxy.server.url}/api/scores`, { method: 'POST', ...score() }), 201);
    expect(turns).toBe(4);
  });
});

describeOnPostgres('a pipelined statement that fails', 'a second PostgreSQL session holds the board lock until the statement times out', () => {
  const server = useTestServer({ env: { DATABASE_STATEMENT_TIMEOUT_MS: '300' } });
  let locker: postgres.Sql;
  beforeAll(() => {
    locker = postgres(server.database.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterAll(() => locker.end());

  it('is the answer (not the statements after it, which fail because it did), stores nothing, and frees the Idempotency-Key', async () => {
    const key = randomUUID();
    const submit = () => request(`${server.url}/api/scores`, { method: 'POST', ...jsonBody({ game: 'demo', initials: 'TMO', value: 42 }, { 'Idempotency-Key': key }) });
    const releaseBoard = await holdDemoBoardLock(locker);
    try {
      // The board's lock times out; the trim, the event and the completion sent behind it fail as "current transaction is aborted".
      const problem = expectProblem(await submit(), server.baseUrl, 'unavailable', 503, '/api/scores');
      expect(problem.detail).toBe('The database cannot be reached right now; retry in a moment.');
    } finally {
      await releaseBoard();
    }

    const [stored] = await locker`select count(*)::int as n from scores where initials = 'TMO'`;
    expect(stored!.n).toBe(0);
    const [events] = await locker`select count(*)::int as n from events where data->>'initials' = 'TMO'`;
    expect(events!.n).toBe(0);
    // Released before the answer, the key takes the same request again, this time to the end.
    expect((await submit()).status).toBe(201);
    const [after] = await locker`select count(*)::int as n from scores where initials = 'TMO'`;
    expect(after!.n).toBe(1);
  });
});

describeOnPostgres('a completion sent without waiting for its answer', 'a second PostgreSQL session holds the board lock while the key changes hands', () => {
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
  const server = useTestServer({ clock });
  let locker: postgres.Sql;
  beforeAll(() => {
    locker = postgres(server.database.env.DATABASE_URL!, { max: 2, onnotice: () => {} });
  });
  afterAll(() => locker.end());

  it('fails, and rolls its work back, when another attempt took the Idempotency-Key over meanwhile', async () => {
    const key = randomUUID();
    const submit = () => request(`${server.url}/api/scores`, { method: 'POST', ...jsonBody({ game: 'demo', initials: 'OVR', value: 9 }, { 'Idempotency-Key': key }) });
    const waitingForBoard = async (count: number) =>
      vi.waitFor(async () => {
        const [waiting] = await locker`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = ${DEMO_BOARD_LOCK} and not granted`;
        expect(waiting!.n).toBe(count);
      }, SETTLED);

    const releaseBoard = await holdDemoBoardLock(locker);
    const first = submit();
    await waitingForBoard(1);
    // Past docs/spec/SPEC.md's 60 seconds, the unfinished first attempt's key is free to take.
    clock.advance(61_000);
    const second = submit();
    await waitingForBoard(2);
    await releaseBoard();

    // The first gets the lock first; its completion finds the key taken and fails, and its commit becomes a rollback.
    const problem = expectProblem(await first, server.baseUrl, 'request-in-progress', 409, '/api/scores');
    expect(problem.detail).toBe('This attempt took too long and another took over its Idempotency-Key; retry in a moment.');
    const stored = await second;
    expect(stored.status).toBe(201);
    const [scores] = await locker`select count(*)::int as n from scores where initials = 'OVR'`;
    expect(scores!.n).toBe(1);
    const [events] = await locker`select count(*)::int as n from events where data->>'initials' = 'OVR'`;
    expect(events!.n).toBe(1);
    const replay = await submit();
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(stored.body);
  });
});

describeOnPostgres('a COMMIT answered ROLLBACK', 'changes a column type under statements a PostgreSQL connection has prepared', () => {
  // One connection: the warm-up prepares the statements the write will use.
  const server = useTestServer({ env: { DATABASE_POOL_MAX: '1' } });
  let admin: postgres.Sql;
  beforeAll(() => {
    admin = postgres(server.database.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterAll(() => admin.end());

  /**
   * The retention trim, sent behind the insert, fails: its prepared plan
   * would now answer another type. postgres.js runs it again, prepared anew,
   * behind the COMMIT, and reports that run's success; the insert was rolled
   * back with the transaction, and the COMMIT came back as ROLLBACK.
   */
  it('is not acknowledged, and the task it answered for is not stored', async () => {
    const create = (title: string) => request<{ id: string }>(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title }) });
    for (const title of ['prepared-1', 'prepared-2']) expect((await create(title)).status).toBe(201);
    await admin.unsafe('alter table tasks alter column id type text');

    const answer = await create('rolled-back');
    expectProblem(answer, server.baseUrl, 'internal', 500, '/api/tasks');
    const [stored] = await admin`select count(*)::int as n from tasks where title = 'rolled-back'`;
    expect(stored!.n).toBe(0);
    // The statements are prepared again on their retry; the next write is whole.
    const next = await create('after');
    expect(next.status).toBe(201);
    const [after] = await admin`select count(*)::int as n from tasks where id = ${next.body.id}`;
    expect(after!.n).toBe(1);
  });
});
