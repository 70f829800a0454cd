import { eq } from 'drizzle-orm';
import { scores } from '../../db/schema/index.ts';
import type { ServiceContext } from '../service-context.ts';
import { GAMES, type GameId } from '../../schemas/games.ts';
import { boardOrder } from './score-order.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

export interface Leaderboard {
  game: GameId;
  name: string;
  unit: string;
  better: 'higher' | 'lower';
  entries: { rank: number; id: string; initials: string; value: number; createdAt: string }[];
}

/** The best `limit` scores of a game, best first; rank is the position in the list. */
export async function getLeaderboard({ ctx, input }: { ctx: ServiceContext; input: { game: GameId; limit: number } }): Promise<Leaderboard> {
  const rows = await ctx.db
    .select()
    .from(scores)
    .where(eq(scores.game, input.game))
    .orderBy(boardOrder(input.game))
    .limit(input.limit);
  const game = GAMES[input.game];
  return {
    game: input.game,
    name: game.name,
    unit: game.unit,
    better: game.better,
    entries: rows.map((row, index) => ({
      rank: index + 1,
      id: row.id,
      initials: row.initials,
      value: row.value,
      createdAt: isoTimestampOf(row.createdAt),
    })),
  };
}
