/** How long a host that answered slowly stays slow: its next sends are likely to be as slow. */
const SLOW_FOR_MS = 10 * 60_000;
/** Hosts remembered at most; forgetting all of them once full keeps the memory bounded. */
const REMEMBERED = 10_000;

/**
 * Hosts whose last send timed out or took at least half the send timeout,
 * on this instance, for ten minutes (or until one answers quickly). The
 * worker lets them, with the verification requests, hold at most half of its
 * sends in flight: two sends per host bound one slow host, and this bounds
 * many — an attacker with twenty receivers that hold their connections
 * cannot fill the window everyone else's deliveries wait for.
 */
export class SlowHosts {
  private readonly until = new Map<string, number>();

  /** Whether `host` is slow now. */
  has(host: string, now: number): boolean {
    const until = this.until.get(host);
    if (until === undefined) return false;
    if (until > now) return true;
    this.until.delete(host);
    return false;
  }

  /** The hosts slow now. */
  all(now: number): string[] {
    return [...this.until.keys()].filter((host) => this.has(host, now));
  }

  /** What one send to `host` showed. */
  answered(host: string, slow: boolean, now: number): void {
    if (!slow) {
      this.until.delete(host);
      return;
    }
    if (this.until.size >= REMEMBERED) this.until.clear();
    this.until.set(host, now + SLOW_FOR_MS);
  }
}
