import postgres from 'postgres';
import { afterAll, beforeAll, expect, it, type TestContext } from 'vitest';
import { request } from './support/http.ts';
import { patroniClusterInstalled, patroniClusterMissing, startPatroniCluster, type PatroniCluster, type PatroniNode } from './support/patroni-cluster.ts';
import { describeOnPostgres } from './support/postgres-only.ts';
import { startServiceProcess, type ServiceProcess } from './support/service-process.ts';
import { TEST_BASE_URL, TEST_JWT_SECRET } from './support/test-server.ts';
import { startPgBouncer, type PgBouncer } from './support/pgbouncer.ts';
import { probeFirstAcceptedWrite } from './support/write-probe.ts';
import { SCORES_CHECKABLE_PER_LOAD, startWriteLoad, type WriteAnswer } from './support/write-load.ts';

/** What a request may wait for a connection before it answers 503 (docs/spec/DECISIONS.md, "High availability"). */
const QUEUE_TIMEOUT_MS = 3_000;
/**
 * The service gives up on database work after the queue's time and the statement's (db/connection-gate.ts):
 * a statement sent to a primary that then died may wait on a connection nothing closes until the proxy notices.
 * A deployment that wants failovers answered quickly keeps the statement timeout short, as here.
 */
const STATEMENT_TIMEOUT_MS = 2_000;
/** Beyond the queue timeout: the failing attempt itself and the answer's way back. */
const ANSWER_MARGIN_MS = 3_000;
/** Writes are served again within this long after the new primary accepts them. */
const RESUME_WITHIN_MS = 5_000;
/** Two instances, four clients, five writes a second each: ~20 writes/s. */
const INSTANCES = 2;
const CLIENTS = 4;
const WRITES_PER_CLIENT_PER_SECOND = 5;
/** Writes each instance must have answered, all of them started after the resume bound, before the load stops. */
const WRITES_AFTER_RESUME = 5;
const PROBE_TABLE = 'failover_probe';
const SERVICE_DATABASE = 'lab_api';

/**
 * The service under a steady write load on a Patroni cluster (docs/deploy/),
 * through a switchover and a crash of the primary. It runs in the PostgreSQL
 * pass of the suite (TEST_DATABASE_URL set) though it does not use that
 * server: the cluster brings its own PostgreSQL, and in the embedded-database
 * pass it would only repeat itself (and add a minute to CI).
 */
