import { and, eq, gt, lt, or, sql, type SQL } from 'drizzle-orm';
import { scores } from '../../db/schema/index.ts';
import { GAMES, type GameId } from '../../schemas/games.ts';

/** Best first; ties go to the earlier createdAt, then the id, so the order is total. */
export function boardOrder(game: GameId): SQL {
  const direction = GAMES[game].better === 'higher' ? sql`desc` : sql`asc`;
  return sql`${scores.value} ${direction}, ${scores.createdAt} asc, ${scores.id} asc`;
}

/** SPEC "Rank": the scores of the game that beat `value` at `createdAt`. */
export function beats(game: GameId, value: number, createdAt: Date): SQL {
  const better = GAMES[game].better === 'higher' ? gt(scores.value, value) : lt(scores.value, value);
  return and(eq(scores.game, game), or(better, and(eq(scores.value, value), lt(scores.createdAt, createdAt))))!;
}
