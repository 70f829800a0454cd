import { boolean, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const tasks = pgTable(
  'tasks',
  {
    id: uuid('id').primaryKey(),
    title: text('title').notNull(),
    done: boolean('done').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  // Serves the list order (createdAt desc, id desc) by a backward scan, the
  // cursor's row comparison, and the retention query.
  (table) => [index('tasks_created_at_id_idx').on(table.createdAt, table.id)],
);

export type TaskRow = typeof tasks.$inferSelect;
