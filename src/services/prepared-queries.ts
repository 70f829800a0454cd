import type { Executor } from '../db/database.ts';

interface Preparable<T> {
  prepare(name: string): T;
}

const cache = new WeakMap<Executor, Map<string, unknown>>();

/**
 * A prepared query for a hot path: built (SQL text, parameter mapping) once
 * per database handle instead of on every request. Transactions are new
 * handles each time, so inside one this only saves nothing and costs nothing.
 */
export function prepared<T>(db: Executor, name: string, build: (db: Executor) => Preparable<T>): T {
  let queries = cache.get(db);
  if (!queries) cache.set(db, (queries = new Map()));
  let query = queries.get(name) as T | undefined;
  if (!query) queries.set(name, (query = build(db).prepare(name)));
  return query;
}
