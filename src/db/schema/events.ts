import { bigint, index, json, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** The event log: ids increase in commit order (see services/events/record-event.ts). */
export const events = pgTable(
  'events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    type: text('type').notNull(),
    // json, not jsonb: the data is kept as written, key order included.
    data: json('data').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('events_created_at_idx').on(table.createdAt)],
);

