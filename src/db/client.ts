import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { Config } from '../config.ts';
import { alwaysPrepared } from './always-prepared.ts';
import type { Database } from './database.ts';
import * as schema from './schema/index.ts';

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/** Any value; it only has to be the same for every instance of the service. */
const MIGRATION_LOCK_ID = 7_340_112;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Applies the committed migrations; safe to call from several instances at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export async function openDatabase(database: Config['database']): Promise<DatabaseHandle> {
  const handle = database.kind === 'postgres' ? await openPostgres(database.url) : await openPglite(database.dataDir);
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

async function openPostgres(url: string): Promise<DatabaseHandle> {
  const client = postgres(url, {
    max: 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    // A query that hangs becomes an error instead of a request that never ends.
    connection: { statement_timeout: 10_000, application_name: 'lab-api' },
  });
  const db = drizzlePostgres(alwaysPrepared(client), { schema });
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
