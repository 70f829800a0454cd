import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/** Set to run the suite on a real PostgreSQL server instead of PGlite. */
export const postgresUrl = process.env.TEST_DATABASE_URL;

export interface TestDatabase {
  /** Environment for the service: DATABASE_URL or an in-memory PGlite. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A database nobody else uses: a new PostgreSQL database per call when
 * TEST_DATABASE_URL is set, else an in-memory PGlite.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!postgresUrl) return { env: { PGLITE_DATA_DIR: 'memory://' }, drop: async () => {} };
  const name = `lab_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(postgresUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    drop: async () => {
      const cleanup = postgres(postgresUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
