/**
 * A failure in its deepest cause's own words, with its code: Drizzle wraps
 * the driver's error around the SQL it ran, and what a log line or a start-up
 * message needs is PostgreSQL's (or the driver's) message and SQLSTATE.
 */
export function describeInnermostCause(error: unknown): string {
  let cause = error as { code?: unknown; message?: unknown; cause?: unknown };
  while (cause.cause && typeof cause.cause === 'object') cause = cause.cause as typeof cause;
  const message = typeof cause.message === 'string' ? cause.message : String(cause);
  return typeof cause.code === 'string' ? `${message} (${cause.code})` : message;
}
