import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** One Idempotency-Key of one client: claimed while its request runs, then its stored answer. */
export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    client: text('client').notNull(),
    key: text('key').notNull(),
    /** Which attempt holds the claim, so only that attempt completes or releases it. */
    claim: uuid('claim').notNull(),
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: ['in_progress', 'completed'] }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    responseStatus: integer('response_status'),
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
    responseBody: text('response_body'),
  },
  (table) => [
    primaryKey({ columns: [table.client, table.key] }),
    index('idempotency_records_started_at_idx').on(table.startedAt),
  ],
);
