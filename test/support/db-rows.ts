import type { SQL } from 'drizzle-orm';
import type { TestServer } from './test-server.ts';

/** Runs SQL on the server's own database, to check what was stored. */
export async function rowsOf<T = Record<string, unknown>>(server: TestServer, query: SQL): Promise<T[]> {
  const result = await server.app.database.db.execute(query);
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as T[];
}
