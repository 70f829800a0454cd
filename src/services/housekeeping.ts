/**
 * Spaces out cleanup work that rides on requests (expired idempotency
 * records, ended rate-limit windows, old events): at most once per interval
 * per process and concern, instead of on every request that could do it.
 */
export class Housekeeping {
  private readonly last = new Map<string, number>();

  constructor(private readonly intervalMs = 60_000) {}

  /** True when `concern` has not been tidied within the interval (and marks it done now). */
  due(concern: string, now: number): boolean {
    const previous = this.last.get(concern);
    if (previous !== undefined && now - previous < this.intervalMs && now >= previous) return false;
    this.last.set(concern, now);
    return true;
  }

  /**
   * A sweep that removed a whole batch has more to do: `concern` is due again
   * at once, so the next request that could tidy it does. A sweep's batch
   * bounds the work one request takes on; this keeps the sweeping as fast as
   * the filling, whatever the load.
   */
  behind(concern: string): void {
    this.last.delete(concern);
  }

  /** Marks `concern` behind when a sweep removed `removed` rows of a batch of `batch`. */
  swept(concern: string, removed: number, batch: number): void {
    if (removed >= batch) this.behind(concern);
  }
}
