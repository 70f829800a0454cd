import { desc, sql } from 'drizzle-orm';
import { webhookDeliveries } from '../../db/schema/index.ts';

/** What the delivery log shows of a subscription, and all that is kept of it (docs/spec/DECISIONS.md, "Stored growth"). */
export const DELIVERIES_KEPT = 100;

/**
 * Newest first: by time, then by event (a subscription's verification request,
 * which has none, came before them all), then by id — the order the log shows
 * and the storage sweep keeps.
 */
export const NEWEST_FIRST = [desc(webhookDeliveries.createdAt), sql`${webhookDeliveries.eventId} desc nulls last`, desc(webhookDeliveries.id)] as const;
