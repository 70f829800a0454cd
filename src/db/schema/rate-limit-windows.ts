import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** One fixed window of one limit for one client; `hits` counts its requests. */
export const rateLimitWindows = pgTable(
  'rate_limit_windows',
  {
    name: text('name').notNull(),
    client: text('client').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
    windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }).notNull(),
    hits: integer('hits').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.name, table.client, table.windowStart] }),
    index('rate_limit_windows_window_end_idx').on(table.windowEnd),
  ],
);
