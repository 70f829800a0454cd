import type { Sql } from 'postgres';

/** Tries before concluding that the connection is a session of its own; one is usually enough. */
const ROUNDS = 3;

/**
 * Whether `client` reaches PostgreSQL through a pooler that multiplexes
 * transactions (PgBouncer in transaction mode, Supavisor, pgcat…), asked at
 * start-up of the server itself rather than of the operator: nothing in the
 * protocol names a pooler, and one that accepts every startup parameter
 * looks exactly like PostgreSQL until a named statement is missing.
 *
 * Through such a pooler a client connection holds a server session only for
 * a transaction. One connection asks for its session's process id; a second
 * then holds a transaction open, which a pooler serves from its free
 * sessions (PgBouncer: the one used last, which is the first's); the first
 * asks again. Directly, a connection's process id never changes.
 * `client` needs two connections.
 */
export async function multiplexesTransactions(client: Sql): Promise<boolean> {
  const asking = await client.reserve();
  const holding = await client.reserve();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const before = await backendOf(asking);
      await holding.unsafe('begin');
      try {
        await backendOf(holding);
        if ((await backendOf(asking)) !== before) return true;
      } finally {
        await holding.unsafe('rollback');
      }
    }
    return false;
  } finally {
    asking.release();
    holding.release();
  }
}

async function backendOf(connection: Sql): Promise<number> {
  const [row] = await connection.unsafe<{ pid: number }[]>('select pg_backend_pid() as pid');
  return row!.pid;
}
