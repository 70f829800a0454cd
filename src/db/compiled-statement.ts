import { Column, is, SQL, type Query, type SQLWrapper } from 'drizzle-orm';
import { PgDialect, PgTimestamp } from 'drizzle-orm/pg-core';
import type { Executor } from './database.ts';
import { rowsOf } from './rows.ts';
import { dateOfUtcTimestampText } from './timestamp-text.ts';

/** Turns a query into its text; the same for PostgreSQL and PGlite (both speak pg-core). */
const dialect = new PgDialect();

type RowMapper = (rows: unknown[][]) => unknown[];
type PreparedStatement = { execute(values: Record<string, unknown>): Promise<unknown> };

/** Drizzle's session (`db._.session`) prepares a query given its text and, optionally, a row mapper. */
interface PreparingSession {
  prepareQuery(query: Query, fields: undefined, name: undefined, isResponseInArrayMode: boolean, mapRows?: RowMapper): PreparedStatement;
}

interface BuiltStatement {
  query: Query;
  mapRows: RowMapper | undefined;
}

/** A query builder's query: its text, and the type of its rows. */
interface TypedQuery extends SQLWrapper {
  readonly _: { readonly result: unknown };
}

/** What Drizzle's builders keep of their selection (or `returning`): not in their public types. */
interface SelectingQuery {
  getSelectedFields(): Record<string, unknown> | undefined;
}

type Decoder = { mapFromDriverValue(value: unknown): unknown };

/** A statement built once: run it with the values of its placeholders, on the database or in a transaction. */
export interface CompiledStatement<Row> {
  run(executor: Executor, values?: Record<string, unknown>): Promise<Row[]>;
}

/**
 * A hot statement whose SQL text Drizzle builds once, from a query written
 * with `sql.placeholder(name)` where its values go, instead of on every call.
 * Building the text (the query builder's objects, then `sqlToQuery`) cost a
 * score submission about a sixth of its CPU, eight statements a request; and
 * a statement inside a transaction cannot use Drizzle's `.prepare()`, which
 * binds a query to the database it was built on. The run goes through the
 * executor's own Drizzle session (`executor._.session`, in Drizzle's public
 * types), so a transaction's statement runs on its connection, and Drizzle
 * fills the placeholders, each value through its column's encoder as the
 * builder's would. Rows come back as the SQL names their columns.
 */
export function compiledStatement<Row = Record<string, unknown>>(build: () => SQLWrapper): CompiledStatement<Row> {
  return compiled<Row>(() => builtStatement(dialect.sqlToQuery(build().getSQL()), undefined));
}

/**
 * The same for a query written with Drizzle's builder (`db.select()…`,
 * `db.insert()…returning()`), built once on the first executor it runs on:
 * its rows come back as the builder's would — named and typed by the
 * selection, each value decoded by its column — by a mapper made for its
 * fields once, rather than Drizzle's general walk over every field of every
 * row (a tenth of a task read's CPU). Flat selections only.
 */
export function compiledQuery<Query extends TypedQuery>(
  build: (executor: Executor) => Query,
): CompiledStatement<Query['_']['result'] extends (infer Row)[] ? Row : never> {
  let executorOfBuild: Executor | undefined;
  const statement = compiled<Query['_']['result'] extends (infer Row)[] ? Row : never>(() => {
    const query = build(executorOfBuild!);
    // An insert without `returning` selects nothing, and its run answers no rows.
    const fields = (query as unknown as SelectingQuery).getSelectedFields();
    return builtStatement(dialect.sqlToQuery(query.getSQL()), fields ? rowMapperOf(fields) : undefined);
  });
  return {
    run(executor, values) {
      executorOfBuild ??= executor;
      return statement.run(executor, values);
    },
  };
}

/** Drizzle's prepared form of the statement, one per session: the database's lives as long as the service. */
function compiled<Row>(build: () => BuiltStatement): CompiledStatement<Row> {
  let built: BuiltStatement | undefined;
  const bySession = new WeakMap<object, PreparedStatement>();
  return {
    async run(executor, values = {}) {
      built ??= build();
      const session = executor._.session as unknown as PreparingSession;
      let statement = bySession.get(session);
      if (!statement) bySession.set(session, (statement = session.prepareQuery(built.query, undefined, undefined, false, built.mapRows)));
      return rowsOf<Row>(await statement.execute(values));
    },
  };
}

function builtStatement(query: Query, mapRows: RowMapper | undefined): BuiltStatement {
  return { query, mapRows };
}

/**
 * Rows arrive as arrays of driver values in the selection's order; each
 * becomes an object of decoded fields, made by one object literal written for
 * the selection, so every row of a statement has one shape from the start
 * (a list of tasks reads them row after row). The names are the selection's
 * own keys, written into the literal as JSON strings.
 */
function rowMapperOf(fields: Record<string, unknown>): RowMapper {
  const names = Object.keys(fields);
  // In a literal, a quoted "__proto__" would set the row's prototype rather than a field.
  if (names.includes('__proto__')) throw new TypeError('compiledQuery cannot select a field named __proto__');
  const decoders = names.map((name) => decodingFunctionOf(decoderOf(name, fields[name])));
  const properties = names.map((name, index) => `${JSON.stringify(name)}: row[${index}] === null ? null : decoders[${index}](row[${index}])`);
  const rowOf = new Function('decoders', `return (row) => ({ ${properties.join(', ')} });`)(decoders) as (row: unknown[]) => unknown;
  return (rows) => rows.map(rowOf);
}

/** A column's decoding as a plain function; a timestamptz read as a Date by position when its text allows. */
function decodingFunctionOf(decoder: Decoder): (value: unknown) => unknown {
  const general = (value: unknown) => decoder.mapFromDriverValue(value);
  // PgTimestamp is the `mode: 'date'` column (strings are PgTimestampString).
  if (!is(decoder, PgTimestamp) || !decoder.withTimezone) return general;
  return (value) => (typeof value === 'string' && dateOfUtcTimestampText(value)) || general(value);
}

function decoderOf(name: string, field: unknown): Decoder {
  if (is(field, Column)) return field;
  if (is(field, SQL)) return (field as unknown as { decoder: Decoder }).decoder;
  if (is(field, SQL.Aliased)) return (field.sql as unknown as { decoder: Decoder }).decoder;
  throw new TypeError(`compiledQuery maps flat selections only: ${name} is not a column or an SQL expression`);
}
