import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type * as schema from './schema/index.ts';

type Schema = typeof schema;

/** The driver-neutral Drizzle handle: PGlite and postgres.js both satisfy it. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

/** Anything a query can run on: the database itself or an open transaction. */
export type Executor = Database | Transaction;
