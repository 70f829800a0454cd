/** The rows of a raw `execute`: postgres.js answers an array, PGlite an object holding `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as T[];
}
