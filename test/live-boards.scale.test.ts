import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { FOLLOW, type Follower, type Transport } from './support/live-followers.ts';
import { submitScore, type Score } from './support/scores-client.ts';
import { createTestDatabase, postgresUrl, type TestDatabase } from './support/test-database.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';
import { TcpProxy } from './support/tcp-proxy.ts';

const SUBSCRIBERS: Record<Transport, number> = { rest: 334, trpc: 333, graphql: 333 };
const WINDOW_MS = 4000;
/** One score every 250 ms while a window lasts: the same load with one subscriber and with a thousand. */
const SCORE_EVERY_MS = 250;

let server: TestServer;
let database: TestDatabase;
/** On PostgreSQL, the service reaches it through this proxy, which counts its round trips. */
let proxy: TcpProxy | undefined;
let value = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  if (postgresUrl) {
    const target = new URL(database.env['DATABASE_URL']!);
    proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.start();
    target.port = String(proxy.port);
    database = { ...database, env: { DATABASE_URL: target.toString() } };
  }
  server = await startTestServer({
    database,
    env: {
      SSE_POLL_MS: '100',
      SSE_KEEPALIVE_MS: '600000',
      SSE_STREAM_MS: '600000',
      SSE_MAX_STREAMS_PER_CLIENT: '2000',
      RATE_LIMIT_GRAPHQL_ANON: '1000000',
    },
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await proxy?.stop();
  await database?.drop();
});

/**
 * What the database has been asked so far, read where it cannot lag: on
 * PostgreSQL the service's round trips to it (counted by the proxy), on the
 * embedded database its reads of our tables (scans by index or in full),
 * its statistics flushed first: it has one backend, ours.
 */
async function databaseWork(): Promise<number> {
  if (proxy) return proxy.clientTurns;
  await rowsOf(server, sql`select pg_stat_force_next_flush()`);
  const [row] = await rowsOf<{ n: number }>(server, sql`select sum(seq_scan + coalesce(idx_scan, 0))::int as n from pg_stat_user_tables`);
  return row!.n;
}

/** The database's work per second while scores arrive at a steady pace for one window; resolves with the last score too. */
async function workPerSecondUnderLoad(): Promise<{ perSecond: number; last: Score }> {
  const before = await databaseWork();
  const started = performance.now();
  let last: Score | undefined;
  let submitted = 0;
  while (performance.now() - started < WINDOW_MS) {
    const next = started + ++submitted * SCORE_EVERY_MS;
    last = await submitScore(server.url, { game: 'demo', initials: 'SCL', value: ++value });
    // Pacing, not waiting for an event: the load is a score every 250 ms, whatever else is going on.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: ((await databaseWork()) - before) / seconds, last: last! };
}

describe('a thousand subscribers across the three transports', () => {
  it('cost the database no more statements per second than one', async () => {
    // Scores of its own first: a board to follow.
    await submitScore(server.url, { game: 'demo', initials: 'SCL', value: ++value });
    const one = FOLLOW.rest(server.url, { game: 'demo' });
    const followers: Follower[] = [one];
    try {
      await one.waitFor(() => true);
      const alone = await workPerSecondUnderLoad();
      await one.waitFor((received) => received.board.latest?.id === alone.last.id);

      for (const [transport, count] of Object.entries(SUBSCRIBERS) as [Transport, number][]) {
        for (let opened = 0; opened < count; opened += 50) {
          const batch = Array.from({ length: Math.min(50, count - opened) }, () => FOLLOW[transport](server.url, { game: 'demo' }));
          followers.push(...batch);
          await Promise.all(batch.map((follower) => follower.waitFor(() => true, { timeoutMs: 60_000 })));
        }
      }
      expect(server.app.openStreams.count).toBe(1001);
      expect(server.app.poller.listenerCount).toBe(1001);

      const crowded = await workPerSecondUnderLoad();
      // Every one of them is live: each gets the board the last score moved.
      await Promise.all(followers.map((follower) => follower.waitFor((received) => received.board.entries.some((entry) => entry.id === crowded.last.id), { timeoutMs: 30_000 })));
      expect(followers.flatMap((follower) => follower.errors)).toEqual([]);
      // A read per subscriber and score would be ten to twenty times the work (without the shared
      // board read: 44 → 729 a second); half as much again allows for timing and pipelining.
      expect(crowded.perSecond).toBeLessThan(alone.perSecond * 1.5 + 5);
    } finally {
      for (const follower of followers) follower.close();
    }
  }, 240_000);
});
