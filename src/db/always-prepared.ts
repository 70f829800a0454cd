import type { Sql } from 'postgres';

/**
 * Drizzle runs every query it has not been asked to `.prepare()` through
 * postgres.js with `{ prepare: false }`. postgres.js then cannot reuse a
 * statement, and for a query with parameters it asks the server to describe
 * the statement before binding it: two round trips per query, every time.
 * Inside a transaction that holds a lock, those extra round trips are time
 * every other writer waits.
 *
 * This wraps the client so that every query is prepared: postgres.js keeps
 * each statement per connection, keyed by its text, and later runs are one
 * round trip. Our query texts are a fixed set (values are always parameters),
 * so the per-connection cache stays small.
 */
export function alwaysPrepared<T extends Sql>(client: T): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      switch (property) {
        case 'unsafe':
          return (query: string, parameters?: unknown[], options?: Record<string, unknown>) =>
            target.unsafe(query, parameters as never, { ...options, prepare: true });
        case 'begin':
        case 'savepoint':
          return (...args: unknown[]) => {
            const work = args.pop() as (inner: Sql) => unknown;
            return (value as (...inner: unknown[]) => unknown).call(target, ...args, (inner: Sql) => work(alwaysPrepared(inner)));
          };
        default:
          return value;
      }
    },
  });
}
