import { describe, it, type TestContext } from 'vitest';
import { postgresUrl } from './test-database.ts';

/**
 * Tests that mean something only on a real PostgreSQL server — concurrency
 * (PGlite runs one transaction at a time, so a missing lock would pass there),
 * several instances on one database, a server going away. Without
 * TEST_DATABASE_URL they are reported as skipped, with the reason, never
 * silently left out.
 */
export function describeOnPostgres(name: string, reason: string, body: () => void): void {
  if (postgresUrl) {
    describe(name, body);
    return;
  }
  describe(name, () => {
    it(`needs PostgreSQL: ${reason}`, (context) => context.skip(`PostgreSQL only (set TEST_DATABASE_URL): ${reason}`));
  });
}

export function itOnPostgres(name: string, reason: string, body: (context: TestContext) => Promise<void>, timeout?: number): void {
  it(
    name,
    async (context) => {
      if (!postgresUrl) context.skip(`PostgreSQL only (set TEST_DATABASE_URL): ${reason}`);
      await body(context);
    },
    timeout,
  );
}
