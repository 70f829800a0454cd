import { sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { request } from './support/http.ts';
import { ManualClock } from './support/manual-clock.ts';
import { postScore, submitScore, type Leaderboard } from './support/scores-client.ts';
import { useTestServer } from './support/test-server.ts';

const clock = new ManualClock(Date.UTC(2026, 10, 23, 9, 0, 0));
const server = useTestServer({ clock });

/** Each score a millisecond after the last, so "earlier createdAt" is well defined. */
async function later<T>(work: () => Promise<T>): Promise<T> {
  clock.advance(1);
  return work();
}

// The games are a fixed five, so the tests of this file share their boards:
// each starts from empty ones and submits every score it reads back.
beforeEach(async () => {
  await rowsOf(server, sql`delete from scores`);
});

const board = (game: string, query = '') => request<Leaderboard>(`${server.url}/api/scores?game=${game}${query}`);

describe('POST /api/scores', () => {
  it('stores a score and answers 201 with the Score', async () => {
    const response = await later(() => postScore(server.url, { game: 'runner', initials: 'ACE', value: 4200 }));
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(Object.keys(response.body)).toEqual(['id', 'game', 'initials', 'value', 'rank', 'createdAt']);
    expect(response.body).toMatchObject({ game: 'runner', initials: 'ACE', value: 4200, rank: 1, createdAt: clock.now().toISOString() });
  });

  it('ranks a higher-is-better game: better values first, ties to the earlier score', async () => {
    const first = await later(() => submitScore(server.url, { game: 'toppler', initials: 'AAA', value: 500 }));
    const better = await later(() => submitScore(server.url, { game: 'toppler', initials: 'BBB', value: 900 }));
    const tie = await later(() => submitScore(server.url, { game: 'toppler', initials: 'CCC', value: 500 }));
    const worst = await later(() => submitScore(server.url, { game: 'toppler', initials: 'DDD', value: 0 }));
    expect([first.rank, better.rank, tie.rank, worst.rank]).toEqual([1, 1, 3, 4]);
    const read = await board('toppler');
    expect(read.body.entries.map((entry) => [entry.rank, entry.initials])).toEqual([
      [1, 'BBB'],
      [2, 'AAA'],
      [3, 'CCC'],
      [4, 'DDD'],
    ]);
  });

  it('ranks a lower-is-better game: smaller times first', async () => {
    const slow = await later(() => submitScore(server.url, { game: 'marble', initials: 'SLO', value: 90000 }));
    const fast = await later(() => submitScore(server.url, { game: 'marble', initials: 'FST', value: 30000 }));
    const middle = await later(() => submitScore(server.url, { game: 'marble', initials: 'MID', value: 60000 }));
    const tie = await later(() => submitScore(server.url, { game: 'marble', initials: 'TIE', value: 30000 }));
    expect([slow.rank, fast.rank, middle.rank, tie.rank]).toEqual([1, 1, 2, 2]);
    const read = await board('marble');
    expect(read.body).toMatchObject({ game: 'marble', name: 'Marble Maze', unit: 'ms', better: 'lower' });
    expect(read.body.entries.map((entry) => entry.initials)).toEqual(['FST', 'TIE', 'MID', 'SLO']);
  });

  it('accepts 0 and exactly each game\'s maximum', async () => {
    for (const [game, max] of [['toppler', 20000], ['marble', 3600000], ['stacker', 500], ['runner', 1000000], ['demo', 1000000]] as const) {
      expect((await postScore(server.url, { game, initials: 'MAX', value: max })).status).toBe(201);
    }
    expect((await postScore(server.url, { game: 'stacker', initials: 'NIL', value: 0 })).status).toBe(201);
  });

  it('records one score.submitted event whose data is the Score', async () => {
    const score = await later(() => submitScore(server.url, { game: 'demo', initials: 'EVT', value: 77 }));
    const events = await rowsOf<{ type: string; data: unknown }>(server, sql`select type, data from events where data->>'id' = ${score.id}`);
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('score.submitted');
    const data = typeof events[0]!.data === 'string' ? JSON.parse(events[0]!.data) : events[0]!.data;
    expect(data).toEqual(score);
    expect(Object.keys(data)).toEqual(['id', 'game', 'initials', 'value', 'rank', 'createdAt']);
  });

  it('keeps only the best 100 scores of the game, and leaves other games alone', async () => {
    const others = await rowsOf<{ n: number }>(server, sql`select count(*)::int as n from scores where game <> 'runner'`);
    const earlier = await rowsOf<{ value: number }>(server, sql`select value from scores where game = 'runner'`);
    const added = Array.from({ length: 105 }, (_, i) => 1000 + i);
    for (const value of added) await later(() => submitScore(server.url, { game: 'runner', initials: 'RUN', value }));
    const best100 = [...earlier.map((row) => row.value), ...added].sort((a, b) => b - a).slice(0, 100);
    const kept = await rowsOf<{ value: number }>(server, sql`select value from scores where game = 'runner' order by value desc`);
    expect(kept.map((row) => row.value)).toEqual(best100);
    const othersAfter = await rowsOf<{ n: number }>(server, sql`select count(*)::int as n from scores where game <> 'runner'`);
    expect(othersAfter[0]!.n).toBe(others[0]!.n);
  });
});

describe('GET /api/scores', () => {
  it('answers the Leaderboard of each game with its name, unit and direction', async () => {
    const games = {
      toppler: ['Tower Toppler', 'points', 'higher'],
      marble: ['Marble Maze', 'ms', 'lower'],
      stacker: ['Stacker', 'slabs', 'higher'],
      runner: ['Starfield Runner', 'points', 'higher'],
      demo: ['Lab demo', 'points', 'higher'],
    };
    for (const [game, [name, unit, better]] of Object.entries(games)) {
      const response = await board(game);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ game, name, unit, better });
    }
  });

  it('returns 10 entries by default and up to limit, with rank as the position', async () => {
    await Promise.all(Array.from({ length: 55 }, (_, i) => submitScore(server.url, { game: 'runner', initials: 'RUN', value: i + 1 })));
    const defaults = await board('runner');
    expect(defaults.body.entries).toHaveLength(10);
    const fifty = await board('runner', '&limit=50');
    expect(fifty.body.entries).toHaveLength(50);
    expect(fifty.body.entries.map((entry) => entry.rank)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const values = fifty.body.entries.map((entry) => entry.value);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    expect(Object.keys(fifty.body.entries[0]!)).toEqual(['rank', 'id', 'initials', 'value', 'createdAt']);
  });

  it('has an ETag and Cache-Control: no-cache, answers 304 while unchanged and 200 once a score changes it', async () => {
    const first = await board('stacker');
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const unchanged = await request(`${server.url}/api/scores?game=stacker`, { headers: { 'If-None-Match': `W/${tag}` } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    expect(unchanged.headers.get('etag')).toBe(tag);
    await later(() => submitScore(server.url, { game: 'stacker', initials: 'NEW', value: 499 }));
    const changed = await request(`${server.url}/api/scores?game=stacker`, { headers: { 'If-None-Match': tag } });
    expect(changed.status).toBe(200);
  });
});
