import { systemClock, type Clock, type Timer } from '../../src/lib/clock.ts';

interface Pending {
  due: number;
  work: () => void;
  armed: boolean;
}

/**
 * A clock the test moves by hand, so windows, expiry and tokens need no
 * sleeping. Its timers (the stream's keep-alive and end, the event poller,
 * the webhook worker) run on real time unless `timers: 'manual'`: then they
 * run only when `advance` passes their time, in order of their time.
 */
export class ManualClock implements Clock {
  private current: number;
  private readonly manualTimers: boolean;
  private readonly pending = new Set<Pending>();

  constructor(start: Date | number, options: { timers?: 'real' | 'manual' } = {}) {
    this.current = typeof start === 'number' ? start : start.getTime();
    this.manualTimers = options.timers === 'manual';
  }

  now(): Date {
    return new Date(this.current);
  }

  after(ms: number, work: () => void): Timer {
    if (!this.manualTimers) return systemClock.after(ms, work);
    const entry: Pending = { due: this.current + ms, work, armed: true };
    this.pending.add(entry);
    return {
      refresh: () => {
        entry.due = this.current + ms;
        entry.armed = true;
        this.pending.add(entry);
      },
      cancel: () => {
        entry.armed = false;
        this.pending.delete(entry);
      },
    };
  }

  /** Moves time on by `milliseconds`, running every timer that falls due on the way, each at its own time. */
  advance(milliseconds: number): void {
    const target = this.current + milliseconds;
    for (let next = this.nextDue(target); next; next = this.nextDue(target)) {
      this.current = Math.max(this.current, next.due);
      next.armed = false;
      this.pending.delete(next);
      next.work();
    }
    this.current = target;
  }

  set(time: Date | number): void {
    this.current = typeof time === 'number' ? time : time.getTime();
  }

  /** Timers still waiting, for a test to see that something is scheduled. */
  get pendingTimers(): number {
    return this.pending.size;
  }

  private nextDue(limit: number): Pending | undefined {
    let first: Pending | undefined;
    for (const entry of this.pending) if (entry.armed && entry.due <= limit && (!first || entry.due < first.due)) first = entry;
    return first;
  }
}
