import type { Clock } from '../../src/lib/clock.ts';

/** A clock the test moves by hand, so windows, expiry and tokens need no sleeping. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | number) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(milliseconds: number): void {
    this.current += milliseconds;
  }

  set(time: Date | number): void {
    this.current = typeof time === 'number' ? time : time.getTime();
  }
}
