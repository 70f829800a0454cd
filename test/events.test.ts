import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { describeOnPostgres } from './support/postgres-only.ts';
import { rowsOf } from './support/db-rows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { postScore, submitScore, type Score } from './support/scores-client.ts';
import { openSse } from './support/sse-reader.ts';
import { createTestDatabase } from './support/test-database.ts';
import { startTestServer, useTestServer } from './support/test-server.ts';

const clock = new ManualClock(Date.UTC(2026, 10, 1, 8, 0, 0));
const server = useTestServer({ clock });

const eventIds = async () => (await rowsOf<{ id: number }>(server, sql`select id::int as id from events order by id`)).map((row) => row.id);

describe('the event log', () => {
  it('gives events increasing ids and records none for a replay', async () => {
    const first = await postScore(server.url, { game: 'demo', initials: 'EVA', value: 1 }, { 'Idempotency-Key': 'event-log-1' });
    const second = await submitScore(server.url, { game: 'demo', initials: 'EVB', value: 2 });
    const replay = await postScore(server.url, { game: 'demo', initials: 'EVA', value: 1 }, { 'Idempotency-Key': 'event-log-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const events = await rowsOf<{ id: number; score: string }>(
      server,
      sql`select id::int as id, data->>'id' as score from events where data->>'id' in (${first.body.id}, ${second.id}) order by id`,
    );
    expect(events.map((event) => event.score)).toEqual([first.body.id, second.id]);
    expect(events[1]!.id).toBeGreaterThan(events[0]!.id);
  });

  it('prunes events older than 7 days as new ones arrive', async () => {
    await submitScore(server.url, { game: 'demo', initials: 'OLD', value: 2 });
    const old = await eventIds();
    clock.advance(7 * 24 * 3600 * 1000 + 1);
    await submitScore(server.url, { game: 'demo', initials: 'NEW', value: 3 });
    const remaining = await eventIds();
    expect(remaining).toHaveLength(1);
    expect(remaining[0]).toBeGreaterThan(Math.max(...old));
  });
});

describeOnPostgres('several instances', 'several instances share one database only on a PostgreSQL server', () => {
  it('a score accepted by one instance reaches a stream on another', async () => {
    const shared = await createTestDatabase();
    const writer = await startTestServer({ database: shared });
    const reader = await startTestServer({ database: shared, env: { SSE_POLL_MS: '50' } });
    const stream = await openSse(`${reader.url}/api/scores/stream?game=toppler`);
    try {
      await stream.next();
      const score = await submitScore(writer.url, { game: 'toppler', initials: 'XIN', value: 321 });
      const message = await stream.nextMatching((frame) => frame.event === 'board');
      expect((JSON.parse(message.data!) as { latest: Score }).latest).toEqual(score);
    } finally {
      stream.close();
      await writer.stop();
      await reader.stop();
      await shared.drop();
    }
  });
});
