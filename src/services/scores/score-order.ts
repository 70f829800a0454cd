import { sql, type SQL } from 'drizzle-orm';
import { compiledStatement } from '../../db/compiled-statement.ts';
import { scores } from '../../db/schema/index.ts';
import { GAMES, type GameId } from '../../schemas/games.ts';
import type { ServiceContext } from '../service-context.ts';

/** Best first; ties go to the earlier createdAt, then the id, so the order is total. */
export function boardOrder(game: GameId): SQL {
  const direction = GAMES[game].better === 'higher' ? sql`desc` : sql`asc`;
  return sql`${scores.value} ${direction}, ${scores.createdAt} asc, ${scores.id} asc`;
}

/** SPEC "Rank": the scores of the game that beat a value submitted at a time — one statement per direction of the board. */
const SCORES_BEATING = {
  higher: compiledStatement<{ count: number }>(() => beatingQuery(sql`>`)),
  lower: compiledStatement<{ count: number }>(() => beatingQuery(sql`<`)),
};

function beatingQuery(better: SQL): SQL {
  const value = sql.placeholder('value');
  return sql`select count(*)::int as count from ${scores}
    where ${scores.game} = ${sql.placeholder('game')}
      and (${scores.value} ${better} ${value} or (${scores.value} = ${value} and ${scores.createdAt} < ${sql.placeholder('createdAt')}::timestamptz))`;
}

/** How many scores of `game` beat `value` submitted at `createdAt` (an ISO timestamp). */
export async function countBeating(ctx: ServiceContext, score: { game: GameId; value: number; createdAt: string }): Promise<number> {
  const [row] = await SCORES_BEATING[GAMES[score.game].better].run(ctx.db, score);
  return row?.count ?? 0;
}
