import type { Config } from '../config.ts';
import type { Database, Executor } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import type { EventDispatcher } from './events/event-dispatcher.ts';
import { Housekeeping } from './housekeeping.ts';
import type { ServiceObserver } from './service-observer.ts';

/** The deployment settings services act on. */
export type ServiceSettings = Pick<Config, 'baseUrl' | 'jwtSecret' | 'rateLimits' | 'webhooks' | 'idempotency'>;

/** What every service verb receives as `ctx`. */
export interface ServiceContext {
  /** The database, or the transaction this verb runs inside. */
  db: Executor;
  clock: Clock;
  settings: ServiceSettings;
  dispatcher: EventDispatcher;
  /** Paces the cleanups that ride on requests. */
  housekeeping: Housekeeping;
  /** Told of what the metrics count. */
  observer: ServiceObserver;
  /** Set inside a transaction: work to run once it has committed. */
  afterCommit?: (work: () => void) => void;
}

export function createServiceContext(
  db: Database,
  dependencies: { clock: Clock; settings: ServiceSettings; dispatcher: EventDispatcher; observer: ServiceObserver },
): ServiceContext {
  return { db, housekeeping: new Housekeeping(), ...dependencies };
}

/**
 * Runs `work` in a transaction, reusing one already open in `ctx`. PGlite has
 * a single connection: code inside must use the `ctx` it is given, never an
 * outer handle, or it waits on itself. Work registered with `onCommit` runs
 * after the outermost transaction commits, and not at all if it rolls back.
 */
export async function withTransaction<T>(ctx: ServiceContext, work: (ctx: ServiceContext) => Promise<T>): Promise<T> {
  if (ctx.afterCommit) return work(ctx);
  const committed: (() => void)[] = [];
  const result = await ctx.db.transaction((tx) =>
    // Written out rather than spread (a spread of it took V8's slow path); `satisfies` keeps it complete.
    work({
      db: tx,
      clock: ctx.clock,
      settings: ctx.settings,
      dispatcher: ctx.dispatcher,
      housekeeping: ctx.housekeeping,
      observer: ctx.observer,
      afterCommit: (next: () => void) => committed.push(next),
    } satisfies Required<ServiceContext>),
  );
  for (const next of committed) next();
  return result;
}

/** Runs `work` once the current transaction commits (at once outside a transaction). */
export function onCommit(ctx: ServiceContext, work: () => void): void {
  if (ctx.afterCommit) ctx.afterCommit(work);
  else work();
}

/** Whole milliseconds, so stored values, JSON, ETags and cursors agree (DECISIONS). */
export function nowInMilliseconds(ctx: ServiceContext): Date {
  return new Date(Math.floor(ctx.clock.now().getTime()));
}
