import type { SQL } from 'drizzle-orm';
import { rowsOf as rowsOfResult } from '../../src/db/rows.ts';
import type { TestServer } from './test-server.ts';

/** Runs SQL on the server's own database, to check what was stored. */
export async function rowsOf<T = Record<string, unknown>>(server: TestServer, query: SQL): Promise<T[]> {
  return rowsOfResult<T>(await server.app.database.db.execute(query));
}
