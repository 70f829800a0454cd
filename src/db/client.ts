import { chmodSync, mkdirSync } from 'node:fs';
import type { Options, PostgresType, Sql } from 'postgres';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import { describeInnermostCause } from '../errors/innermost-cause.ts';
import { StartupError } from '../errors/startup-error.ts';
import { ConnectionGate } from './connection-gate.ts';
import { lockDataDir } from './data-dir-lock.ts';
import type { Database } from './database.ts';
import { assertPatchedDriver } from './patched-driver.ts';
import { preparedAndGated } from './prepared-and-gated.ts';
import { directMode, pooledMode, type SessionTimeouts, type StatementMode } from './statement-mode.ts';
import { multiplexesTransactions } from './transaction-pooler.ts';
import { RefusedStartupParameter, waitForPostgres } from './wait-for-postgres.ts';

type PostgresSettings = Extract<Config['database'], { kind: 'postgres' }>;

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/** Any value; it only has to be the same for every instance of the service. */
const MIGRATION_LOCK_ID = 7_340_112;
const RECONNECT_PAUSE_SECONDS = 0.1;

/**
 * PostgreSQL's defaults size shared buffers for a server (128 MB); inside the
 * service's own process they are most of its memory. A small API's working
 * set fits well in 16 MB (see docs/performance.md's memory figures).
 */
