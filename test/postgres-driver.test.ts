import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { describe, expect, vi } from 'vitest';
import { itOnPostgres } from './support/postgres-only.ts';
import { TcpProxy } from './support/tcp-proxy.ts';
import { postgresUrl } from './support/test-database.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * patches/postgres+3.4.9.patch turns postgres.js's static `Symbol.species`
 * getters (Result, Query) into data properties. With the getters, V8 on
 * Node 20 started optimizing those classes, and the code that allocates
 * them, over and over, each time throwing the work away ("dependency
 * change"): worker threads compiled without end, a quarter of a task read's
 * CPU. Run 20,000 queries and read V8's own account of its optimizations.
 */
describe('postgres.js under load', () => {
  itOnPostgres('is optimized once: no optimization of its result or query classes is thrown away', 'postgres.js talks to a PostgreSQL server', async () => {
    const script = `
      import postgres from 'postgres';
      const sql = postgres(process.env.LOAD_DATABASE_URL, { max: 4, onnotice: () => {} });
      let rows = 0;
      for (let round = 0; round < 40; round++) {
        const results = await Promise.all(Array.from({ length: 500 }, (_, index) => sql\`select \${index}::int as n\`));
        rows += results.length;
        if (results[0].map((row) => row.n).constructor !== Array) throw new Error('a mapped result should be a plain array');
      }
      await sql.end();
      console.log('rows ' + rows);
    `;
    const run = spawnSync(process.execPath, ['--trace-opt', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, LOAD_DATABASE_URL: postgresUrl },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('rows 20000');
    const thrownAway = run.stdout.split('\n').filter((line) => /aborted optimizing .*<JSFunction (Result|Query) /.test(line));
    expect(thrownAway).toEqual([]);
  }, 60_000);
});

/** `promise`'s value, or a failure naming `what` once `ms` have passed without one: a wait that would never end, told as such. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** Waits until the server runs a statement that starts with `prefix`, as `admin`, a connection of its own, sees it. */
async function runningOnServer(admin: postgres.Sql, prefix: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const [running] = await admin`select count(*)::int as n from pg_stat_activity where state = 'active' and query like ${`${prefix}%`}`;
      expect(running!.n).toBe(1);
    },
    { timeout: 5_000, interval: 20 },
  );
}

/** The patch's fixes for waits that never ended (patches/postgres+3.4.9.patch, ADR 8), each on the driver alone. */
describe('postgres.js when a connection is lost', () => {
  const SETTLE_MS = 5_000;
  const options = { fetch_types: false, onnotice: () => {}, backoff: () => 0.05 };

  /** `check` with one connection through a proxy that can reset it, and an admin connection of its own straight to the server. */
  async function throughResettingProxy(check: (connections: { sql: postgres.Sql; admin: postgres.Sql; proxy: TcpProxy }) => Promise<void>): Promise<void> {
    const server = new URL(postgresUrl!);
    const proxy = new TcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    await proxy.start();
    const throughProxy = new URL(postgresUrl!);
    throughProxy.port = String(proxy.port);
    const sql = postgres(throughProxy.toString(), { ...options, max: 1 });
    const admin = postgres(postgresUrl!, { max: 1, onnotice: () => {} });
    try {
      await check({ sql, admin, proxy });
    } finally {
      await sql.end({ timeout: 0 });
      await admin.end();
      await proxy.stop();
    }
  }

  itOnPostgres('reserve-waits: a reserve() waiting for the only connection gets it once the connection, closed by the server, is open again', 'the server closes the connection', async () => {
    const sql = postgres(postgresUrl!, { ...options, max: 1 });
    const admin = postgres(postgresUrl!, { max: 1, onnotice: () => {} });
    try {
      const [{ pid }] = (await sql`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
      const sleeping = sql`select pg_sleep(30) as lab_reserve_waits`.then(
        () => 'answered',
        (error: { code?: string }) => error.code,
      );
      await runningOnServer(admin, 'select pg_sleep(30) as lab_reserve_waits');
      // Queued: the one connection is busy.
      const reserving = sql.reserve();
      await admin`select pg_terminate_backend(${pid})`;
      expect(await sleeping).not.toBe('answered');
      const reserved = await within(reserving, SETTLE_MS, 'the queued reserve()');
      try {
        expect([...(await reserved`select 1 as one`)]).toEqual([{ one: 1 }]);
      } finally {
        reserved.release();
      }
    } finally {
      await sql.end({ timeout: 0 });
      await admin.end();
    }
  });

  itOnPostgres('reserve-releases: a statement queued on a reserved connection that is released as its socket fails fails too', 'a proxy resets the connection to the server', async () => {
    await throughResettingProxy(async ({ sql, admin, proxy }) => {
      const reserved = await sql.reserve();
      const running = reserved`select pg_sleep(30) as lab_reserve_releases`.execute();
      // A statement with parameters is described before it is bound: the ones after it wait in the reserved connection's own queue.
      const described = reserved.unsafe('select $1::int as n', [1]).execute();
      const queued = reserved`select 2 as n`.execute();
      // Released as soon as the running statement fails, as a failed transaction releases its connection.
      running.catch(() => reserved.release());
      described.catch(() => {});
      const queuedOutcome = queued.then(
        () => 'answered',
        (error: { code?: string }) => error.code,
      );
      await runningOnServer(admin, 'select pg_sleep(30) as lab_reserve_releases');
      proxy.resetConnections();
      expect(await within(queuedOutcome, SETTLE_MS, 'the statement queued on the released connection')).toBe('RESERVED_RELEASED');
    });
  });

  itOnPostgres('closed-after-error: a statement sent on a connection whose socket failed but has not closed yet fails as closed', 'a proxy resets the connection to the server', async () => {
    await throughResettingProxy(async ({ sql, admin, proxy }) => {
      const reserved = await sql.reserve();
      // Sent as soon as the running statement fails: what a transaction does with its ROLLBACK.
      const sentAfterTheFailure = reserved`select pg_sleep(30) as lab_closed_after_error`.then(
        () => 'answered',
        () => reserved`select 1`.then(() => 'answered', (error: { code?: string }) => error.code),
      );
      await runningOnServer(admin, 'select pg_sleep(30) as lab_closed_after_error');
      proxy.resetConnections();
      expect(await within(sentAfterTheFailure, SETTLE_MS, 'the statement sent after the failure')).toBe('CONNECTION_CLOSED');
      reserved.release();
      expect([...(await within(Promise.resolve(sql`select 1 as one`), SETTLE_MS, 'the next statement'))]).toEqual([{ one: 1 }]);
    });
  });
});
