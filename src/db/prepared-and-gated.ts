import type { Sql } from 'postgres';
import type { ConnectionGate } from './connection-gate.ts';

type Unsafe = (query: string, parameters?: unknown[], options?: Record<string, unknown>) => PromiseLike<unknown> & { values(): PromiseLike<unknown> };

/**
 * The postgres.js client as Drizzle sees it, with two changes.
 *
 * Every query is prepared. Drizzle runs each query it was not asked to
 * `.prepare()` with `{ prepare: false }`; postgres.js then cannot reuse the
 * statement, and for a query with parameters it asks the server to describe
 * it before binding: two round trips per query, every time, and inside a
 * transaction that holds a lock that is time every other writer waits.
 * Prepared, postgres.js keeps each statement per connection, keyed by its
 * text, and later runs take one round trip. Our query texts are a fixed set
 * (values are always parameters), so that cache stays small.
 *
 * Every use of a connection passes the gate: a query or a whole transaction
 * holds one slot, and waiting for one is bounded (see ConnectionGate).
 * Queries inside a transaction run on its connection and do not queue again.
 */
export function preparedAndGated<T extends Sql>(client: T, gate: ConnectionGate | undefined): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'unsafe') {
        const unsafe: Unsafe = (query, parameters, options) => {
          const run = () => target.unsafe(query, parameters as never, { ...options, prepare: true });
          if (!gate) return run() as unknown as ReturnType<Unsafe>;
          // Drizzle either awaits the query or calls .values() on it first.
          let asValues = false;
          const deferred = {
            values() {
              asValues = true;
              return deferred;
            },
            then<A, B>(onFulfilled?: (rows: unknown) => A | PromiseLike<A>, onRejected?: (error: unknown) => B | PromiseLike<B>) {
              return gate.run<unknown>(() => (asValues ? run().values() : run())).then(onFulfilled, onRejected);
            },
          };
          return deferred;
        };
        return unsafe;
      }
      if (property === 'begin' || property === 'savepoint') {
        return (...args: unknown[]) => {
          const work = args.pop() as (inner: Sql) => unknown;
          const start = () =>
            (value as (...inner: unknown[]) => PromiseLike<unknown>).call(target, ...args, (inner: Sql) => work(preparedAndGated(inner, undefined)));
          // A transaction holds its slot from BEGIN to COMMIT; a savepoint is already inside one.
          return property === 'begin' && gate ? gate.run(start) : start();
        };
      }
      return value;
    },
  });
}
