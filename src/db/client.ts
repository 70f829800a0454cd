import { chmodSync, mkdirSync } from 'node:fs';
import type { Options, PostgresType } from 'postgres';
import { fileURLToPath } from 'node:url';
import type { Config, PoolSettings } from '../config.ts';
import { StartupError } from '../errors/startup-error.ts';
import { ConnectionGate } from './connection-gate.ts';
import { lockDataDir } from './data-dir-lock.ts';
import type { Database } from './database.ts';
import { preparedAndGated } from './prepared-and-gated.ts';
import { waitForPostgres } from './wait-for-postgres.ts';

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/** Any value; it only has to be the same for every instance of the service. */
const MIGRATION_LOCK_ID = 7_340_112;
const RECONNECT_PAUSE_SECONDS = 0.1;

/**
 * PostgreSQL's defaults size shared buffers for a server (128 MB); inside the
 * service's own process they are most of its memory. A small API's working
 * set fits well in 16 MB (see the README's memory figures).
 */
const EMBEDDED_SETTINGS = ['shared_buffers = 16MB', 'wal_buffers = 1MB'];

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** The bounded queue in front of PostgreSQL's connections; the embedded database has one connection and no gate. */
  gate?: ConnectionGate;
  /** Applies the committed migrations; safe to call from several instances at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export async function openDatabase(database: Config['database']): Promise<DatabaseHandle> {
  const handle = database.kind === 'postgres' ? await openPostgres(database.url, database.pool) : await openPglite(database.dataDir);
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

async function openPostgres(url: string, pool: PoolSettings): Promise<DatabaseHandle> {
  const [{ default: postgres }, { drizzle }, { migrate }] = await Promise.all([
    import('postgres'),
    import('drizzle-orm/postgres-js'),
    import('drizzle-orm/postgres-js/migrator'),
  ]);
  const options: Options<Record<string, PostgresType>> & { max_pipeline: number } = {
    max: pool.max,
    // Statements sent behind the one running (postgres.js reads the option but does not declare it).
    max_pipeline: pool.pipelineDepth - 1,
    // No idle timeout: the pool keeps its connections (at most DATABASE_POOL_MAX)
    // until postgres.js's max lifetime (30 to 60 minutes) replaces them. Closing
    // them after 30 s idle cost a timer set and cleared on every query, and a new
    // connection after every quiet spell.
    connect_timeout: pool.connectTimeoutMs / 1000,
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
    connection: {
      application_name: 'lab-api',
      // A query that hangs becomes an error instead of a request that never ends…
      statement_timeout: pool.statementTimeoutMs,
      // …and a transaction left open by a stalled client gives its locks back.
      idle_in_transaction_session_timeout: Math.max(pool.statementTimeoutMs, 30_000),
    },
  };
  const client = postgres(url, options);
  try {
    await waitForPostgres(client, url, pool.connectTimeoutMs);
  } catch (error) {
    await client.end({ timeout: 0 });
    throw error;
  }
  const gate = new ConnectionGate(pool.max, pool.pipelineDepth, pool.queueTimeoutMs);
  const db = drizzle(preparedAndGated(client, gate));
  return {
    db: db as unknown as Database,
    kind: 'postgres',
    gate,
    migrate: async () => {
      // Instances started together on an empty database would race on
      // CREATE TABLE; the advisory lock lets one migrate while the rest wait.
      // It is held on a connection of its own: the migrations run on the pool,
      // which may have just one (DATABASE_POOL_MAX=1 used to wait for itself).
      const lock = postgres(url, { max: 1, onnotice: () => {}, fetch_types: false, connect_timeout: pool.connectTimeoutMs / 1000 });
      try {
        await lock`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
        try {
          await migrate(db, { migrationsFolder });
        } finally {
          await lock`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
        }
      } finally {
        await lock.end({ timeout: 5 });
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}
