import { sql, type SQL } from 'drizzle-orm';
import { compiledStatement } from '../../db/compiled-statement.ts';
import { scores } from '../../db/schema/index.ts';
import { GAMES, type GameId } from '../../schemas/games.ts';
import type { ServiceContext } from '../service-context.ts';

type Better = (typeof GAMES)[GameId]['better'];

interface BoardKey {
  column: SQL;
  /** Which values come first on the board. */
  first: Better;
}

/**
 * The board's order, best first, in one place: the value in the game's
 * direction, ties to the earlier createdAt (docs/spec/SPEC.md, "Rank" and
 * "Leaderboard"), then the id, so the order is total. The board is sorted by
 * it and a score's rank counts the scores before it in it, so a rank is
 * always the place the score takes on the board — also for two equal values
 * in one millisecond.
 */
function boardKeys(better: Better): BoardKey[] {
  return [
    { column: sql`${scores.value}`, first: better },
    { column: sql`${scores.createdAt}`, first: 'lower' },
    { column: sql`${scores.id}`, first: 'lower' },
  ];
}

/** Best first, as boardKeys orders. */
export function boardOrder(game: GameId): SQL {
  return sql.join(
    boardKeys(GAMES[game].better).map(({ column, first }) => sql`${column} ${first === 'higher' ? sql`desc` : sql`asc`}`),
    sql`, `,
  );
}

/** A stored score comes before the one with these key values (in boardKeys' order): the first key that differs decides. */
function comesBefore(keys: BoardKey[], values: SQL[]): SQL {
  const [{ column, first }, ...laterKeys] = keys as [BoardKey, ...BoardKey[]];
  const [value, ...laterValues] = values as [SQL, ...SQL[]];
  const beats = sql`${column} ${first === 'higher' ? sql`>` : sql`<`} ${value}`;
  return laterKeys.length === 0 ? beats : sql`(${beats} or (${column} = ${value} and ${comesBefore(laterKeys, laterValues)}))`;
}

/**
 * docs/spec/SPEC.md, "Rank": the score stored and the scores of its game
 * before it on the board counted, in one statement (one per direction of the
 * board). The count reads the statement's snapshot, which does not hold the
 * new row — and the new row never comes before itself — so it counts exactly
 * the others.
 */
const INSERT_COUNTING_BEATERS = {
  higher: compiledStatement<{ count: number }>(() => insertCountingBeaters('higher')),
  lower: compiledStatement<{ count: number }>(() => insertCountingBeaters('lower')),
};

function insertCountingBeaters(better: Better): SQL {
  const game = sql.placeholder('game');
  const id = sql`${sql.placeholder('id')}::uuid`;
  const value = sql`${sql.placeholder('value')}::int`;
  const createdAt = sql`${sql.placeholder('createdAt')}::timestamptz`;
  return sql`with stored as (
      insert into ${scores} (id, game, initials, value, created_at)
      values (${id}, ${game}, ${sql.placeholder('initials')}, ${value}, ${createdAt})
    )
    select count(*)::int as count from ${scores}
    where ${scores.game} = ${game}
      and ${comesBefore(boardKeys(better), [value, createdAt, id])}`;
}

/** Stores a score submitted at `createdAt` (an ISO timestamp) and answers its rank on its game's board. */
export async function insertRanked(
  ctx: ServiceContext,
  score: { id: string; game: GameId; initials: string; value: number; createdAt: string },
): Promise<number> {
  const [row] = await INSERT_COUNTING_BEATERS[GAMES[score.game].better].run(ctx.db, score);
  return 1 + (row?.count ?? 0);
}
