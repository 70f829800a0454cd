/**
 * A reason the service cannot start that an operator can act on (a busy port,
 * a missing database, a held data directory). main.ts prints its message as
 * the one line docs/spec/DECISIONS.md, "Operations" asks for, without a stack trace.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}
