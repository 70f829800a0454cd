import { describe, expect, it } from 'vitest';
import { request } from './support/http.ts';
import { ManualClock } from './support/manual-clock.ts';
import { submitScore, type Leaderboard } from './support/scores-client.ts';
import { useTestServer } from './support/test-server.ts';

/** A clock that never moves: every score lands in the same millisecond. */
const server = useTestServer({ clock: new ManualClock(Date.UTC(2026, 10, 26, 9, 0, 0)) });

describe('equal scores in one millisecond', () => {
  it.each([
    ['a higher-is-better game', 'stacker'],
    ['a lower-is-better game', 'marble'],
  ])('rank as they stand on the board, in %s', async (_, game) => {
    const first = await submitScore(server.url, { game, initials: 'AAA', value: 40 });
    const second = await submitScore(server.url, { game, initials: 'BBB', value: 40 });
    expect(second.createdAt).toBe(first.createdAt);
    const board = await request<Leaderboard>(`${server.url}/api/scores?game=${game}`);
    const placeOf = (id: string) => board.body.entries.find((entry) => entry.id === id)!.rank;
    expect([first.rank, second.rank].sort()).toEqual([1, 2]);
    expect(first.rank).toBe(placeOf(first.id));
    expect(second.rank).toBe(placeOf(second.id));
  });
});
