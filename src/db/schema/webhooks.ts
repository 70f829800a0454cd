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
    /** The signing secret (`whsec_…`): needed to sign, so kept as it is; never shown again. */
    secret: text('secret').notNull(),
    status: text('status', { enum: ['active', 'disabled'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('webhook_subscriptions_owner_idx').on(table.ownerKeyId, table.createdAt)],
);

/** The outbox: one row per (event, subscription), written with the event, before any attempt. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    subscriptionId: uuid('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: 'cascade' }),
    eventId: bigint('event_id', { mode: 'number' }).notNull(),
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
  ],
);

export type WebhookSubscriptionRow = typeof webhookSubscriptions.$inferSelect;
