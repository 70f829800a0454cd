import { POOL_TIMEOUT, WORK_OVERRUN } from '../errors/database-unavailable.ts';

interface Running {
  startedAt: number;
  /** Set until the work settles or is given up on. */
  giveUp: ((error: Error) => void) | undefined;
  settled: boolean;
}

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
 *
 * Admitted work is bounded too: a query or transaction that has not settled
 * within `maxRunMs` is answered as a failure (503) — a connection to a server
 * that died without closing it (a crashed primary behind a proxy), a login
 * a pooler holds — while its slot stays taken until the driver lets go of it.
 * Work is admitted in order and bounded alike, so here too one timer, armed
 * for the oldest, serves all.
 */
export class ConnectionGate {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  private expiry: NodeJS.Timeout | undefined;
  private readonly running: Running[] = [];
  private overrunTimer: NodeJS.Timeout | undefined;
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
    private readonly maxRunMs: number,
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

  /** Runs `work`, gives up on it after `maxRunMs`, and gives its slot back once it has settled, however it ends (a synchronous throw included). */
  private settle<T>(work: () => PromiseLike<T>): Promise<T> {
    let pending: PromiseLike<T>;
    try {
      pending = work();
    } catch (error) {
      this.release();
      return Promise.reject(error as Error);
    }
    const running: Running = { startedAt: performance.now(), giveUp: undefined, settled: false };
    this.running.push(running);
    this.overrunTimer ??= setTimeout(this.overrun, this.maxRunMs).unref();
    return new Promise<T>((resolve, reject) => {
      running.giveUp = reject;
      Promise.resolve(pending).then(
        (value) => {
          this.finished(running);
          resolve(value);
        },
        (error: unknown) => {
          this.finished(running);
          reject(error as Error);
        },
      );
    });
  }

  private finished(running: Running): void {
    running.settled = true;
    running.giveUp = undefined;
    while (this.running.length > 0 && this.running[0]!.settled) this.running.shift();
    this.release();
  }

  /** Gives up on the work that has run its time (its slot is given back when it settles), and waits for the next one's. */
  private readonly overrun = (): void => {
    this.overrunTimer = undefined;
    const now = performance.now();
    let index = 0;
    for (; index < this.running.length && now - this.running[index]!.startedAt >= this.maxRunMs; index++) {
      const running = this.running[index]!;
      const giveUp = running.giveUp;
      running.giveUp = undefined;
      giveUp?.(Object.assign(new Error(`The database did not answer within ${this.maxRunMs} ms`), { code: WORK_OVERRUN }));
    }
    // Given up on, they are no longer waited for here (their slots are given back when they settle): a work that never settles must not hold the list.
    this.running.splice(0, index);
    const next = this.running.find((running) => !running.settled);
    if (next) this.overrunTimer = setTimeout(this.overrun, Math.max(1, Math.ceil(next.startedAt + this.maxRunMs - now))).unref();
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
