import { randomUUID } from 'node:crypto';
import { afterEach, expect, it, vi } from 'vitest';
import { describeOnPostgres } from './support/postgres-only.ts';
import { startCluster, type Cluster } from './support/cluster.ts';
import { expectProblem } from './support/problem.ts';
import { postScore } from './support/scores-client.ts';

/** Long enough for a loaded machine, short enough that a hang fails the test rather than stalling it. */
const SETTLED = { timeout: 15_000, interval: 100 };

const submit = (url: string, key: string, body: Record<string, unknown>) => postScore(url, body, { 'Idempotency-Key': key });

describeOnPostgres('an instance dies or stops in the middle of work', 'instances that die share their database only on a PostgreSQL server', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('SIGKILL mid-submission: the key stays taken until the in-progress age passes, then the retry succeeds exactly once', async () => {
    // docs/spec/SPEC.md's 60 seconds, shortened for the test.
    cluster = await startCluster(2, { IDEMPOTENCY_IN_PROGRESS_MS: '1500', RATE_LIMIT_SCORES_PER_MINUTE: '1000' });
    const [doomed, survivor] = cluster.instances as [NonNullable<Cluster['instances'][0]>, NonNullable<Cluster['instances'][1]>];
    const key = randomUUID();
    const body = { game: 'demo', initials: 'KIL', value: 4321 };

    // Hold the submission inside its transaction: the score insert waits on this lock.
    const locker = await cluster.sql.reserve();
    await locker`begin`;
    await locker`lock table scores in exclusive mode`;
    const lost = submit(doomed.url, key, body).then(
      () => 'answered',
      () => 'no answer',
    );
    await vi.waitFor(async () => {
      const [record] = await cluster!.sql`select state from idempotency_records where key = ${key}`;
      expect(record?.state).toBe('in_progress');
    }, SETTLED);
    await vi.waitFor(async () => {
      const waiting = await cluster!.sql`select count(*)::int as n from pg_locks where relation = 'scores'::regclass and not granted`;
      expect(waiting[0]!.n).toBeGreaterThan(0);
    }, SETTLED);

    await doomed.stop('SIGKILL');
    expect(await lost).toBe('no answer');
    await locker`rollback`;
    locker.release();

    // The claim outlives its instance for a while…
    const early = await submit(survivor.url, key, body);
    expectProblem(early, cluster.baseUrl, 'request-in-progress', 409, '/api/scores');
    expect(early.headers.get('retry-after')).toBe('1');
    // …then the key comes free and the retry is the one that counts.
    let stored: { id: string } | undefined;
    await vi.waitFor(async () => {
      const retry = await submit(survivor.url, key, body);
      expect(retry.status).toBe(201);
      stored = retry.body;
    }, SETTLED);
    const replay = await submit(survivor.url, key, body);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(stored!.id);

    const scores = await cluster.sql`select id from scores where initials = 'KIL'`;
    expect(scores.map((row) => row.id)).toEqual([stored!.id]);
    const events = await cluster.sql`select count(*)::int as n from events where data->>'initials' = 'KIL'`;
    expect(events[0]!.n).toBe(1);
  });

  it('SIGTERM under load: in-flight requests finish, the process exits 0, and nothing is half-written', async () => {
    cluster = await startCluster(1, { RATE_LIMIT_SCORES_PER_MINUTE: '100000' });
    const [instance] = cluster.instances as [NonNullable<Cluster['instances'][0]>];

    const acknowledged = new Set<string>();
    const statuses = new Set<number>();
    let answered = 0;
    let refused = 0;
    const writer = async (id: number) => {
      for (let attempt = 0; ; attempt++) {
        try {
          const response = await postScore(instance.url, { game: 'runner', initials: 'TRM', value: id * 10_000 + attempt });
          statuses.add(response.status);
          if (response.status === 201) acknowledged.add(response.body.id);
          answered++;
        } catch {
          // The listener is closed: no more requests get in.
          refused++;
          return;
        }
      }
    };
    const writers = Promise.all(Array.from({ length: 8 }, (_, id) => writer(id)));
    await vi.waitFor(() => expect(answered).toBeGreaterThan(40), SETTLED);

    const exitCode = await instance.stop('SIGTERM');
    await writers;
    expect(exitCode).toBe(0);
    expect(refused).toBe(8);
    expect([...statuses]).toEqual([201]);

    // Every write is whole or absent: each score event has its completed key, none is left in progress,
    // and the events are exactly the acknowledged scores (retention may already have trimmed low scores).
    const events = await cluster.sql`select data->>'id' as id from events where type = 'score.submitted' and data->>'initials' = 'TRM'`;
    expect(new Set(events.map((row) => row.id as string))).toEqual(acknowledged);
    const [records] = await cluster.sql`select
      (select count(*)::int from idempotency_records where state = 'completed') as completed,
      (select count(*)::int from idempotency_records where state = 'in_progress') as in_progress`;
    expect(records).toEqual({ completed: acknowledged.size, in_progress: 0 });
  });
});
