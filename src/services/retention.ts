import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { compiledStatement, type CompiledStatement } from '../db/compiled-statement.ts';
import type { ServiceContext, TransactionContext } from './service-context.ts';

/** Which rows a collection keeps: the first `keep` in `order` (within `where`). */
export interface RetentionRule {
  lockId: number;
  trim: CompiledStatement<{ id: string }>;
}

/** A collection's retention, its statement built once (see compiledStatement). */
export function retentionRule(target: { table: PgTable; id: PgColumn; order: SQL; keep: number; lockId: number; where?: SQL }): RetentionRule {
  const { table, id, order, keep, lockId, where } = target;
  return {
    lockId,
    trim: compiledStatement(
      () => sql`
        delete from ${table} where ${id} in (
          select ${id} from ${table}
          ${where ? sql`where ${where}` : sql``}
          order by ${order}
          offset ${keep}
        )
        returning ${id} as id`,
    ),
  };
}

/** Keeps the `keep` newest rows of a table, newest by `createdAt` and then `id`. */
export function keepNewest(target: { table: PgTable & { id: PgColumn; createdAt: PgColumn }; keep: number; lockId: number }): RetentionRule {
  const { table, keep, lockId } = target;
  return retentionRule({ table, id: table.id, order: sql`${table.createdAt} desc, ${table.id} desc`, keep, lockId });
}

/** A transaction-scoped advisory lock: held until the transaction ends. */
const ADVISORY_XACT_LOCK = compiledStatement(() => sql`select pg_advisory_xact_lock(${sql.placeholder('lock')})`);

/** Takes the transaction-scoped advisory lock `lockId`. */
export async function lockForTransaction(ctx: ServiceContext, lockId: number): Promise<void> {
  await ADVISORY_XACT_LOCK.run(ctx.db, { lock: lockId });
}

/**
 * Deletes every row beyond the rule's first `keep`, inside the creating
 * transaction, and returns the ids it deleted.
 *
 * Concurrent creators cannot see each other's uncommitted rows, so each would
 * trim as if it were alone and leave extras behind. A transaction-scoped
 * advisory lock, taken after the insert, makes the trims take turns: each one
 * starts after the previous creator committed and sees its row. Creators
 * queue only for the delete and the commit, never for each other's inserts.
 */
export async function retainFirst(ctx: ServiceContext, rule: RetentionRule): Promise<string[]> {
  return (await lockAndTrim(ctx, rule)).map((row) => row.id);
}

/** The same, for a transaction that need not know what was deleted: sent without waiting for the answers (see withTransaction). */
export function retainFirstBeforeCommit(tx: TransactionContext, rule: RetentionRule): void {
  tx.beforeCommit(lockAndTrim(tx, rule));
}

async function lockAndTrim(ctx: ServiceContext, rule: RetentionRule): Promise<{ id: string }[]> {
  // Sent together: the server runs the trim right after it grants the lock, in a
  // statement of its own (so its snapshot follows the lock), and the lock waits
  // on no round trip to us in between.
  const [, trimmed] = await Promise.all([lockForTransaction(ctx, rule.lockId), rule.trim.run(ctx.db, {})]);
  return trimmed;
}

/** Advisory lock ids, one per serialised concern; any values, the same in every instance. */
export const ADVISORY_LOCKS = {
  tasks: 7_340_201,
  apiKeys: 7_340_202,
  events: 7_340_203,
  /** Plus the game's index: one lock per leaderboard. */
  scoresBase: 7_340_300,
} as const;
