import { sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { ServiceContext } from './service-context.ts';

/**
 * Deletes every row beyond the newest `keep`, inside the creating transaction.
 *
 * Concurrent creators cannot see each other's uncommitted rows, so each would
 * trim as if it were alone and leave extras behind. A transaction-scoped
 * advisory lock, taken after the insert, makes the trims take turns: each one
 * starts after the previous creator committed and sees its row. Creators
 * queue only for the delete and the commit, never for each other's inserts.
 */
export async function retainNewest(
  ctx: ServiceContext,
  target: { table: PgTable; id: PgColumn; createdAt: PgColumn; keep: number; lockId: number },
): Promise<void> {
  const { table, id, createdAt, keep, lockId } = target;
  await ctx.db.execute(sql`select pg_advisory_xact_lock(${lockId})`);
  await ctx.db.execute(sql`
    delete from ${table} where ${id} in (
      select ${id} from ${table}
      order by ${createdAt} desc, ${id} desc
      offset ${keep}
    )`);
}

/** Advisory lock ids, one per retained table; any values, the same in every instance. */
export const RETENTION_LOCKS = { tasks: 7_340_201, apiKeys: 7_340_202 } as const;