describeOnPostgres('the service across a PostgreSQL failover (Patroni, etcd, HAProxy)', 'it is a PostgreSQL deployment test, run once, in the PostgreSQL pass', () => {
  if (!patroniClusterInstalled) {
    it('needs the Patroni cluster', (context) => context.skip(patroniClusterMissing));
    return;
  }

  let cluster: PatroniCluster;
  let instances: ServiceProcess[] = [];
  /** The arrangement most production deployments end with: instances through PgBouncer, PgBouncer through HAProxy to the cluster. */
  let pgbouncer: PgBouncer | undefined;
  let pooled: ServiceProcess[] = [];
  /** The instances the running case loads and checks. */
  let serving: ServiceProcess[] = [];
  /** What each instance wrote to stderr after it started (a crash's stack, say). */
  const stderr = new Map<ServiceProcess, string>();

  beforeAll(async () => {
    cluster = await startPatroniCluster();
    const admin = postgres(cluster.url('postgres'), { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${SERVICE_DATABASE}`);
    await admin.unsafe(`create table ${PROBE_TABLE} (id bigserial primary key, at timestamptz not null default now())`);
    await admin.end();
    const env = {
      BASE_URL: TEST_BASE_URL,
      JWT_SECRET: TEST_JWT_SECRET,
      DATABASE_URL: cluster.url(SERVICE_DATABASE),
      DATABASE_QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      // The load comes from one address: the limits must not be what answers.
      RATE_LIMIT_TASK_WRITES_ANON: '1000000',
      RATE_LIMIT_SCORES_PER_MINUTE: '1000000',
    };
    instances = await Promise.all(Array.from({ length: INSTANCES }, () => startServiceProcess(env)));
    const haproxy = new URL(cluster.url(SERVICE_DATABASE));
    pgbouncer = await startPgBouncer({ upstream: { host: haproxy.hostname, port: Number(haproxy.port) } });
    pooled = await Promise.all(
      Array.from({ length: INSTANCES }, () => startServiceProcess({ ...env, DATABASE_URL: pgbouncer!.urlFor(cluster.url(SERVICE_DATABASE)), DATABASE_DIRECT_URL: cluster.url(SERVICE_DATABASE) })),
    );
    for (const instance of [...instances, ...pooled]) {
      stderr.set(instance, '');
      instance.child.stderr!.on('data', (chunk: Buffer) => stderr.set(instance, stderr.get(instance)! + chunk.toString()));
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...instances, ...pooled].map((instance) => instance.stop()));
    await pgbouncer?.stop();
    await cluster?.stop();
  }, 60_000);

  it('a switchover: only 503 with Retry-After during the gap, no acknowledged write lost, writes back within 5 s', async (context) => {
    serving = instances;
    await throughFailover(context, 'switchover', () => cluster.switchover(), 100_000);
  }, 120_000);

  it('a kill -9 of the primary\'s postmaster: only 503 with Retry-After during the gap, no acknowledged write lost, writes back within 5 s', async (context) => {
    serving = instances;
    await throughFailover(context, 'crash', () => cluster.crashPrimary(), 200_000);
  }, 120_000);

  it('through PgBouncer to HAProxy, a switchover: only 503 with Retry-After during the gap, no acknowledged write lost, writes back within 5 s', async (context) => {
    serving = pooled;
    await throughFailover(context, 'pooled-switchover', () => cluster.switchover(), 300_000);
  }, 120_000);

  async function throughFailover(context: TestContext, name: string, event: () => Promise<{ from: PatroniNode; to: PatroniNode }>, valueBase: number): Promise<void> {
    await forgetEarlierCasesWrites();
    const { standby } = await cluster.waitUntilReplicated();
    const load = startWriteLoad({
      instances: serving.map((instance) => instance.url),
      clients: CLIENTS,
      perClientPerSecond: WRITES_PER_CLIENT_PER_SECOND,
      label: `failover-${name}`,
      valueBase,
      requestTimeoutMs: 30_000,
    });
    const probe = probeFirstAcceptedWrite(standby.url('postgres'), PROBE_TABLE, 60_000);
    // What the engines and the serving said, when something went wrong.
    context.onTestFailed(() => console.log(`${serviceLogs()}\n${cluster.logs()}`));
    try {
      // Steady state first: each instance has acknowledged writes.
      await until(`writes acknowledged by every instance before the ${name}`, () => serving.every((_, index) => acknowledged(load.answers).some((answer) => answer.instance === index)));
      const eventAt = Date.now();
      const { to } = await event();
      expect(to.name, 'the synchronous standby is the one promoted').toBe(standby.name);
      const writableAt = await probe.accepted;
      // Let the load run until every instance has answered a few writes started after the bound.
      await until(`writes answered by every instance after ${RESUME_WITHIN_MS} ms`, () =>
        serving.every((_, index) => load.answers.filter((answer) => answer.instance === index && answer.startedAt >= writableAt + RESUME_WITHIN_MS).length >= WRITES_AFTER_RESUME),
      );
      await load.stop();
      await report(context, name, load.answers, eventAt, writableAt);
      await expectAcknowledgedWritesOn(to, load.answers);
    } finally {
      await load.stop();
      await probe.stop();
    }
    // Both serving serve again without a restart.
    for (const instance of serving) {
      expect(instance.child.exitCode, 'the instance is still the process started before the failover').toBeNull();
      expect((await request(`${instance.url}/api/ready`)).status).toBe(200);
    }
  }

  /** Every answer judged, then the figures printed for docs/DEPLOY.md. */
  async function report(context: TestContext, name: string, answers: WriteAnswer[], eventAt: number, writableAt: number): Promise<void> {
    const unavailable = answers.filter((answer) => answer.status === 503);
    const resumed = serving.map((_, index) => acknowledged(answers).find((answer) => answer.instance === index && answer.endedAt >= writableAt));
    const figures = {
      writes: answers.length,
      acknowledged: acknowledged(answers).length,
      answered503: unavailable.length,
      otherThan2xxOr503: answers.filter((answer) => !isAcknowledged(answer) && answer.status !== 503).length,
      eventToNewPrimaryWritableMs: writableAt - eventAt,
      newPrimaryWritableToFirst2xxMs: resumed.map((answer) => (answer ? answer.endedAt - writableAt : null)),
      longestStretchWithout2xxMs: longestStretchWithoutAcknowledgement(answers),
      slowestAnswerMs: Math.max(...answers.map((answer) => answer.endedAt - answer.startedAt)),
      answers: countBy(answers, (answer) => `${answer.kind} ${answer.status}${answer.problemType ? ` ${answer.problemType.split('/').pop()}` : ''}${answer.error ? ` ${answer.error}` : ''}`),
    };
    const line = `failover (${name}): ${JSON.stringify(figures)}`;
    console.log(line);
    await context.annotate(line);

    const unexpected = answers.filter((answer) => !isAcknowledged(answer) && !(answer.status === 503 && answer.retryAfter !== null && answer.problemType === `${TEST_BASE_URL}/problems/unavailable`));
    const told = (list: WriteAnswer[]) => list.map((answer) => describeAnswer(answer, eventAt));
    expect(told(unexpected), 'every answer is a 2xx or a 503 `unavailable` with Retry-After').toEqual([]);
    const bound = QUEUE_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + ANSWER_MARGIN_MS;
    const slow = answers.filter((answer) => answer.endedAt - answer.startedAt > bound);
    expect(told(slow), `no answer takes longer than DATABASE_QUEUE_TIMEOUT_MS (${QUEUE_TIMEOUT_MS}) + DATABASE_STATEMENT_TIMEOUT_MS (${STATEMENT_TIMEOUT_MS}) + ${ANSWER_MARGIN_MS} ms`).toEqual([]);
    for (const [index, answer] of resumed.entries()) {
      expect(answer, `instance ${index} acknowledged a write after the new primary accepted writes`).toBeDefined();
      expect(answer!.endedAt - writableAt, `instance ${index}: writes back within ${RESUME_WITHIN_MS} ms of the new primary accepting them`).toBeLessThanOrEqual(RESUME_WITHIN_MS);
    }
    const failedLate = answers.filter((answer) => answer.startedAt >= writableAt + RESUME_WITHIN_MS && !isAcknowledged(answer));
    expect(told(failedLate), `every write started ${RESUME_WITHIN_MS} ms after the new primary accepted writes is acknowledged`).toEqual([]);
  }

  /**
   * The cases run in any order on one database, and a board keeps its best 100
   * scores: another case's higher values would trim this case's acknowledged
   * scores, which would then look lost. Each case starts from empty tables.
   */
  async function forgetEarlierCasesWrites(): Promise<void> {
    const sql = postgres(cluster.url(SERVICE_DATABASE), { max: 1, onnotice: () => {} });
    try {
      await sql`truncate scores, tasks`;
    } finally {
      await sql.end();
    }
  }

  /** Each write answered 2xx is on the new primary, read there directly rather than through HAProxy. */
  async function expectAcknowledgedWritesOn(primary: PatroniNode, answers: WriteAnswer[]): Promise<void> {
    const sql = postgres(primary.url(SERVICE_DATABASE), { max: 1, onnotice: () => {} });
    try {
      const tasks = acknowledged(answers).filter((answer) => answer.kind === 'task');
      const scores = acknowledged(answers).filter((answer) => answer.kind === 'score');
      // Beyond this a board's retention may have trimmed an acknowledged score, which would then not be a lost one.
      expect(scores.length, 'few enough scores that retention has trimmed none of them').toBeLessThanOrEqual(SCORES_CHECKABLE_PER_LOAD);
      const storedTasks = await sql<{ id: string; title: string }[]>`select id, title from tasks where id in ${sql(tasks.map((answer) => answer.id!))}`;
      const storedScores = await sql<{ id: string; value: number }[]>`select id, value from scores where id in ${sql(scores.map((answer) => answer.id!))}`;
      const found = new Set([...storedTasks.map((row) => `${row.id} ${row.title}`), ...storedScores.map((row) => `${row.id} ${row.value}`)]);
      const lost = acknowledged(answers).filter((answer) => !found.has(`${answer.id} ${answer.payload}`));
      expect(lost, `every acknowledged write (${tasks.length} tasks, ${scores.length} scores) is on the new primary`).toEqual([]);
    } finally {
      await sql.end();
    }
  }

  /** Each instance's warnings and errors, and its answers with status 500 or more. */
  function serviceLogs(): string {
    const worth = (line: string) => !line.includes('"level":30') || /"status(Code)?":5\d\d/.test(line);
    return serving
      .map((instance, index) => {
        const state = instance.child.exitCode === null && instance.child.signalCode === null ? 'running' : `exited (${instance.child.exitCode ?? instance.child.signalCode})`;
        return `--- instance ${index}: ${state}\n${instance.lines.filter(worth).slice(-80).join('\n')}\n${(stderr.get(instance) ?? '').slice(-4000)}`;
      })
      .join('\n');
  }
});

/** One answer on one line, its start counted from the failover's beginning. */
function describeAnswer(answer: WriteAnswer, eventAt: number): string {
  const problem = answer.problemType ? ` ${answer.problemType.split('/').pop()}` : '';
  const retry = answer.retryAfter ? ` Retry-After ${answer.retryAfter}` : '';
  return `${answer.kind} ${answer.payload} → ${answer.status}${problem}${retry}${answer.error ? ` ${answer.error}` : ''} (instance ${answer.instance}, sent at ${answer.startedAt - eventAt} ms, answered after ${answer.endedAt - answer.startedAt} ms)`;
}

function isAcknowledged(answer: WriteAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

function acknowledged(answers: WriteAnswer[]): WriteAnswer[] {
  return answers.filter(isAcknowledged);
}

/** The longest time between two consecutive acknowledgements, as a client watching them would see the gap. */
function longestStretchWithoutAcknowledgement(answers: WriteAnswer[]): number {
  const moments = acknowledged(answers)
    .map((answer) => answer.endedAt)
    .sort((a, b) => a - b);
  let longest = 0;
  for (let index = 1; index < moments.length; index++) longest = Math.max(longest, moments[index]! - moments[index - 1]!);
  return longest;
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** Polls a condition of the running load, with a deadline. */
async function until(what: string, condition: () => boolean, deadlineMs = 60_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
