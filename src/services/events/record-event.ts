import { sql } from 'drizzle-orm';
import { events } from '../../db/schema/index.ts';
import { ADVISORY_LOCKS, lockForTransaction } from '../retention.ts';
import { compiledStatement } from '../../db/compiled-statement.ts';
import { nowInMilliseconds, onCommit, type TransactionContext } from '../service-context.ts';
import { deliveriesOfEvent } from '../webhooks/deliveries.ts';
import type { StoredEvent } from './event-dispatcher.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

/** Events older than this are pruned (the log feeds live streams, not history). */
const EVENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const PRUNE_BATCH = 100;

/** The event and its webhook deliveries (the outbox), in one statement. */
const INSERT_EVENT = compiledStatement<{ id: string; deliveries: number }>(() => {
  const type = sql.placeholder('type');
  return sql`
    with event as (
      insert into ${events} (type, data, created_at)
      values (${type}, ${sql.placeholder('data')}::json, ${sql.placeholder('createdAt')}::timestamptz)
      returning id, created_at
    ), deliveries as (${deliveriesOfEvent(type, sql.placeholder('payload'))})
    select event.id::text as id, (select count(*) from deliveries)::int as deliveries from event`;
});

/** A batch of events past their retention. */
const PRUNE_EVENTS = compiledStatement<{ id: number }>(
  () => sql`
    delete from ${events} where ${events.id} in (
      select ${events.id} from ${events}
      where ${events.createdAt} < ${sql.placeholder('before')}::timestamptz
      limit ${PRUNE_BATCH}
    )
    returning ${events.id} as id`,
);

/**
 * Appends an event to the log with its webhook deliveries (the outbox), to be
 * dispatched once the transaction commits. Its statements are sent without
 * waiting for their answers (see withTransaction): what the transaction sends
 * next, and its COMMIT, follow them without a round trip.
 *
 * Readers follow the log by `id > last seen`, so ids must become visible in
 * increasing order. An identity value is drawn at insert time but becomes
 * visible at commit, so two writers could commit out of order and a reader
 * could step over the earlier id for ever. Holding a transaction-scoped lock
 * from the insert to the commit makes ids commit in order. Call this last in
 * the transaction, so the lock is held only for the commit.
 */
export function recordEvent({ ctx: tx, input }: { ctx: TransactionContext; input: { type: string; data: Record<string, unknown> } }): void {
  const now = nowInMilliseconds(tx);
  const payload = JSON.stringify({ type: input.type, timestamp: isoTimestampOf(now), data: input.data });
  // Sent together, as retainFirst's lock and trim: the insert draws its id only after the lock is granted.
  const inserted = Promise.all([
    lockForTransaction(tx, ADVISORY_LOCKS.events),
    INSERT_EVENT.run(tx.db, { type: input.type, data: JSON.stringify(input.data), createdAt: isoTimestampOf(now), payload }),
  ]);
  tx.beforeCommit(
    inserted.then(([, [row]]) => {
      const event: StoredEvent = { id: Number(row!.id), type: input.type, data: input.data, createdAt: now };
      if (row!.deliveries > 0) onCommit(tx, () => tx.dispatcher.eventStored(event));
    }),
  );
  if (tx.housekeeping.due('events', now.getTime())) {
    tx.beforeCommit(
      PRUNE_EVENTS.run(tx.db, { before: isoTimestampOf(new Date(now.getTime() - EVENT_RETENTION_MS)) }).then((pruned) =>
        tx.housekeeping.swept('events', pruned.length, PRUNE_BATCH),
      ),
    );
  }
}
