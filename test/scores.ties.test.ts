import { describe, expect, it } from 'vitest';
import { request } from './support/http.ts';
import { ManualClock } from './support/manual-clock.ts';
import { submitScore, type Leaderboard } from './support/scores-client.ts';
import { useTestServer } from './support/test-server.ts';

/** A clock that never moves: every score lands in the same millisecond. */
const server = useTestServer({ clock: new ManualClock(Date.UTC(2026, 10, 26, 9, 0, 0)) });

/** Equal scores submitted one after another: each new one's place among the others is its id's, as random as the id. */
const EQUAL_SCORES = 6;

describe('equal scores in one millisecond', () => {
  it.each([
    ['a higher-is-better game', 'stacker'],
    ['a lower-is-better game', 'marble'],
  ])('each answers the rank it takes on the board at that moment, in %s', async (_, game) => {
    const answered: { rank: number; place: number }[] = [];
    for (let submitted = 0; submitted < EQUAL_SCORES; submitted++) {
      const score = await submitScore(server.url, { game, initials: 'TIE', value: 40 });
      const board = await request<Leaderboard>(`${server.url}/api/scores?game=${game}`);
      expect(board.body.entries).toHaveLength(submitted + 1);
      expect(new Set(board.body.entries.map((entry) => entry.createdAt))).toEqual(new Set([score.createdAt]));
      answered.push({ rank: score.rank, place: board.body.entries.find((entry) => entry.id === score.id)!.rank });
    }
    // Without the id as the last key of the rank, every one of them answered 1 wherever the board put it.
    expect(answered.map(({ rank }) => rank)).toEqual(answered.map(({ place }) => place));
  });
});
