import { sql } from 'drizzle-orm';
import { events } from '../../db/schema/index.ts';
import { ADVISORY_LOCKS } from '../retention.ts';
import { nowInMilliseconds, onCommit, withTransaction, type ServiceContext } from '../service-context.ts';
import { rowsOf } from '../../db/rows.ts';
import { deliveriesOfEvent } from '../webhooks/deliveries.ts';
import type { StoredEvent } from './event-dispatcher.ts';

/** Events older than this are pruned (the log feeds live streams, not history). */
const EVENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const PRUNE_BATCH = 100;

/**
 * Appends an event to the log with its webhook deliveries (the outbox), to be
 * dispatched once the transaction commits.
 *
 * Readers follow the log by `id > last seen`, so ids must become visible in
 * increasing order. An identity value is drawn at insert time but becomes
 * visible at commit, so two writers could commit out of order and a reader
 * could step over the earlier id for ever. Holding a transaction-scoped lock
 * from the insert to the commit makes ids commit in order. Call this last in
 * the transaction, so the lock is held only for the commit.
 */
export async function recordEvent({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { type: string; data: Record<string, unknown> };
}): Promise<StoredEvent> {
  return withTransaction(ctx, async (tx) => {
    const now = nowInMilliseconds(tx);
    await tx.db.execute(sql`select pg_advisory_xact_lock(${ADVISORY_LOCKS.events})`);
    const payload = JSON.stringify({ type: input.type, timestamp: now.toISOString(), data: input.data });
    const result = await tx.db.execute(sql`
      with event as (
        insert into ${events} (type, data, created_at)
        values (${input.type}, ${JSON.stringify(input.data)}::json, ${now.toISOString()}::timestamptz)
        returning id, created_at
      ), deliveries as (${deliveriesOfEvent(input.type, payload)})
      select event.id::text as id, (select count(*) from deliveries)::int as deliveries from event`);
    const [row] = rowsOf<{ id: string; deliveries: number }>(result);
    if (tx.housekeeping.due('events', now.getTime())) {
      await tx.db.execute(sql`
        delete from ${events} where ${events.id} in (
          select ${events.id} from ${events}
          where ${events.createdAt} < ${new Date(now.getTime() - EVENT_RETENTION_MS).toISOString()}::timestamptz
          limit ${PRUNE_BATCH}
        )`);
    }
    const event: StoredEvent = { id: Number(row!.id), type: input.type, data: input.data, createdAt: now };
    if (row!.deliveries > 0) onCommit(tx, () => tx.dispatcher.eventStored(event));
    return event;
  });
}
