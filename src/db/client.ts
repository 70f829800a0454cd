import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { Config, PoolSettings } from '../config.ts';
import { ConnectionGate } from './connection-gate.ts';
import type { Database } from './database.ts';
import { preparedAndGated } from './prepared-and-gated.ts';
import * as schema from './schema/index.ts';

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/** Any value; it only has to be the same for every instance of the service. */
const MIGRATION_LOCK_ID = 7_340_112;
const RECONNECT_PAUSE_SECONDS = 0.1;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Applies the committed migrations; safe to call from several instances at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export async function openDatabase(database: Config['database']): Promise<DatabaseHandle> {
  const handle = database.kind === 'postgres' ? await openPostgres(database.url, database.pool) : await openPglite(database.dataDir);
  let closing: Promise<void> | undefined;
  return { ...handle, close: () => (closing ??= handle.close()) };
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  const db = drizzlePglite(client, { schema });
  return {
    db: db as unknown as Database,
    kind: 'pglite',
    migrate: () => migratePglite(db, { migrationsFolder }),
    close: () => client.close(),
  };
}

async function openPostgres(url: string, pool: PoolSettings): Promise<DatabaseHandle> {
  const client = postgres(url, {
    max: pool.max,
    idle_timeout: 30,
    connect_timeout: pool.connectTimeoutMs / 1000,
    onnotice: () => {},
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
  });
  const db = drizzlePostgres(preparedAndGated(client, new ConnectionGate(pool.max, pool.queueTimeoutMs)), { schema });
  return {
    db: db as unknown as Database,
    kind: 'postgres',
    migrate: async () => {
      // Instances started together on an empty database would race on
      // CREATE TABLE; the advisory lock lets one migrate while the rest wait.
      const session = await client.reserve();
      try {
        await session`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
        try {
          await migratePostgres(db, { migrationsFolder });
        } finally {
          await session`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
        }
      } finally {
        session.release();
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}
