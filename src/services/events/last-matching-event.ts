import { and, desc, eq, gt, lte, sql } from 'drizzle-orm';
import { events } from '../../db/schema/index.ts';
import { SCORE_SUBMITTED } from '../../schemas/event-types.ts';
import type { ServiceContext } from '../service-context.ts';
import type { StoredEvent } from './event-dispatcher.ts';

/**
 * The newest `score.submitted` event of a game in the id range (after, upTo]:
 * all a stream needs to catch up over a gap of any size, in one query.
 */
export async function lastScoreEventInRange({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { game: string; after: number; upTo: number };
}): Promise<StoredEvent | undefined> {
  const [row] = await ctx.db
    .select()
    .from(events)
    .where(
      and(
        gt(events.id, input.after),
        lte(events.id, input.upTo),
        eq(events.type, SCORE_SUBMITTED),
        eq(sql`${events.data}->>'game'`, input.game),
      ),
    )
    .orderBy(desc(events.id))
    .limit(1);
  return row ? { id: row.id, type: row.type, data: row.data as Record<string, unknown>, createdAt: row.createdAt } : undefined;
}