const EMBEDDED_SETTINGS = ['shared_buffers = 16MB', 'wal_buffers = 1MB'];

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** The bounded queue in front of PostgreSQL's connections; the embedded database has one connection and no gate. */
  gate?: ConnectionGate;
  /** What start-up should say about how the database is reached (an `info` line each). */
  notices: string[];
  /** Applies the committed migrations; safe to call from several instances at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export async function openDatabase(database: Config['database']): Promise<DatabaseHandle> {
  const handle = database.kind === 'postgres' ? await openPostgres(database) : await openPglite(database.dataDir);
  let closing: Promise<void> | undefined;
  return { ...handle, close: () => (closing ??= handle.close()) };
}

// Each driver is loaded only when chosen: the other one's modules would cost start-up time and memory.
async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true });
    // PGlite writes its files readable, some writable, by anyone; they hold webhook secrets and the signing secret's file.
    chmodSync(dataDir, 0o700);
  }
  const lock = inMemory ? undefined : lockDataDir(dataDir);
  try {
    const [{ PGlite }, { drizzle }, { migrate }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('drizzle-orm/pglite'),
      import('drizzle-orm/pglite/migrator'),
    ]);
    const client = await PGlite.create(dataDir, { postgresqlconf: EMBEDDED_SETTINGS }).catch((error: unknown) => {
      throw new StartupError(`Cannot open the embedded database in ${dataDir}: ${(error as Error).message}`);
    });
    const db = drizzle(client);
    return {
      db: db as unknown as Database,
      kind: 'pglite',
      notices: [],
      migrate: async () => {
        await migrate(db, { migrationsFolder });
      },
      close: async () => {
        try {
          await client.close();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

async function openPostgres(settings: PostgresSettings): Promise<DatabaseHandle> {
  const { url, pool } = settings;
  assertPatchedDriver();
  const [{ default: postgres }, { drizzle }, { migrate }] = await Promise.all([
    import('postgres'),
    import('drizzle-orm/postgres-js'),
    import('drizzle-orm/postgres-js/migrator'),
  ]);
  const timeouts: SessionTimeouts = { statementTimeoutMs: pool.statementTimeoutMs, idleInTransactionTimeoutMs: Math.max(pool.statementTimeoutMs, 30_000) };
  const connectionOptions = (settingsAtStart: Record<string, number>): Options<Record<string, PostgresType>> => ({
    // Opening a connection is waiting for one: a login a pooler holds (PgBouncer's PAUSE, a full pool) answers 503 within the queue's time too.
    connect_timeout: Math.min(pool.connectTimeoutMs, pool.queueTimeoutMs) / 1000,
    onnotice: () => {},
    // postgres.js reads the server's array types as the first statement of
    // every new connection and drops that promise (porsager/postgres#1192):
    // a server that goes away then ends the process with an unhandled
    // rejection. Drizzle parses and serialises our array columns itself.
    fetch_types: false,
    // postgres.js waits up to 20 s (growing with each failure) before it
    // reconnects, and queries wait with it: after an outage the service would
    // stall long after the server is back. A short fixed pause instead.
    backoff: () => RECONNECT_PAUSE_SECONDS,
    // A connection that lands on a standby (a failover's stale route) is closed at once, not used for writes that must fail.
    target_session_attrs: 'primary',
    connection: { application_name: 'lab-api', ...settingsAtStart },
  });

  let mode: StatementMode;
  const probe = postgres(url, { ...connectionOptions({}), max: 2 });
  try {
    await waitForPostgres(probe, url, pool.connectTimeoutMs);
    mode = (await multiplexesTransactions(probe)) ? pooledMode(timeouts) : directMode(timeouts);
  } finally {
    await probe.end({ timeout: 0 });
  }
  const clientFor = (chosen: StatementMode) =>
    postgres(url, {
      ...connectionOptions(chosen.startupSettings),
      max: pool.max,
      // Statements sent behind the one running (postgres.js reads the option but does not declare it).
      ...({ max_pipeline: pool.pipelineDepth - 1 } as object),
      // No idle timeout: the pool keeps its connections (at most DATABASE_POOL_MAX)
      // until postgres.js's max lifetime (30 to 60 minutes) replaces them. Closing
      // them after 30 s idle cost a timer set and cleared on every query, and a new
      // connection after every quiet spell.
    });
  let client = clientFor(mode);
  let refusedSetting: string | undefined;
  try {
    await waitForPostgres(client, url, pool.connectTimeoutMs);
  } catch (error) {
    await client.end({ timeout: 0 });
    refusedSetting = error instanceof RefusedStartupParameter ? error.parameter : undefined;
    if (!refusedSetting) throw error;
    // A pooler in session mode keeps sessions but refuses settings it does not know: they come with each transaction instead.
    mode = pooledMode(timeouts);
    client = clientFor(mode);
    try {
      await waitForPostgres(client, url, pool.connectTimeoutMs);
    } catch (again) {
      await client.end({ timeout: 0 });
      throw again;
    }
  }
  // Admitted work runs at most its statements' time (each is bounded by the statement timeout on the server) and a wait for a connection.
  const gate = new ConnectionGate(pool.max, pool.pipelineDepth, pool.queueTimeoutMs, pool.queueTimeoutMs + pool.statementTimeoutMs);
  const db = drizzle(preparedAndGated(client, gate, mode));
  return {
    db: db as unknown as Database,
    kind: 'postgres',
    gate,
    notices: [
      ...(mode.throughPooler && !refusedSetting
        ? ['DATABASE_URL multiplexes transactions (a pooler such as PgBouncer in transaction mode): statements are unnamed and the timeouts are set in each transaction']
        : []),
      ...(refusedSetting
        ? [`DATABASE_URL refused the startup parameter ${refusedSetting}: the timeouts are set in each transaction instead`]
        : []),
    ],
    migrate: () => migrateOnce(settings, (direct) => migrate(drizzle(direct), { migrationsFolder })),
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * Instances started together on an empty database would race on CREATE
 * TABLE; a transaction-scoped advisory lock lets one migrate while the rest
 * wait. It holds through a transaction pooler too (a session lock there
 * serialises nothing: the next statement may run on another session), so
 * DATABASE_DIRECT_URL is a convenience, not a condition. The lock's
 * transaction stays open on one connection while the migrations run on the
 * other; neither keeps anything in a session.
 */
async function migrateOnce(settings: PostgresSettings, run: (direct: Sql) => Promise<void>): Promise<void> {
  const { default: postgres } = await import('postgres');
  const direct = postgres(settings.directUrl, {
    max: 2,
    prepare: false,
    onnotice: () => {},
    fetch_types: false,
    connect_timeout: settings.pool.connectTimeoutMs / 1000,
    connection: { application_name: 'lab-api-migrations' },
  });
  try {
    await waitForPostgres(direct, settings.directUrl, settings.pool.connectTimeoutMs);
    await direct.begin(async (lock) => {
      await lock`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`;
      await run(direct);
    });
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`Migrating the database failed: ${describeInnermostCause(error)}`);
  } finally {
    await direct.end({ timeout: 5 });
  }
}
