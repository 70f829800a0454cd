import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';

/**
 * The driver-neutral Drizzle handle: PGlite and postgres.js both satisfy it.
 * Without the schema: nothing uses Drizzle's relational queries, whose
 * builders Drizzle would otherwise make anew, a dozen, for every transaction.
 */
export type Database = PgDatabase<PgQueryResultHKT>;

export type Transaction = PgTransaction<PgQueryResultHKT>;

/** Anything a query can run on: the database itself or an open transaction. */
export type Executor = Database | Transaction;
