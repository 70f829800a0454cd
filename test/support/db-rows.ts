import { sql, type SQL } from 'drizzle-orm';
import { rowsOf as rowsOfResult } from '../../src/db/rows.ts';
import type { TestServer } from './test-server.ts';

/** Runs SQL on the server's own database, to check what was stored. */
export async function rowsOf<T = Record<string, unknown>>(server: TestServer, query: SQL): Promise<T[]> {
  return rowsOfResult<T>(await server.app.database.db.execute(query));
}

/**
 * How many rows a table holds, counted in the database itself: a list read
 * through the API stops at its page size, and would hide a write past it.
 */
export async function storedCount(server: TestServer, table: 'tasks' | 'scores' | 'api_keys'): Promise<number> {
  const [row] = await rowsOf<{ n: number }>(server, sql`select count(*)::int as n from ${sql.identifier(table)}`);
  return row!.n;
}
