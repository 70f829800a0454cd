import { eq, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { webhookDeliveries, webhookSubscriptions } from '../../db/schema/index.ts';
import type { Caller } from '../auth/caller.ts';
import type { ServiceContext } from '../service-context.ts';
import { keyAlive } from './subscription-lifetime.ts';
import { DELIVERIES_KEPT, NEWEST_FIRST } from './delivery-order.ts';
import { getSubscription } from './subscriptions.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

export interface Delivery {
  id: string;
  eventId: number | null;
  type: string;
  status: 'pending' | 'delivered' | 'failed' | 'disabled';
  attempts: number;
  lastResponseStatus: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/**
 * The outbox: one pending delivery per active subscription, of a key still
 * alive, that wants this event type — as an INSERT … SELECT to run in the
 * statement that stores the event (it reads the new event from a CTE named
 * `event`), so an event is never stored without its deliveries and it costs
 * no extra round trip.
 */
export function deliveriesOfEvent(type: string | Placeholder, payload: string | Placeholder): SQL {
  return sql`insert into ${webhookDeliveries} (id, subscription_id, event_id, type, payload, status, attempts, next_attempt_at, created_at)
    select gen_random_uuid(), s.id, event.id, ${type}, ${payload}, 'pending', 0, event.created_at, event.created_at
    from event, ${webhookSubscriptions} s
    where s.status = 'active' and ${type} = any(s.events) and ${keyAlive(sql`s.owner_key_id`, sql`event.created_at`)}
    returning 1`;
}

/** The delivery log of one of the caller's subscriptions, newest first (the latest 100). */
export async function listDeliveries({ ctx, input }: { ctx: ServiceContext; input: { caller: Caller; id: string } }): Promise<Delivery[]> {
  const subscription = await getSubscription({ ctx, input });
  const rows = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.subscriptionId, subscription.id))
    .orderBy(...NEWEST_FIRST)
    .limit(DELIVERIES_KEPT);
  return rows.map((row) => ({
    id: row.id,
    eventId: row.eventId,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    lastResponseStatus: row.lastResponseStatus,
    nextAttemptAt: row.status === 'pending' && row.nextAttemptAt ? isoTimestampOf(row.nextAttemptAt) : null,
    createdAt: isoTimestampOf(row.createdAt),
  }));
}
