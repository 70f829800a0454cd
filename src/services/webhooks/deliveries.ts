import { randomUUID } from 'node:crypto';
import { and, arrayContains, desc, eq } from 'drizzle-orm';
import { webhookDeliveries, webhookSubscriptions } from '../../db/schema/index.ts';
import type { Caller } from '../auth/caller.ts';
import type { StoredEvent } from '../events/event-dispatcher.ts';
import type { ServiceContext } from '../service-context.ts';
import { getSubscription } from './subscriptions.ts';

export interface Delivery {
  id: string;
  eventId: number;
  type: string;
  status: 'pending' | 'delivered' | 'failed' | 'disabled';
  attempts: number;
  lastResponseStatus: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/**
 * The outbox: one pending delivery per active subscription that wants this
 * event type, written in the event's own transaction, so an event is never
 * stored without its deliveries and the first attempt can start right after.
 */
export async function enqueueDeliveries(ctx: ServiceContext, event: StoredEvent): Promise<number> {
  const subscribers = await ctx.db
    .select({ id: webhookSubscriptions.id })
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.status, 'active'), arrayContains(webhookSubscriptions.events, [event.type])));
  if (subscribers.length === 0) return 0;
  const payload = JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.data });
  await ctx.db.insert(webhookDeliveries).values(
    subscribers.map((subscriber) => ({
      id: randomUUID(),
      subscriptionId: subscriber.id,
      eventId: event.id,
      type: event.type,
      payload,
      status: 'pending' as const,
      attempts: 0,
      nextAttemptAt: event.createdAt,
      createdAt: event.createdAt,
    })),
  );
  return subscribers.length;
}

/** The delivery log of one of the caller's subscriptions, newest first (the latest 100). */
export async function listDeliveries({ ctx, input }: { ctx: ServiceContext; input: { caller: Caller; id: string } }): Promise<Delivery[]> {
  const subscription = await getSubscription({ ctx, input });
  const rows = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.subscriptionId, subscription.id))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.eventId))
    .limit(100);
  return rows.map((row) => ({
    id: row.id,
    eventId: row.eventId,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    lastResponseStatus: row.lastResponseStatus,
    nextAttemptAt: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    createdAt: row.createdAt.toISOString(),
  }));
}
