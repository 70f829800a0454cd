import { randomUUID } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import { scores } from '../../db/schema/index.ts';
import { SCORE_SUBMITTED } from '../../schemas/event-types.ts';
import { recordEvent } from '../events/record-event.ts';
import { ADVISORY_LOCKS, retainFirst } from '../retention.ts';
import { nowInMilliseconds, withTransaction, type ServiceContext } from '../service-context.ts';
import { GAME_IDS, type GameId } from '../../schemas/games.ts';
import { beats, boardOrder } from './score-order.ts';

/** SPEC "Retention": only the best 100 scores per game are kept. */
const SCORES_RETAINED = 100;

export interface Score {
  id: string;
  game: GameId;
  initials: string;
  value: number;
  rank: number;
  createdAt: string;
}

/**
 * Stores a score, ranks it, trims its board to the best 100 and records
 * `score.submitted` — all in one transaction (SPEC POST /api/scores 2).
 */
export async function submitScore({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { game: GameId; initials: string; value: number };
}): Promise<Score> {
  const createdAt = nowInMilliseconds(ctx);
  return withTransaction(ctx, async (tx) => {
    const id = randomUUID();
    await tx.db.insert(scores).values({ id, ...input, createdAt });
    const [better] = await tx.db.select({ count: count() }).from(scores).where(beats(input.game, input.value, createdAt));
    const score: Score = { id, ...input, rank: 1 + (better?.count ?? 0), createdAt: createdAt.toISOString() };
    await retainFirst(tx, {
      table: scores,
      id: scores.id,
      where: eq(scores.game, input.game),
      order: boardOrder(input.game),
      keep: SCORES_RETAINED,
      lockId: ADVISORY_LOCKS.scoresBase + GAME_IDS.indexOf(input.game),
    });
    await recordEvent({ ctx: tx, input: { type: SCORE_SUBMITTED, data: { ...score } } });
    return score;
  });
}
