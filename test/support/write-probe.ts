import postgres from 'postgres';

const PROBE_EVERY_MS = 50;

export interface WriteProbe {
  /** The moment the first write this node accepted was sent (ms since the epoch). */
  accepted: Promise<number>;
  stop(): Promise<void>;
}

/**
 * Tries a write on one PostgreSQL node directly (not through HAProxy) every
 * 50 ms until the node takes one: on a standby each attempt fails (read-only),
 * so the first success is the moment that node became a primary that accepts
 * writes. `table` must exist (it is replicated to the standby beforehand).
 */
export function probeFirstAcceptedWrite(url: string, table: string, deadlineMs: number): WriteProbe {
  const sql = postgres(url, { max: 1, connect_timeout: 1, onnotice: () => {} });
  let stopped = false;
  const accepted = (async () => {
    const deadline = Date.now() + deadlineMs;
    while (!stopped) {
      const sentAt = Date.now();
      try {
        await sql`insert into ${sql(table)} default values`;
        return sentAt;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`${url} accepted no write within ${deadlineMs} ms (last: ${String(error)})`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, sentAt + PROBE_EVERY_MS - Date.now())));
    }
    throw new Error('probe stopped before the node accepted a write');
  })();
  // Whoever awaits `accepted` sees a failure; stop() must not.
  accepted.catch(() => {});
  return {
    accepted,
    stop: async () => {
      stopped = true;
      await sql.end({ timeout: 1 });
    },
  };
}
