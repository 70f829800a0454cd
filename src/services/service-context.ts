import type { Config } from '../config.ts';
import type { Database, Executor } from '../db/database.ts';
import { WORK_OVERRUN } from '../errors/database-unavailable.ts';
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
  /**
   * Set inside a transaction: takes statements already sent whose results the
   * work need not wait for. What the work sends next, and the COMMIT, follow
   * them pipelined, with no round trip in between (see withTransaction).
   * Already sent means handed to the driver before the work returns: a
   * compiled statement's `run` sends at the call; a Drizzle builder sends
   * only when awaited, and again at every `then`, so it cannot be given here.
   */
  beforeCommit?: (statements: Promise<unknown>) => void;
}

/** What a verb receives inside a transaction (see withTransaction). */
export type TransactionContext = Required<ServiceContext>;

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
 *
 * Statements handed to `beforeCommit` are not waited for: the COMMIT is sent
 * behind them as soon as the work returns, so the locks they take are held
 * for statements only, never while the answers travel back to us. When one
 * of them failed, the server turned that COMMIT into a rollback, and its
 * error is the transaction's, whatever failed after it. A check on what such
 * a statement answers must therefore be made by the statement itself.
 */
export async function withTransaction<T>(ctx: ServiceContext, work: (ctx: TransactionContext) => Promise<T>): Promise<T> {
  if (ctx.afterCommit) return work(ctx as TransactionContext);
  const committed: (() => void)[] = [];
  const inFlight: Promise<unknown>[] = [];
  let result: T;
  try {
    result = await ctx.db.transaction((tx) =>
      // Written out rather than spread (a spread of it took V8's slow path); `satisfies` keeps it complete.
      work({
        db: tx,
        clock: ctx.clock,
        settings: ctx.settings,
        dispatcher: ctx.dispatcher,
        housekeeping: ctx.housekeeping,
        observer: ctx.observer,
        afterCommit: (next: () => void) => committed.push(next),
        beforeCommit: (statements: Promise<unknown>) => {
          // Awaited below; until then a failure must not count as unhandled.
          statements.catch(ignore);
          inFlight.push(statements);
        },
      } satisfies TransactionContext),
    );
  } catch (error) {
    // Given up on: its statements may never answer (a connection that died without closing), so none is waited for.
    if ((error as { code?: unknown }).code === WORK_OVERRUN) throw error;
    // A statement that failed aborts the transaction: every one sent after it fails with "current transaction is aborted".
    throw (await firstFailureOf(inFlight))?.reason ?? error;
  }
  const failure = inFlight.length > 0 ? await firstFailureOf(inFlight) : undefined;
  if (failure) throw failure.reason;
  for (const next of committed) next();
  return result;
}

async function firstFailureOf(statements: Promise<unknown>[]): Promise<PromiseRejectedResult | undefined> {
  return (await Promise.allSettled(statements)).find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
}

function ignore(): void {}

/** Runs `work` once the current transaction commits (at once outside a transaction). */
export function onCommit(ctx: ServiceContext, work: () => void): void {
  if (ctx.afterCommit) ctx.afterCommit(work);
  else work();
}

/** Whole milliseconds, so stored values, JSON, ETags and cursors agree (docs/spec/DECISIONS.md). */
export function nowInMilliseconds(ctx: ServiceContext): Date {
  return new Date(Math.floor(ctx.clock.now().getTime()));
}
