import { bigint, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: uuid('id').primaryKey(),
    /** The API key that created it (directly or through one of its tokens); only it sees the subscription. */
    ownerKeyId: uuid('owner_key_id').notNull(),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    description: text('description'),
    /** The URL's host name, lower case: sends to one host are bounded per instance (docs/spec/DECISIONS.md, "Webhook sending"). */
    targetHost: text('target_host').notNull(),
    /** The signing secret (`whsec_…`): needed to sign, so kept as it is; never shown again. */
    secret: text('secret').notNull(),
    /** pending until its receiver echoes the verification challenge; failed if it never does; disabled once its key is gone or its receiver answered 410. */
    status: text('status', { enum: ['pending', 'active', 'failed', 'disabled'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('webhook_subscriptions_owner_idx').on(table.ownerKeyId, table.createdAt)],
);

/** The outbox: one row per (event, subscription), written with the event, before any attempt; and each subscription's verification request. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    subscriptionId: uuid('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: 'cascade' }),
    /** Null for the subscription's verification request, which belongs to no event. */
    eventId: bigint('event_id', { mode: 'number' }),
    /** The event type, or `webhook.verification`. */
    type: text('type').notNull(),
    /** The envelope `{type, timestamp, data}` exactly as every attempt sends it. */
    payload: text('payload').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed', 'disabled'] }).notNull(),
    attempts: integer('attempts').notNull(),
    lastResponseStatus: integer('last_response_status'),
    /** When the next attempt is due; while one runs, the end of its lease. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    index('webhook_deliveries_due_idx').on(table.status, table.nextAttemptAt),
    index('webhook_deliveries_subscription_idx').on(table.subscriptionId, table.createdAt),
    // Deliveries older than their event's 7 days are swept by age.
    index('webhook_deliveries_created_idx').on(table.createdAt),
  ],
);

export type WebhookSubscriptionRow = typeof webhookSubscriptions.$inferSelect;
