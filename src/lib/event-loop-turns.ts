/**
 * Lets waiters go on one per turn of the event loop: each from its own
 * `setImmediate`, scheduled only once the one before has been let go — so the
 * event loop polls for I/O between any two, however many wait. (Immediates
 * queued together would run back to back in one check phase.)
 */
export class EventLoopTurns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves in a turn of its own, after every earlier waiter's. */
  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()!();
      // Queued from inside the check phase: runs in the next turn, after the poll.
      this.schedule();
    });
  }
}
