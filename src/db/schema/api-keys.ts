import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    /** The key's first 12 characters, shown to help people tell keys apart. */
    prefix: text('prefix').notNull(),
    /** Hex SHA-256 of the key; the key itself is never stored. */
    keyHash: text('key_hash').notNull().unique(),
    scopes: text('scopes').array().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [index('api_keys_created_at_id_idx').on(table.createdAt, table.id)],
);

