import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { rowsOf } from '../db/rows.ts';
import type { ServiceContext } from './service-context.ts';

/**
 * Deletes every row beyond the first `keep` in `order` (within `where`),
 * inside the creating transaction, and returns the ids it deleted.
 *
 * Concurrent creators cannot see each other's uncommitted rows, so each would
 * trim as if it were alone and leave extras behind. A transaction-scoped
 * advisory lock, taken after the insert, makes the trims take turns: each one
 * starts after the previous creator committed and sees its row. Creators
 * queue only for the delete and the commit, never for each other's inserts.
 */
export async function retainFirst(
  ctx: ServiceContext,
  target: { table: PgTable; id: PgColumn; order: SQL; keep: number; lockId: number; where?: SQL },
): Promise<string[]> {
  const { table, id, order, keep, lockId, where } = target;
  await ctx.db.execute(sql`select pg_advisory_xact_lock(${lockId})`);
  const deleted = await ctx.db.execute(sql`
    delete from ${table} where ${id} in (
      select ${id} from ${table}
      ${where ? sql`where ${where}` : sql``}
      order by ${order}
      offset ${keep}
    )
    returning ${id} as id`);
  return rowsOf<{ id: string }>(deleted).map((row) => row.id);
}

/** Advisory lock ids, one per serialised concern; any values, the same in every instance. */
export const ADVISORY_LOCKS = {
  tasks: 7_340_201,
  apiKeys: 7_340_202,
  events: 7_340_203,
  /** Plus the game's index: one lock per leaderboard. */
  scoresBase: 7_340_300,
} as const;
