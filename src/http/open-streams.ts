/**
 * Every open event stream of the process, whichever transport serves it (the
 * REST stream, tRPC and GraphQL subscriptions): counted for the metrics, and
 * ended together at shutdown, since each would otherwise hold its connection
 * open for SSE_STREAM_MS.
 */
export class OpenStreams {
  private readonly closers = new Set<() => void>();

  /** Registers a stream by how to end it; returns how to forget it once it has ended. */
  add(close: () => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  closeAll(): void {
    for (const close of [...this.closers]) close();
  }

  get count(): number {
    return this.closers.size;
  }
}
