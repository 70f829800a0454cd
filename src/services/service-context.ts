import type { Config } from '../config.ts';
import type { Database, Executor } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';

/** The deployment settings services act on. */
export type ServiceSettings = Pick<Config, 'baseUrl' | 'jwtSecret' | 'rateLimits'>;

/** What every service verb receives as `ctx`. */
export interface ServiceContext {
  /** The database, or the transaction this verb runs inside. */
  db: Executor;
  clock: Clock;
  settings: ServiceSettings;
  inTransaction?: boolean;
}

export function createServiceContext(db: Database, clock: Clock, settings: ServiceSettings): ServiceContext {
  return { db, clock, settings };
}

/**
 * Runs `work` in a transaction, reusing one already open in `ctx`. PGlite has
 * a single connection: code inside must use the `ctx` it is given, never an
 * outer handle, or it waits on itself.
 */
export async function withTransaction<T>(ctx: ServiceContext, work: (ctx: ServiceContext) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return work(ctx);
  return ctx.db.transaction((tx) => work({ ...ctx, db: tx, inTransaction: true }));
}

/** Whole milliseconds, so stored values, JSON, ETags and cursors agree (DECISIONS). */
export function nowInMilliseconds(ctx: ServiceContext): Date {
  return new Date(Math.floor(ctx.clock.now().getTime()));
}
