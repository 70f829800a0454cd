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
}
