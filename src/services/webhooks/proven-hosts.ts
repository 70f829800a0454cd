/**
 * An answer within this (or half the send timeout, if that is shorter) is
 * quick. A second: what a proven receiver's delivery may wait for a place,
 * when proven receivers fill the window.
 */
export const PROVEN_WITHIN_MS = 1_000;
/** How long a host that answered an event quickly stays proven: its next sends are likely to be as quick. */
const PROVEN_FOR_MS = 10 * 60_000;
/** Hosts remembered at most (each claim names them): forgetting all of them once full keeps both bounded. */
const REMEMBERED = 1_000;

/**
 * Hosts whose last event delivery, on this instance, was answered within
 * PROVEN_WITHIN_MS, for ten minutes (or until a send to one is slow or
 * times out). Event deliveries to any other host — new, slow or forgotten —
 * are doubtful, and the worker lets them hold at most a third of its window
 * (verification requests another third): two sends per host bound one
 * receiver that holds its connections, and this bounds many, however fresh
 * — an attacker with twenty receivers that echo their challenge and then
 * hold every event cannot fill the window proven receivers' deliveries use.
 * A verification answer proves nothing: the attacker's receiver echoes too.
 */
export class ProvenHosts {
  private readonly until = new Map<string, number>();

  /** Whether `host` is proven now. */
  has(host: string, now: number): boolean {
    const until = this.until.get(host);
    if (until === undefined) return false;
    if (until > now) return true;
    this.until.delete(host);
    return false;
  }

  /** The hosts proven now. */
  all(now: number): string[] {
    return [...this.until.keys()].filter((host) => this.has(host, now));
  }

  /** What one send to `host` showed: an event answered quickly proves it; anything slow unproves it. */
  answered(host: string, sent: { quick: boolean; event: boolean }, now: number): void {
    if (!sent.quick) {
      this.until.delete(host);
      return;
    }
    if (!sent.event) return;
    if (this.until.size >= REMEMBERED && !this.until.has(host)) this.until.clear();
    this.until.set(host, now + PROVEN_FOR_MS);
  }
}
