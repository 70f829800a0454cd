/** A wait that can be started again (`refresh`, also after it has run) or dropped (`cancel`). */
export interface Timer {
  refresh(): void;
  cancel(): void;
}

/**
 * The time source and the timers that follow it, injected so tests can move
 * time by hand instead of sleeping: expiry and windows read `now()`; the
 * stream's keep-alive and end, the event poller and the webhook worker wait
 * with `after()`.
 */
export interface Clock {
  now(): Date;
  /** Runs `work` once, `ms` from now by this clock. */
  after(ms: number, work: () => void): Timer;
}

export const systemClock: Clock = {
  now: () => new Date(),
  after(ms, work) {
    const timer = setTimeout(work, ms);
    return { refresh: () => void timer.refresh(), cancel: () => clearTimeout(timer) };
  },
};
