import { POOL_TIMEOUT } from '../errors/database-unavailable.ts';

interface Waiter {
  admit: () => void;
  refuse: (error: Error) => void;
  queuedAt: number;
}

/**
 * A bounded queue in front of the connection pool. postgres.js queues a query
 * for a free connection without limit, so when every connection is stuck (a
 * locked table, a server that stopped answering) requests pile up for as long
 * as the stall lasts. Here a query (or a whole transaction) takes one of
 * `connections × depth` places — a busy connection holds up to `depth`
 * statements, pipelined — and may wait at most `maxWaitMs` for one; after
 * that it fails with POOL_TIMEOUT, which the service answers as 503
 * unavailable. Waiters are admitted first come, first served, so the longest
 * waiter is always first: one timer, armed for it, serves the whole queue (a
 * timer per waiter was a tenth of a loaded read's CPU).
 */
export class ConnectionGate {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  private expiry: NodeJS.Timeout | undefined;
  /** Told how long a query waited, when it had to (the metrics' queue waits). */
  onWaited: ((ms: number) => void) | undefined;

  /** Connections running a statement or a transaction: postgres.js pipelines only once every connection is busy. */
  get connectionsInUse(): number {
    return Math.min(this.active, this.connections);
  }

  get queued(): number {
    return this.waiting.length;
  }

  private readonly slots: number;

  constructor(
    private readonly connections: number,
    depth: number,
    private readonly maxWaitMs: number,
  ) {
    this.slots = connections * depth;
  }

  run<T>(work: () => PromiseLike<T>): Promise<T> {
    // A free slot (the usual case) is taken at once, without a turn of the event loop.
    if (this.active < this.slots) {
      this.active++;
      return this.settle(work);
    }
    return new Promise<void>((admit, refuse) => {
      this.waiting.push({ admit, refuse, queuedAt: performance.now() });
      this.expiry ??= setTimeout(this.expire, this.maxWaitMs).unref();
    }).then(() => this.settle(work));
  }

  /** Runs `work` and gives its slot back once it has settled, however it ends (a synchronous throw included). */
  private settle<T>(work: () => PromiseLike<T>): Promise<T> {
    let pending: PromiseLike<T>;
    try {
      pending = work();
    } catch (error) {
      this.release();
      return Promise.reject(error as Error);
    }
    return Promise.resolve(pending).then(this.releaseWith as (value: T) => T, this.releaseRethrowing);
  }

  // Made once: a slot given back passes the outcome on unchanged.
  private readonly releaseWith = (value: unknown): unknown => {
    this.release();
    return value;
  };

  private readonly releaseRethrowing = (error: unknown): never => {
    this.release();
    throw error;
  };

  private release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.active--;
      return;
    }
    // The slot passes straight to the next waiter.
    this.onWaited?.(performance.now() - next.queuedAt);
    next.admit();
  }

  /** Refuses the waiters that have waited their time, and waits for the next one's. */
  private readonly expire = (): void => {
    this.expiry = undefined;
    const now = performance.now();
    while (this.waiting.length > 0 && now - this.waiting[0]!.queuedAt >= this.maxWaitMs) {
      const error = Object.assign(new Error(`No database connection came free within ${this.maxWaitMs} ms`), { code: POOL_TIMEOUT });
      this.waiting.shift()!.refuse(error);
    }
    const next = this.waiting[0];
    if (next) this.expiry = setTimeout(this.expire, Math.max(1, Math.ceil(next.queuedAt + this.maxWaitMs - now))).unref();
  };
}
