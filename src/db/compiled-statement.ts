import { Column, DrizzleQueryError, is, Param, Placeholder, SQL, type Query, type SQLWrapper } from 'drizzle-orm';
import { PgDialect, PgTimestamp } from 'drizzle-orm/pg-core';
import type { Executor } from './database.ts';
import { rowsOf } from './rows.ts';
import { dateOfUtcTimestampText } from './timestamp-text.ts';
import { isoTimestampOf } from '../lib/iso-timestamp.ts';

/** Turns a query into its text; the same for PostgreSQL and PGlite (both speak pg-core). */
const dialect = new PgDialect();

type RowMapper = (rows: unknown[][]) => unknown[];
type PreparedStatement = { execute(values: Record<string, unknown>): Promise<unknown> };
type Values = Record<string, unknown>;

interface PreparingSession {
  /** postgres.js (db/client.ts wraps it) or PGlite. */
  client: unknown;
  prepareQuery(query: Query, fields: undefined, name: undefined, isResponseInArrayMode: boolean, mapRows?: RowMapper): PreparedStatement;
}

/** What a postgres.js client (or transaction) answers a statement with. */
interface PostgresJsClient {
  unsafe(text: string, parameters: unknown[], options: { prepare: boolean }): PromiseLike<unknown[]> & { values(): PromiseLike<unknown[][]> };
}

interface BuiltStatement {
  query: Query;
  mapRows: RowMapper | undefined;
  parametersOf: (values: Values) => unknown[];
}

const PREPARED = { prepare: true };

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
 * executor's own Drizzle session, so a transaction's statement runs on its
 * connection, and each value passes its column's encoder as the builder's
 * would. Rows come back as the SQL names their columns.
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

/**
 * On postgres.js the statement goes to the session's client at once; Drizzle's
 * prepared query would add its tracing, cache and error layers (three more
 * promises), and look up each parameter's kind again, on every run: a few
 * microseconds a statement, ten statements a score. Failures are wrapped as
 * Drizzle wraps them. PGlite runs through Drizzle's own prepared query, which
 * holds the parsers PGlite needs.
 */
function compiled<Row>(build: () => BuiltStatement): CompiledStatement<Row> {
  let built: BuiltStatement | undefined;
  // Drizzle's prepared form of the statement, one per session: the database's lives as long as the service.
  const bySession = new WeakMap<object, PreparedStatement>();
  return {
    async run(executor, values = {}) {
      built ??= build();
      const session = (executor as unknown as { session: PreparingSession }).session;
      const client = session.client as Partial<PostgresJsClient>;
      if (typeof client.unsafe === 'function') return (await onPostgresJs(client as PostgresJsClient, built, values)) as Row[];
      let statement = bySession.get(session);
      if (!statement) bySession.set(session, (statement = session.prepareQuery(built.query, undefined, undefined, false, built.mapRows)));
      return rowsOf<Row>(await statement.execute(values));
    },
  };
}

async function onPostgresJs(client: PostgresJsClient, { query, mapRows, parametersOf }: BuiltStatement, values: Values): Promise<unknown[]> {
  const parameters = parametersOf(values);
  try {
    return mapRows ? mapRows(await client.unsafe(query.sql, parameters, PREPARED).values()) : await client.unsafe(query.sql, parameters, PREPARED);
  } catch (error) {
    throw new DrizzleQueryError(query.sql, parameters, error as Error);
  }
}

function builtStatement(query: Query, mapRows: RowMapper | undefined): BuiltStatement {
  return { query, mapRows, parametersOf: parameterFiller(query.params) };
}

/**
 * Drizzle's `fillPlaceholders`, decided once per parameter: a placeholder
 * takes its value, a placeholder in a column's place passes the column's
 * encoder, anything else is a constant of the statement.
 */
function parameterFiller(parameters: unknown[]): (values: Values) => unknown[] {
  const fillers = parameters.map((parameter): ((values: Values) => unknown) => {
    if (is(parameter, Placeholder)) return (values) => valueOf(values, parameter.name);
    if (is(parameter, Param) && is(parameter.value, Placeholder)) {
      const { value: placeholder } = parameter;
      const encode = encodingFunctionOf(parameter.encoder);
      return (values) => encode(valueOf(values, placeholder.name));
    }
    return () => parameter;
  });
  return (values) => fillers.map((fill) => fill(values));
}

/** A column's encoding as a plain function; a timestamp's Date written as toISOString does, without V8's formatter. */
function encodingFunctionOf(encoder: Param['encoder']): (value: unknown) => unknown {
  if (is(encoder, PgTimestamp)) return (value) => isoTimestampOf(value as Date);
  return (value) => encoder.mapToDriverValue(value);
}

function valueOf(values: Values, name: string): unknown {
  if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`);
  return values[name];
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
