import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startCluster, type Cluster } from './support/cluster.ts';
import { clusterGuarantees } from './support/cluster-guarantees.ts';
import { request } from './support/http.ts';
import { runMixedLoad, shuffledPlan, statusCounts, type Mix, type OperationKind, type Outcome } from './support/mixed-load.ts';
import { pgbouncerInstalled, startPgBouncer, type PgBouncer } from './support/pgbouncer.ts';
import { describeOnPostgres } from './support/postgres-only.ts';
import { runServiceExpectingFailure } from './support/service-process.ts';
import { postgresUrl } from './support/test-database.ts';

/** PgBouncer's own default_pool_size, which docs/deploy/pgbouncer.ini leaves alone: server connections per database. */
const DEFAULT_POOL_SIZE = 20;
/** Per instance: two instances' client connections (48) then clearly outnumber the server connections (at most 20). */
const POOL_MAX = 24;
/** The service's DATABASE_QUEUE_TIMEOUT_MS, and docs/deploy/pgbouncer.ini's query_wait_timeout (in seconds) for a query waiting in PgBouncer. */
const QUEUE_TIMEOUT_MS = 5000;
/** What an answer may take beyond the queue timeout: running the statements, on a shared two-core machine. */
const ANSWER_MARGIN_MS = 2000;
const CONCURRENCY = 24;
/** Longer than any request may take (queue timeout and margin), twice over. */
const HOLD_SECONDS = (2 * (QUEUE_TIMEOUT_MS + ANSWER_MARGIN_MS)) / 1000;
const MIGRATIONS = (JSON.parse(readFileSync(new URL('../src/db/migrations/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] }).entries.length;

/** The PostgreSQL server the tests use, which PgBouncer forwards to. */
const upstream = postgresUrl ? { host: new URL(postgresUrl).hostname, port: Number(new URL(postgresUrl).port || 5432) } : undefined;

/** Instances connected through `pgbouncer`; with `direct`, their migrations go to the server itself (DATABASE_DIRECT_URL). */
function throughPooler(pgbouncer: PgBouncer, direct: boolean): (databaseUrl: string) => Record<string, string> {
  return (databaseUrl) => ({ DATABASE_URL: pgbouncer.urlFor(databaseUrl), ...(direct ? { DATABASE_DIRECT_URL: databaseUrl } : {}) });
}

function databaseOf(cluster: Cluster): string {
  return new URL(cluster.database.env.DATABASE_URL!).pathname.slice(1);
}

const COMPLAINTS_SHOWN = 20;

interface LogEntry {
  level: number;
  time: string;
  msg: string;
  err?: LoggedError;
}
interface LoggedError {
  code?: string;
  message?: string;
  cause?: LoggedError;
}

/** A logged error's innermost cause: the driver's or the server's own words, not the SQL statement wrapped around them. */
function innermostCause(error: LoggedError | undefined): string {
  let cause = error;
  while (cause?.cause) cause = cause.cause;
  return cause ? `${cause.code ?? ''} ${cause.message?.split('\n')[0] ?? ''}`.trim() : '';
}

/** The last warnings and errors the instances logged, one short line each: what the service said while a test through the pooler failed. */
function serviceComplaints(cluster: Cluster): string {
  return cluster.instances
    .map((instance, index) => {
      const complaints = instance.lines
        .map((line) => JSON.parse(line) as LogEntry)
        .filter((entry) => entry.level >= 40)
        .slice(-COMPLAINTS_SHOWN)
        .map((entry) => `${entry.time} ${entry.msg} ${innermostCause(entry.err)}`);
      return `instance ${index}: ${complaints.length ? `\n${complaints.join('\n')}` : 'no warning or error logged'}`;
    })
    .join('\n');
}

/** One answer as an assertion message shows it: what was asked, how it ended, and how long it took. */
function describeOutcome(outcome: Outcome): string {
  const ending = outcome.status === 0 ? `no answer (${outcome.failure})` : String(outcome.status);
  return `${outcome.kind} (${outcome.target}): ${ending} after ${Math.round(outcome.elapsedMs)} ms`;
}

/** Each instance's own view of its pool (GET /metrics): a slot held after the load has ended is a request that never settled. */
async function poolMetrics(cluster: Cluster): Promise<string> {
  const lines = await Promise.all(
    cluster.instances.map(async (instance, index) => {
      const metrics = await request(`${instance.url}/metrics`).then((response) => response.text, (error: Error) => error.message);
      return `instance ${index}: ${metrics.split('\n').filter((line) => /^db_(connections_in_use|queries_queued) /.test(line)).join(', ')}`;
    }),
  );
  return lines.join('\n');
}

describeOnPostgres('the service through PgBouncer in transaction mode (docs/deploy/pgbouncer.ini)', 'PgBouncer pools connections to a PostgreSQL server', () => {
  if (!pgbouncerInstalled) {
    it('needs PgBouncer', (context) => context.skip("Debian's pgbouncer is not installed (/usr/sbin/pgbouncer); .ci/run installs it"));
    return;
  }

  describe('three instances, migrating over DATABASE_DIRECT_URL: every guarantee of the cluster suite', () => {
    clusterGuarantees(
      async (env) => {
        const pgbouncer = await startPgBouncer({ upstream });
        try {
          const cluster = await startCluster(3, env, { databaseEnv: throughPooler(pgbouncer, true) });
          return {
            ...cluster,
            stop: async () => {
              await cluster.stop();
              await pgbouncer.stop();
            },
          };
        } catch (error) {
          await pgbouncer.stop();
          throw error;
        }
      },
      { duplicateSubmissions: 60 },
    );
  });

  describe('instances started at the same moment on an empty database', () => {
    // Through the pooler a session lock serialises nothing: the trial saw 3 of 6 starts collide. Over the
    // direct URL it is the lock the plain cluster suite proves, started together once more here.
    const ROUNDS = { throughPooler: 3, direct: 1 };
    let pgbouncer: PgBouncer;
    beforeAll(async () => {
      pgbouncer = await startPgBouncer({ upstream });
    });
    afterAll(() => pgbouncer?.stop());

    for (const direct of [false, true]) {
      const rounds = direct ? ROUNDS.direct : ROUNDS.throughPooler;
      it(`two come up, ${rounds} time(s) on a new database, ${direct ? 'migrating over DATABASE_DIRECT_URL' : 'migrating through the pooler (no DATABASE_DIRECT_URL)'}`, async () => {
        for (let round = 0; round < rounds; round++) {
          // startCluster fails with the instance's own message when one of them does not start.
          const cluster = await startCluster(2, {}, { databaseEnv: throughPooler(pgbouncer, direct) });
          try {
            for (const instance of cluster.instances) expect((await request(`${instance.url}/api/ready`)).status).toBe(200);
            const [migrated] = await cluster.sql`select count(*)::int as applied from drizzle.__drizzle_migrations`;
            expect(migrated!.applied).toBe(MIGRATIONS);
          } finally {
            await cluster.stop();
          }
        }
      }, 90_000);
    }

    it("says in one line what the pooler itself refused (its own words, not 'unreachable')", async () => {
      const refused = new URL(pgbouncer.urlFor(postgresUrl!));
      refused.username = 'not_in_the_auth_file';
      const outcome = await runServiceExpectingFailure({ DATABASE_URL: refused.toString(), DATABASE_CONNECT_TIMEOUT_MS: '1500' });
      expect(outcome.code).toBe(1);
      expect(outcome.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^PostgreSQL on 127\.0\.0\.1:\d+ refused the connection: .+ \(08P01\)$/)]);
    });

    it('says in one line how to create a database the pooler does not find, as directly on PostgreSQL', async () => {
      const missing = new URL(pgbouncer.urlFor(postgresUrl!));
      missing.pathname = '/no_such_database_behind_the_pooler';
      const outcome = await runServiceExpectingFailure({ DATABASE_URL: missing.toString(), DATABASE_CONNECT_TIMEOUT_MS: '1500' });
      expect(outcome.code).toBe(1);
      expect(outcome.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(
          /^PostgreSQL on 127\.0\.0\.1:\d+ refused the connection: database "no_such_database_behind_the_pooler" does not exist \(08P01\): create it on the PostgreSQL server behind the pooler \(`createdb -U postgres no_such_database_behind_the_pooler`\), or name it in the pooler's \[databases\]$/,
        ),
      ]);
    });
  });

  describe(`two instances of ${POOL_MAX} connections each under ${CONCURRENCY} concurrent clients, migrating through the pooler`, () => {
    let pgbouncer: PgBouncer;
    let cluster: Cluster;
    let mix: Mix;
    beforeAll(async () => {
      pgbouncer = await startPgBouncer({ upstream });
      cluster = await startCluster(
        2,
        {
          DATABASE_POOL_MAX: String(POOL_MAX),
          DATABASE_QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS),
          RATE_LIMIT_TASK_WRITES_ANON: '100000',
          RATE_LIMIT_SCORES_PER_MINUTE: '100000',
        },
        { databaseEnv: throughPooler(pgbouncer, false) },
      );
      // A client waits three times the bound for an answer: a hang is counted as one, never stalls the test.
      mix = { next: () => cluster.next(), deadlineMs: 3 * (QUEUE_TIMEOUT_MS + ANSWER_MARGIN_MS) };
    });
    afterAll(async () => {
      await cluster?.stop();
      await pgbouncer?.stop();
    });
    beforeEach(({ onTestFailed }) => {
      onTestFailed(async () => {
        process.stderr.write(`\n--- through PgBouncer, at the failure ---\n${await pgbouncer.diagnostics(databaseOf(cluster))}\n--- the service ---\n${await poolMetrics(cluster)}\n${serviceComplaints(cluster)}\n`);
      });
    });

    /** Every acknowledged task is served by id, every acknowledged score is in the table. */
    async function expectAcknowledgedWritesStored(outcomes: readonly Outcome[]): Promise<void> {
      const taskIds = outcomes.filter((outcome) => outcome.kind === 'task' && outcome.id).map((outcome) => outcome.id!);
      const scoreIds = outcomes.filter((outcome) => outcome.kind === 'score' && outcome.id).map((outcome) => outcome.id!);
      const readBack = await Promise.all(taskIds.map((id) => request(`${cluster.next()}/api/tasks/${id}`)));
      expect(readBack.map((response) => response.status).filter((status) => status !== 200)).toEqual([]);
      const [stored] = await cluster.sql`select count(*)::int as scores from scores where id = any(${scoreIds}::uuid[])`;
      expect(stored!.scores).toBe(scoreIds.length);
    }

    it('500 reads and 200 writes all succeed, and every acknowledged write is found afterwards', async () => {
      const outcomes = await runMixedLoad(mix, CONCURRENCY, shuffledPlan({ read: 500, task: 100, score: 100 }));
      expect(statusCounts(outcomes)).toEqual({ 200: 500, 201: 200 });
      await expectAcknowledgedWritesStored(outcomes);
      for (const instance of cluster.instances) expect((await request(`${instance.url}/api/ready`)).status).toBe(200);
    }, 60_000);

    it(`multiplexes: the instances' client connections outnumber PgBouncer's server connections, which stay within default_pool_size (${DEFAULT_POOL_SIZE})`, async () => {
      // A burst wider than both pools: each instance opens every connection it may hold.
      const burst = await runMixedLoad(mix, 4 * POOL_MAX, shuffledPlan({ read: 8 * POOL_MAX, task: 0, score: 0 }));
      expect(statusCounts(burst)).toEqual({ 200: 8 * POOL_MAX });
      const database = databaseOf(cluster);
      const ofDatabase = (rows: Record<string, unknown>[]) => rows.filter((row) => row.database === database).length;
      const clients = ofDatabase(await pgbouncer.admin('SHOW CLIENTS'));
      const servers = ofDatabase(await pgbouncer.admin('SHOW SERVERS'));
      const [backends] = await cluster.sql`select count(*)::int as n from pg_stat_activity where datname = ${database} and backend_type = 'client backend'`;
      expect(clients).toBeGreaterThan(1.5 * DEFAULT_POOL_SIZE);
      expect(servers).toBeLessThanOrEqual(DEFAULT_POOL_SIZE);
      // PostgreSQL's side of it: PgBouncer's server connections, and this test's own two direct ones.
      expect(backends!.n).toBeLessThanOrEqual(DEFAULT_POOL_SIZE + 2);
    }, 60_000);

    /**
     * The mixed load, disrupted after 60 answers by `disrupt`, then carried on
     * for 150 answers after the disruption is over. Writes are capped (40
     * tasks, 40 scores) so retention never removes one this test checks.
     * `answers(n)` lets a disruption wait for n more answers.
     */
    async function underDisruption(disrupt: (answers: (count: number) => Promise<void>) => Promise<void>): Promise<Outcome[]> {
      const sent: Record<OperationKind, number> = { read: 0, task: 0, score: 0 };
      const waiting: { at: number; resolve: () => void }[] = [];
      let answered = 0;
      let disruption: Promise<{ failed: false } | { failed: true; error: unknown }> | undefined;
      let carryOnUntil = Infinity;
      const answers = (count: number) => new Promise<void>((resolve) => waiting.push({ at: answered + count, resolve }));
      const nextKind = (): OperationKind | undefined => {
        if (answered >= carryOnUntil) return undefined;
        const turn = sent.read + sent.task + sent.score;
        const kind: OperationKind = turn % 4 === 0 && sent.task < 40 ? 'task' : turn % 4 === 1 && sent.score < 40 ? 'score' : 'read';
        sent[kind]++;
        return kind;
      };
      const outcomes = runMixedLoad(mix, CONCURRENCY, nextKind, (_outcome, completed) => {
        answered = completed;
        for (const waiter of waiting.filter((candidate) => candidate.at <= completed)) waiter.resolve();
        if (completed === 60) {
          // Carried on even when the disruption itself failed, so the clients stop and the failure is reported after them.
          disruption = disrupt(answers)
            .then(() => ({ failed: false as const }), (error: unknown) => ({ failed: true as const, error }))
            .finally(() => {
              carryOnUntil = answered + 150;
            });
        }
      });
      const all = await outcomes;
      const disrupted = await disruption;
      if (disrupted?.failed) throw disrupted.error;
      expect(all.length).toBeGreaterThan(60 + 150);
      return all;
    }

    /** Each request completed or answered 503 with Retry-After within the queue timeout and margin; none failed otherwise. */
    function expectNeverWedged(outcomes: readonly Outcome[]): void {
      const bound = QUEUE_TIMEOUT_MS + ANSWER_MARGIN_MS;
      expect(outcomes.filter((outcome) => ![200, 201, 503].includes(outcome.status)).map(describeOutcome), 'answers other than 200, 201 and 503').toEqual([]);
      expect(outcomes.filter((outcome) => outcome.status === 503 && !/^\d+$/.test(outcome.retryAfter ?? '')).map(describeOutcome), '503s without Retry-After').toEqual([]);
      expect(outcomes.filter((outcome) => outcome.elapsedMs > bound).map(describeOutcome), `answers slower than DATABASE_QUEUE_TIMEOUT_MS (${QUEUE_TIMEOUT_MS}) + ${ANSWER_MARGIN_MS} ms`).toEqual([]);
    }

    /** Ready again by itself, nothing left open on the server, and the next load served in full. */
    async function expectRecovered(): Promise<void> {
      await vi.waitFor(
        async () => {
          for (const instance of cluster.instances) expect((await request(`${instance.url}/api/ready`)).status).toBe(200);
        },
        { timeout: 20_000, interval: 200 },
      );
      await vi.waitFor(
        async () => {
          const [open] = await cluster.sql`select count(*)::int as n from pg_stat_activity where datname = ${databaseOf(cluster)} and state like 'idle in transaction%'`;
          expect(open!.n).toBe(0);
        },
        { timeout: 5_000, interval: 100 },
      );
      const after = await runMixedLoad(mix, CONCURRENCY, shuffledPlan({ read: 36, task: 6, score: 6 }));
      expect(statusCounts(after)).toEqual({ 200: 36, 201: 12 });
    }

    it(`every server connection held by another client for ${HOLD_SECONDS} s (PgBouncer queues): reads answer 503 within the bound, then it recovers`, async (context) => {
      const database = databaseOf(cluster);
      const holder = postgres(pgbouncer.urlFor(cluster.database.env.DATABASE_URL!), { max: DEFAULT_POOL_SIZE, prepare: false, fetch_types: false, onnotice: () => {} });
      try {
        // Ended early once the load is over (cancelled), so each sleep's outcome is settled either way.
        const holding = Promise.allSettled(Array.from({ length: DEFAULT_POOL_SIZE }, () => holder`select pg_sleep(${HOLD_SECONDS})`));
        await vi.waitFor(
          async () => {
            const [sleeping] = await cluster.sql`select count(*)::int as n from pg_stat_activity where datname = ${database} and state = 'active' and query like 'select pg_sleep%'`;
            expect(sleeping!.n).toBe(DEFAULT_POOL_SIZE);
          },
          { timeout: 10_000, interval: 50 },
        );
        const outcomes = await runMixedLoad(mix, CONCURRENCY, shuffledPlan({ read: 2 * CONCURRENCY, task: 0, score: 0 }));
        await context.annotate(`while PgBouncer queued: ${JSON.stringify(statusCounts(outcomes))}`);
        // The hold runs its course: ended early from PostgreSQL's side, PgBouncer kept serving it (a cancel) or never told its client (a terminate).
        await holding;
        await vi.waitFor(
          async () => {
            const [sleeping] = await cluster.sql`select count(*)::int as n from pg_stat_activity where datname = ${database} and query like 'select pg_sleep%' and state = 'active'`;
            expect(sleeping!.n).toBe(0);
          },
          { timeout: (HOLD_SECONDS + 5) * 1000, interval: 100 },
        );
        expectNeverWedged(outcomes);
      } finally {
        await holder.end();
      }
      await expectRecovered();
    }, 90_000);

    it('PgBouncer restarted under load: only answers and 503s, every acknowledged write stored, ready again by itself', async (context) => {
      const outcomes = await underDisruption(() => pgbouncer.restart());
      await context.annotate(`restart under load: ${JSON.stringify(statusCounts(outcomes))}`);
      expectNeverWedged(outcomes);
      await expectAcknowledgedWritesStored(outcomes);
      await expectRecovered();
    }, 90_000);

    it("PgBouncer's server connections terminated by PostgreSQL under load: only answers and 503s, every acknowledged write stored, ready again by itself", async (context) => {
      const outcomes = await underDisruption(async () => {
        const pids = (await pgbouncer.admin('SHOW SERVERS')).filter((row) => row.database === databaseOf(cluster)).map((row) => Number(row.remote_pid));
        expect(pids.length).toBeGreaterThan(0);
        await cluster.sql`select pg_terminate_backend(pid) from unnest(${pids}::int[]) as pid`;
      });
      await context.annotate(`server connections terminated under load: ${JSON.stringify(statusCounts(outcomes))}`);
      expectNeverWedged(outcomes);
      await expectAcknowledgedWritesStored(outcomes);
      await expectRecovered();
    }, 90_000);

    it('every connection of the database killed on the admin console under load, resumed 24 answers later: only answers and 503s, ready again by itself', async (context) => {
      const outcomes = await underDisruption(async (answers) => {
        const database = databaseOf(cluster);
        await pgbouncer.admin(`KILL ${database}`);
        // New connections wait in PgBouncer until RESUME: the instances meanwhile answer from their queue timeout.
        await answers(CONCURRENCY);
        await pgbouncer.admin(`RESUME ${database}`);
      });
      await context.annotate(`KILL and RESUME under load: ${JSON.stringify(statusCounts(outcomes))}`);
      expectNeverWedged(outcomes);
      await expectAcknowledgedWritesStored(outcomes);
      await expectRecovered();
    }, 90_000);
  });
});
