import { asc, desc, gt } from 'drizzle-orm';
import { events } from '../../db/schema/index.ts';
import type { ServiceContext } from '../service-context.ts';
import type { StoredEvent } from './event-dispatcher.ts';

/** Events after `afterId`, oldest first, at most `limit`. */
export async function listEventsAfter({ ctx, input }: { ctx: ServiceContext; input: { afterId: number; limit: number } }): Promise<StoredEvent[]> {
  const rows = await ctx.db.select().from(events).where(gt(events.id, input.afterId)).orderBy(asc(events.id)).limit(input.limit);
  return rows.map((row) => ({ id: row.id, type: row.type, data: row.data as Record<string, unknown>, createdAt: row.createdAt }));
}

/** The id of the newest stored event, 0 when there is none. */
export async function latestEventId({ ctx }: { ctx: ServiceContext }): Promise<number> {
  const [row] = await ctx.db.select({ id: events.id }).from(events).orderBy(desc(events.id)).limit(1);
  return row?.id ?? 0;
}
