import postgres from 'postgres';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ADVISORY_LOCKS } from '../src/services/retention.ts';
import { jsonBody, request } from './support/http.ts';
import { describeOnPostgres } from './support/postgres-only.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();
const SETTLED = { timeout: 5000, interval: 10 };

/**
 * The retention lock and the trim are sent to the server together (no round
 * trip between them). That is right only if the server runs the trim after it
 * grants the lock, in a statement of its own: then the trim sees what the
 * lock's previous holder committed. Sent the other way round, or in one
 * statement, the trim would count without that row and leave 201 tasks.
 */
describeOnPostgres('retention takes turns', 'a second session holding the lock needs a PostgreSQL server', () => {
  let sql: postgres.Sql;
  beforeAll(() => {
    sql = postgres(server.database.env['DATABASE_URL']!, { max: 2, onnotice: () => {} });
  });
  afterAll(() => sql.end());

  it('a trim that waited for the retention lock counts the row its previous holder committed', async () => {
    await sql`insert into tasks (id, title, done, created_at, updated_at)
      select gen_random_uuid(), 'seed ' || i, false, date_trunc('milliseconds', now()) - i * interval '1 second', date_trunc('milliseconds', now()) - i * interval '1 second'
      from generate_series(1, 200) as i`;

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${ADVISORY_LOCKS.tasks})`;
      await tx`insert into tasks (id, title, done, created_at, updated_at)
        values (gen_random_uuid(), 'committed by the holder', false, date_trunc('milliseconds', now()), date_trunc('milliseconds', now()))`;
      holding();
      await released;
    });
    await held;

    const creating = request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'waits for the lock' }) });
    await vi.waitFor(async () => {
      const [waiting] = await sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = ${ADVISORY_LOCKS.tasks} and not granted`;
      expect(waiting!.n).toBe(1);
    }, SETTLED);
    release();
    await holder;

    expect((await creating).status).toBe(201);
    const [remaining] = await sql`select count(*)::int as n from tasks`;
    expect(remaining!.n).toBe(200);
  });
});
