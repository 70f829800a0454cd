import type { Query, SQL, SQLWrapper } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Executor } from './database.ts';
import { rowsOf } from './rows.ts';

/** Turns a query into its text; the same for PostgreSQL and PGlite (both speak pg-core). */
const dialect = new PgDialect();

interface PreparingSession {
  prepareQuery(query: Query, fields: undefined, name: undefined, isResponseInArrayMode: boolean): { execute(values: Record<string, unknown>): Promise<unknown> };
}

/** A statement built once: run it with the values of its placeholders, on the database or in a transaction. */
export interface CompiledStatement<Row> {
  run(executor: Executor, values: Record<string, unknown>): Promise<Row[]>;
}

/**
 * A hot statement whose SQL text Drizzle builds once, from a query written
 * with `sql.placeholder(name)` where its values go, instead of on every call.
 * Building the text (the query builder's objects, then `sqlToQuery`) cost a
 * score submission about a sixth of its CPU, eight statements a request; and
 * a statement inside a transaction cannot use Drizzle's `.prepare()`, which
 * binds a query to the database it was built on. The run goes through the
 * executor's own Drizzle session, so a transaction's statement runs on its
 * connection, and each value passes its column's encoder as the builder's
 * would. Rows come back as the SQL names their columns.
 */
export function compiledStatement<Row = Record<string, unknown>>(build: () => SQLWrapper): CompiledStatement<Row> {
  let query: Query | undefined;
  return {
    async run(executor, values) {
      query ??= dialect.sqlToQuery(build().getSQL() as SQL);
      const session = (executor as unknown as { session: PreparingSession }).session;
      return rowsOf<Row>(await session.prepareQuery(query, undefined, undefined, false).execute(values));
    },
  };
}
