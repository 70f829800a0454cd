import type { Sql } from 'postgres';
import { checkedTransaction } from './checked-transaction.ts';
import type { ConnectionGate } from './connection-gate.ts';
import type { StatementMode } from './statement-mode.ts';

type Unsafe = (query: string, parameters?: unknown[], options?: Record<string, unknown>) => PromiseLike<unknown> & { values(): PromiseLike<unknown> };

/** A query as Drizzle uses it: awaited, or `.values()` first and then awaited. */
class GatedQuery implements PromiseLike<unknown> {
  private asValues = false;

  constructor(
    private readonly gate: ConnectionGate,
    private readonly start: () => PromiseLike<unknown> & { values(): PromiseLike<unknown> },
  ) {}

  values(): this {
    this.asValues = true;
    return this;
  }

  then<A = unknown, B = never>(onFulfilled?: ((rows: unknown) => A | PromiseLike<A>) | null, onRejected?: ((error: unknown) => B | PromiseLike<B>) | null): PromiseLike<A | B> {
    return this.gate.run(() => (this.asValues ? this.start().values() : this.start())).then(onFulfilled, onRejected);
  }
}

/**
 * The postgres.js client as Drizzle sees it, with three changes.
 *
 * Directly on PostgreSQL, every query is prepared. Drizzle runs each query it
 * was not asked to `.prepare()` with `{ prepare: false }`; postgres.js then
 * cannot reuse the statement, and for a query with parameters it asks the
 * server to describe it before binding: two round trips per query, every
 * time, and inside a transaction that holds a lock that is time every other
 * writer waits. Prepared, postgres.js keeps each statement per connection,
 * keyed by its text, and later runs take one round trip. Our query texts are
 * a fixed set (values are always parameters), so that cache stays small.
 * Through a transaction pooler a statement prepared by name would be missing
 * on the next transaction's session, so there nothing is (see StatementMode).
 *
 * Every use of a connection passes the gate: a query or a whole transaction
 * holds one slot, and waiting for one is bounded (see ConnectionGate).
 * Queries inside a transaction run on its connection and do not queue again.
 *
 * A transaction is acknowledged only when its COMMIT is (checkedTransaction).
 */
export function preparedAndGated<T extends Sql>(client: T, gate: ConnectionGate | undefined, mode: StatementMode): T {
  const statementOptions = { prepare: mode.prepare };
  const prepared = (query: string, parameters: unknown[] | undefined, options: Record<string, unknown> | undefined) =>
    client.unsafe(query, parameters as never, options ? { ...options, ...statementOptions } : statementOptions);
  const unsafe: Unsafe = gate
    ? (query, parameters, options) => new GatedQuery(gate, () => prepared(query, parameters, options))
    : prepared;
  const begin = (...args: unknown[]) => {
    const work = args.pop() as (inner: Sql) => unknown;
    if (args.length > 0) throw new Error('Transaction options are not used by the service');
    // A transaction holds its slot from BEGIN to COMMIT.
    const start = () => checkedTransaction(client, mode, (connection) => work(preparedAndGated(connection, undefined, mode)));
    return gate ? gate.run(start) : start();
  };
  const savepoint = () => {
    throw new Error('Nested transactions are not used by the service: withTransaction reuses the open one');
  };
  // Made once per client: Drizzle looks `unsafe` up on every query.
  const overrides: Record<PropertyKey, unknown> = { unsafe, begin, savepoint };
  return new Proxy(client, {
    get: (target, property, receiver) => (property in overrides ? overrides[property] : Reflect.get(target, property, receiver)),
  });
}
