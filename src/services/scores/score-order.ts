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

/**
 * docs/spec/SPEC.md, "Rank": the score stored and the scores of its game that beat it
 * counted, in one statement (one per direction of the board). The count reads
 * the statement's snapshot, which does not hold the new row — and the new row
 * never beats itself — so it counts exactly the others that beat it.
 */
const INSERT_COUNTING_BEATERS = {
  higher: compiledStatement<{ count: number }>(() => insertCountingBeaters(sql`>`)),
  lower: compiledStatement<{ count: number }>(() => insertCountingBeaters(sql`<`)),
};

function insertCountingBeaters(better: SQL): SQL {
  const game = sql.placeholder('game');
  const value = sql.placeholder('value');
  const createdAt = sql`${sql.placeholder('createdAt')}::timestamptz`;
  return sql`with stored as (
      insert into ${scores} (id, game, initials, value, created_at)
      values (${sql.placeholder('id')}, ${game}, ${sql.placeholder('initials')}, ${value}, ${createdAt})
    )
    select count(*)::int as count from ${scores}
    where ${scores.game} = ${game}
      and (${scores.value} ${better} ${value} or (${scores.value} = ${value} and ${scores.createdAt} < ${createdAt}))`;
}

/** Stores a score submitted at `createdAt` (an ISO timestamp) and answers its rank on its game's board. */
export async function insertRanked(
  ctx: ServiceContext,
  score: { id: string; game: GameId; initials: string; value: number; createdAt: string },
): Promise<number> {
  const [row] = await INSERT_COUNTING_BEATERS[GAMES[score.game].better].run(ctx.db, score);
  return 1 + (row?.count ?? 0);
}
