import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { scores } from '../../db/schema/index.ts';
import { SCORE_SUBMITTED } from '../../schemas/event-types.ts';
import { recordEvent } from '../events/record-event.ts';
import { ADVISORY_LOCKS, retainFirstBeforeCommit, retentionRule, type RetentionRule } from '../retention.ts';
import { nowInMilliseconds, withTransaction, type ServiceContext } from '../service-context.ts';
import { GAME_IDS, type GameId } from '../../schemas/games.ts';
import { boardOrder, insertRanked } from './score-order.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

/** SPEC "Retention": only the best 100 scores per game are kept. */
const SCORES_RETAINED = 100;

/** Each board's retention: its own order and lock. */
const BOARD_RETENTION = Object.fromEntries(
  GAME_IDS.map((game, index) => [
    game,
    retentionRule({ table: scores, id: scores.id, where: eq(scores.game, game), order: boardOrder(game), keep: SCORES_RETAINED, lockId: ADVISORY_LOCKS.scoresBase + index }),
  ]),
) as Record<GameId, RetentionRule>;

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
    const values = { id, game: input.game, initials: input.initials, value: input.value, createdAt: isoTimestampOf(createdAt) };
    const score: Score = { id, ...input, rank: await insertRanked(tx, values), createdAt: values.createdAt };
    retainFirstBeforeCommit(tx, BOARD_RETENTION[input.game]);
    recordEvent({ ctx: tx, input: { type: SCORE_SUBMITTED, data: { ...score } } });
    return score;
  });
}
