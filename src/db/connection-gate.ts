import { POOL_TIMEOUT } from '../errors/database-unavailable.ts';

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

/**
 * A bounded queue in front of the connection pool. postgres.js queues a query
 * for a free connection without limit, so when every connection is stuck (a
 * locked table, a server that stopped answering) requests pile up for as long
 * as the stall lasts. Here a query may wait at most `maxWaitMs` for one of the
 * `slots`; after that it fails with POOL_TIMEOUT, which the service answers as
 * 503 unavailable. Waiters are admitted first come, first served.
 */
export class ConnectionGate {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  /** Told how long a query waited, when it had to (the metrics' queue waits). */
  onWaited: ((ms: number) => void) | undefined;

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  constructor(
    private readonly slots: number,
    private readonly maxWaitMs: number,
  ) {}

  run<T>(work: () => PromiseLike<T>): Promise<T> {
    const release = () => this.release();
    // A free slot (the usual case) is taken at once, without a turn of the event loop.
    if (this.active < this.slots) {
      this.active++;
      return settled(work, release);
    }
    const queuedAt = performance.now();
    return this.waitForSlot().then(() => {
      this.onWaited?.(performance.now() - queuedAt);
      return settled(work, release);
    });
  }

  private waitForSlot(): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(Object.assign(new Error(`No database connection came free within ${this.maxWaitMs} ms`), { code: POOL_TIMEOUT }));
        }, this.maxWaitMs),
      };
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.active--;
      return;
    }
    // The slot passes straight to the next waiter.
    clearTimeout(next.timer);
    next.admit();
  }
}

/** Runs `work` and calls `release` once it has settled, however it ends (a synchronous throw included). */
function settled<T>(work: () => PromiseLike<T>, release: () => void): Promise<T> {
  let pending: Promise<T>;
  try {
    pending = Promise.resolve(work());
  } catch (error) {
    release();
    return Promise.reject(error as Error);
  }
  return pending.finally(release);
}
