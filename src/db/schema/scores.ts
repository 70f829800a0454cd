import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const scores = pgTable(
  'scores',
  {
    id: uuid('id').primaryKey(),
    game: text('game').notNull(),
    initials: text('initials').notNull(),
    value: integer('value').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  // Serves the board order, the rank count and retention, per game.
  (table) => [index('scores_game_value_created_at_idx').on(table.game, table.value, table.createdAt)],
);

